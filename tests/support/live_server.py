"""Start ``pyfathom serve`` as a real process on 127.0.0.1 for the server tests.

Not a test module: :func:`serving` is used by the fixtures of
``test_server*.py``.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional


def q(fen: str) -> str:
    """``fen`` as a query value the way lichess's links write it
    (underscores for spaces)."""
    return urllib.parse.quote(fen.replace(" ", "_"), safe="/_-")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A running ``pyfathom serve`` process and a keep-alive client to it."""

    def __init__(self, port: int, proc: subprocess.Popen[bytes]) -> None:
        self.port = port
        self.proc = proc
        self.base = f"http://127.0.0.1:{port}"
        self._conn: Optional[http.client.HTTPConnection] = None
        self.log = ""  # the process's stderr, once it has stopped

    def request(self, method: str, path: str, body: Optional[bytes] = None,
                headers: Optional[dict[str, str]] = None) -> tuple[int, dict[str, str], bytes]:
        """One request on the kept-alive connection (reopened when the
        server closed it): (status, lower-cased headers, body)."""
        for attempt in range(2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self._conn.request(method, path, body=body, headers=headers or {})
                response = self._conn.getresponse()
                data = response.read()
                head = {k.lower(): v for k, v in response.getheaders()}
                if head.get("connection", "").lower() == "close":
                    self.close()
                return response.status, head, data
            except (http.client.HTTPException, ConnectionError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def get_json(self, path: str) -> tuple[int, Any]:
        status, _, data = self.request("GET", path)
        return status, json.loads(data)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


@contextmanager
def serving(tables: Path, *extra: str) -> Iterator[Server]:
    """``python -m pyfathom serve --tables TABLES --port P [extra]`` until the
    block ends; fails if the process does not answer within 60 s."""
    port = free_port()
    cmd = [sys.executable, "-m", "pyfathom", "serve", "--tables", str(tables),
           "--port", str(port), *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ))
    server = Server(port, proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                out, err = proc.communicate()
                raise AssertionError(f"pyfathom serve exited with {proc.returncode}: "
                                     f"{err.decode(errors='replace')}")
            try:
                status, _, _ = server.request("GET", "/standard?fen=8/8/8/8/8/8/8/K6k_w")  # no table needed
                if status == 200:
                    break
            except OSError:
                server.close()
            if time.monotonic() > deadline:
                raise AssertionError("pyfathom serve did not answer within 60 s")
            time.sleep(0.1)
        yield server
    finally:
        server.close()
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
        if proc.stderr:
            server.log = proc.stderr.read().decode(errors="replace")
            proc.stderr.close()
