"""Load test of ``pyfathom serve`` next to a python-chess server, on loopback.

Starts two servers on 127.0.0.1, each on Starlette + uvicorn with the same
number of worker processes and the same lichess document code
(:func:`pyfathom.server.lichess.probe_document`):

- ``pyfathom``: ``pyfathom serve --workers W --cache 0`` (no answer cache:
  every request is computed);
- ``python-chess``: the same app shape whose probes go through
  ``chess.syzygy`` (its ``probe_dtz``; the precise flag, which python-chess
  does not give, is left out).

Then a client written here (asyncio, raw HTTP/1.1 keep-alive connections)
sends a fixed number of ``GET /standard?fen=...`` requests over C concurrent
connections, each for a distinct position (generated over the 35 3-4-piece
tables, as the other benchmarks), and reports requests per second and p50 /
p90 / p99 latency.  Every answer must be a 200 (counted otherwise).  The run
stops by itself.  The python-chess server answers about a hundred times
slower, so it gets fewer requests (``--reference-requests``).

Run from the repository root after ``pip install -e '.[test,server]'``::

    python benchmarks/bench_server.py                    # 20,000 requests, 64 connections, 2 workers
    python benchmarks/bench_server.py --requests 2000 --reference-requests 200 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

ROOT = common.ROOT


# --- the python-chess reference server -----------------------------------------


class _ChessSyzygyProbes:
    """What :func:`pyfathom.server.lichess.probe_document` needs from a
    tablebase (``probe(board)`` with ``dtz`` and ``dtz_precise``), answered
    by python-chess's ``chess.syzygy``."""

    def __init__(self, directory: str) -> None:
        import chess.syzygy

        self.tb = chess.syzygy.open_tablebase(directory)

    def probe(self, board: Any) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(dtz=self.tb.probe_dtz(board), dtz_precise=False)


def reference_app() -> Any:
    """The python-chess server's app (uvicorn factory; tables from
    ``$PYFATHOM_SERVE_TABLES``)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from pyfathom.server import lichess

    tb = _ChessSyzygyProbes(os.environ["PYFATHOM_SERVE_TABLES"])

    async def standard(request: Request) -> Response:
        try:
            board = lichess.parse_fen(request.query_params.get("fen", ""))
        except lichess.BadRequest as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        document = lichess.probe_document(tb, board)  # type: ignore[arg-type]
        return Response(json.dumps(document, separators=(",", ":")), media_type="application/json")

    return Starlette(routes=[Route("/standard", standard)])


# --- servers ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start(kind: str, tables: Path, workers: int, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYFATHOM_SERVE_TABLES=str(tables))
    if kind == "pyfathom":
        cmd = [sys.executable, "-m", "pyfathom", "serve", "--tables", str(tables),
               "--port", str(port), "--workers", str(workers), "--cache", "0"]
    else:
        cmd = [sys.executable, "-m", "uvicorn", "--factory", "bench_server:reference_app",
               "--app-dir", str(ROOT / "benchmarks"), "--host", "127.0.0.1",
               "--port", str(port), "--workers", str(workers), "--log-level", "warning",
               "--no-access-log"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"{kind} server exited: {err}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b",
                                        timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{kind} server did not answer within 60 s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# --- the load client ---------------------------------------------------------------


async def _connection(port: int, paths: list[str], next_index: list[int],
                      latencies: list[float], failures: list[str]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while next_index[0] < len(paths):
            path = paths[next_index[0]]
            next_index[0] += 1
            request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Accept: application/json\r\n\r\n").encode()
            start = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            if status != 200:
                failures.append(f"{status} {path}")
    finally:
        writer.close()


async def _load(port: int, paths: list[str], connections: int) -> tuple[float, list[float], list[str]]:
    latencies: list[float] = []
    failures: list[str] = []
    next_index = [0]
    start = time.perf_counter()
    await asyncio.gather(*(_connection(port, paths, next_index, latencies, failures)
                           for _ in range(connections)))
    return time.perf_counter() - start, latencies, failures


def run_load(port: int, fens: list[str], connections: int) -> dict[str, Any]:
    paths = ["/standard?fen=" + fen.replace(" ", "_") for fen in fens]
    warm = paths[: min(200, len(paths))]
    asyncio.run(_load(port, warm, min(connections, 8)))  # start-up costs out of the timing
    elapsed, latencies, failures = asyncio.run(_load(port, paths, connections))
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    return {
        "requests": len(latencies),
        "non_200": len(failures),
        "seconds": round(elapsed, 3),
        "requests_per_sec": round(len(latencies) / elapsed, 1),
        "p50_ms": round(pct(0.50), 2),
        "p90_ms": round(pct(0.90), 2),
        "p99_ms": round(pct(0.99), 2),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2),
    }


_WRK_SCRIPT = """
-- One path per line in $BENCH_PATHS; thread i starts at line i * step.
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
local threads = 0
function setup(thread)
  thread:set("start", threads)
  threads = threads + 1
end
local index = nil
function request()
  if index == nil then index = start * 7919 end
  index = index + 1
  return wrk.format("GET", paths[(index % #paths) + 1], {["Accept"] = "application/json"})
end
"""


def run_wrk(port: int, fens: list[str], connections: int, seconds: float) -> dict[str, Any]:
    """The same load from Debian's ``wrk`` (C, so the client takes less of
    the machine): a fixed duration instead of a fixed count."""
    import re
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        paths = Path(tmp) / "paths.txt"
        paths.write_text("".join("/standard?fen=" + f.replace(" ", "_") + "\n" for f in fens))
        script = Path(tmp) / "paths.lua"
        script.write_text(_WRK_SCRIPT)
        threads = 2
        cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{int(round(seconds))}s", "--latency",
               "-s", str(script), f"http://127.0.0.1:{port}"]
        proc = subprocess.run(cmd, env=dict(os.environ, BENCH_PATHS=str(paths)),
                             capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"wrk failed: {proc.stdout}{proc.stderr}")
        out = proc.stdout

    def ms(text: str) -> float:
        value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    pcts = dict(re.findall(r"^\s+(50|90|99)(?:\.0+)?%\s+(\S+)\s*$", out, re.M))
    if len(pcts) != 3:
        raise RuntimeError(f"cannot read wrk's latency distribution: {out}")
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "requests": total,
        "non_200": int(bad.group(1)) if bad else 0,
        "seconds": seconds,
        "requests_per_sec": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        "p50_ms": round(ms(pcts["50"]), 2),
        "p90_ms": round(ms(pcts["90"]), 2),
        "p99_ms": round(ms(pcts["99"]), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=Path, help="table directory (default: the tests' tables)")
    parser.add_argument("--requests", type=int, default=20_000, help="requests to pyfathom (default 20000)")
    parser.add_argument("--reference-requests", type=int, default=1_000,
                        help="requests to the python-chess server (default 1000)")
    parser.add_argument("--connections", type=int, default=64, help="concurrent connections (default 64)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes per server (default 2)")
    parser.add_argument("--skip-reference", action="store_true", help="measure pyfathom only")
    parser.add_argument("--client", choices=("auto", "python", "wrk"), default="auto",
                        help="load client: Debian's wrk (a fixed duration; the default when "
                             "installed: written in C, it takes less of the machine) or this "
                             "script's asyncio client (a fixed number of requests)")
    parser.add_argument("--seconds", type=float, default=15.0,
                        help="with --client wrk: seconds per server (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    if args.client == "auto":
        args.client = "wrk" if shutil.which("wrk") else "python"
    tables = args.tables or common.default_tables()
    count = max(args.requests, args.reference_requests)
    position_file = common.make_positions(common.BIN / f"positions-{count}.txt", count)
    fens = common.read_fens(position_file)
    result: dict[str, Any] = {"client": args.client, "workers": args.workers,
                              "connections": args.connections,
                              "cpus": os.cpu_count()}
    kinds = [("pyfathom", args.requests)]
    if not args.skip_reference:
        kinds.append(("python-chess", args.reference_requests))
    for kind, n in kinds:
        port = _free_port()
        proc = _start(kind, tables, args.workers, port)
        try:
            if args.client == "wrk":
                run_load(port, fens[:200], 8)  # warm-up
                result[kind] = run_wrk(port, fens[:max(n, 1)], args.connections, args.seconds)
            else:
                result[kind] = run_load(port, fens[:n], args.connections)
        finally:
            _stop(proc)
    if not args.skip_reference:
        result["ratio_requests_per_sec"] = round(
            result["pyfathom"]["requests_per_sec"] / result["python-chess"]["requests_per_sec"], 1)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"GET /standard, distinct 3-4-piece positions, {args.connections} connections, "
          f"{args.workers} workers per server, {os.cpu_count()} CPUs, client: {args.client} "
          "(on the same machine)")
    print(f"{'server':<14}{'requests':>9}{'non-200':>8}{'req/s':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}")
    for kind, _n in kinds:
        r = result[kind]
        print(f"{kind:<14}{r['requests']:>9}{r['non_200']:>8}{r['requests_per_sec']:>9.0f}"
              f"{r['p50_ms']:>9.1f}{r['p90_ms']:>9.1f}{r['p99_ms']:>9.1f}")
    if "ratio_requests_per_sec" in result:
        print(f"pyfathom / python-chess requests per second: {result['ratio_requests_per_sec']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
