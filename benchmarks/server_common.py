"""What the server benchmarks share (bench_server.py, bench_server_isolation.py,
bench_server_cold.py): starting a server process on 127.0.0.1 and stopping
it, the raw HTTP/1.1 requests, the asyncio load client, and the figures
(percentiles, median and range).  Not imported by the package."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Optional, Sequence

READY_PATH = "/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b"
"""A request every server answers with a 200 once it is up (KRvK, or an
unknown position: either is a 200)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pyfathom_command(tables: Path, port: int, workers: int, *extra: str) -> list[str]:
    """``pyfathom serve`` on 127.0.0.1:PORT without an answer cache (every
    request computed)."""
    return [sys.executable, "-m", "pyfathom", "serve", "--tables", str(tables),
            "--port", str(port), "--workers", str(workers), "--cache", "0", *extra]


def uvicorn_command(factory: str, app_dir: Path, port: int, workers: int) -> list[str]:
    """uvicorn serving the app factory ``module:function`` from ``app_dir``."""
    return [sys.executable, "-m", "uvicorn", "--factory", factory, "--app-dir", str(app_dir),
            "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
            "--log-level", "warning", "--no-access-log"]


def start(cmd: Sequence[str], port: int, env: Optional[dict[str, str]] = None,
          name: str = "server", timeout: float = 60.0) -> subprocess.Popen[bytes]:
    """Run ``cmd`` and wait until it answers :data:`READY_PATH` on ``port``."""
    proc = subprocess.Popen(list(cmd), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"{name} exited: {err}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{READY_PATH}", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"{name} did not answer within {timeout:.0f} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stderr:
        proc.stderr.close()


# --- requests -------------------------------------------------------------------


def get_request(fen: str, path: str = "/standard") -> bytes:
    return (f"GET {path}?fen={fen.replace(' ', '_')} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Accept: application/json\r\n\r\n").encode()


def batch_request(fens: list[str]) -> bytes:
    body = json.dumps(fens).encode()
    return (f"POST /standard/batch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nAccept: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


# --- the load client ---------------------------------------------------------------


class Replies:
    """What a load run got: per request (in the order given) its latency in
    seconds, its status and, when kept, its body."""

    def __init__(self, n: int, keep_bodies: bool) -> None:
        self.latency: list[float] = [0.0] * n
        self.status: list[int] = [0] * n
        self.body: list[bytes] = [b""] * n
        self.keep_bodies = keep_bodies
        self.seconds = 0.0

    @property
    def failures(self) -> list[int]:
        return [i for i, s in enumerate(self.status) if s != 200]


async def _connection(port: int, requests: Sequence[bytes], next_index: list[int],
                      replies: Replies) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while next_index[0] < len(requests):
            index = next_index[0]
            next_index[0] += 1
            start = time.perf_counter()
            writer.write(requests[index])
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = await reader.readexactly(length)
            replies.latency[index] = time.perf_counter() - start
            replies.status[index] = status
            if replies.keep_bodies:
                replies.body[index] = body
    finally:
        writer.close()


async def _replay(port: int, requests: Sequence[bytes], connections: int,
                  keep_bodies: bool) -> Replies:
    replies = Replies(len(requests), keep_bodies)
    next_index = [0]
    start = time.perf_counter()
    await asyncio.gather(*(_connection(port, requests, next_index, replies)
                           for _ in range(connections)))
    replies.seconds = time.perf_counter() - start
    return replies


def replay(port: int, requests: Sequence[bytes], connections: int,
           keep_bodies: bool = False) -> Replies:
    """``requests`` over ``connections`` keep-alive connections (each takes
    the next request not yet sent, so they run in the given order)."""
    return asyncio.run(_replay(port, requests, connections, keep_bodies))


async def load(port: int, requests: list[bytes], connections: int
               ) -> tuple[float, list[float], list[str]]:
    """(seconds, latencies, failures) of ``requests`` over ``connections``
    connections (for use inside a running event loop)."""
    replies = await _replay(port, requests, connections, False)
    failures = [f"{replies.status[i]} {requests[i][:120]!r}" for i in replies.failures]
    return replies.seconds, replies.latency, failures


# --- figures -------------------------------------------------------------------------


def percentiles(latencies: Sequence[float], points: Sequence[int] = (50, 90, 99)
                ) -> dict[str, float]:
    """``p50_ms`` ... of latencies given in seconds (nearest rank)."""
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000

    return {f"p{p}_ms": round(pct(p / 100), 2) for p in points}


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max (the machine is shared: a range, not one number)."""
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def drop_page_cache(files: Sequence[Path]) -> None:
    """Ask the kernel to drop the cached pages of ``files``: a later read
    goes to the disk, provided nothing has them mapped (start the server
    after this).  Written back first: the kernel keeps dirty pages (a
    table just generated)."""
    for path in files:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
