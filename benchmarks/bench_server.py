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

``--batch`` measures ``POST /standard/batch`` instead: positions per second
of bodies of ``--batch-size`` FENs (1,000, the most a request takes) sent
over ``--batch-connections`` connections, against the same server answering
the same positions through ``GET /standard`` one by one (64 connections),
and against the batch endpoint as it was before it went through the C batch
path (:func:`old_batch_app`: each FEN answered by
:func:`~pyfathom.server.lichess.probe_document`, a per-board probe per
position).  The three alternate for ``--rounds`` rounds; medians and ranges
are reported.

Run from the repository root after ``pip install -e '.[test,server]'``::

    python benchmarks/bench_server.py                    # 20,000 requests, 64 connections, 2 workers
    python benchmarks/bench_server.py --requests 2000 --reference-requests 200 --json
    python benchmarks/bench_server.py --batch --rounds 3  # POST /standard/batch vs GET vs old batch
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
import server_common  # noqa: E402

ROOT = common.ROOT


# --- the python-chess reference server -----------------------------------------


class _ChessSyzygyProbes:
    """What :func:`pyfathom.server.lichess.probe_document` needs from a
    tablebase (``probe_dtz_as_stored(board)``: dtz and precise flag, and
    ``probe(board)`` with ``dtz`` and ``dtz_precise`` for ``exact_mates``),
    answered by python-chess's ``chess.syzygy`` (which says nothing of
    precision: every DTZ is taken as rounded)."""

    def __init__(self, directory: str) -> None:
        import chess.syzygy

        self.tb = chess.syzygy.open_tablebase(directory)

    def probe(self, board: Any) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(dtz=self.tb.probe_dtz(board), dtz_precise=False)

    def probe_dtz_as_stored(self, board: Any) -> tuple[int, bool]:
        return self.tb.probe_dtz(board), False


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


def old_batch_app() -> Any:
    """``POST /standard/batch`` as pyfathom served it before the endpoint
    went through the C batch path: each FEN answered by
    :func:`~pyfathom.server.lichess.probe_document` (one per-board probe per
    position), in Starlette's thread pool; JSON arrays only, no cache
    (uvicorn factory; tables from ``$PYFATHOM_SERVE_TABLES``)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    import pyfathom
    from pyfathom.server import lichess

    tb = pyfathom.open_tablebase(os.environ["PYFATHOM_SERVE_TABLES"])

    def documents(fens: list[str]) -> list[dict[str, Any]]:
        out = []
        for fen in fens:
            try:
                board = lichess.parse_fen(fen)
                document = {"fen": board.fen()}
                document.update(lichess.probe_document(tb, board))
            except lichess.BadRequest as e:
                document = {"fen": fen, "error": str(e)}
            out.append(document)
        return out

    async def standard(request: Request) -> Response:
        board = lichess.parse_fen(request.query_params.get("fen", ""))
        return Response(json.dumps(lichess.probe_document(tb, board)),
                        media_type="application/json")

    async def batch(request: Request) -> Response:
        fens = json.loads(await request.body())
        answers = await run_in_threadpool(documents, fens)
        return Response(json.dumps(answers, separators=(",", ":")), media_type="application/json")

    return Starlette(routes=[Route("/standard", standard),
                             Route("/standard/batch", batch, methods=["POST"])])


# --- servers ---------------------------------------------------------------------


def _start(kind: str, tables: Path, workers: int, port: int) -> subprocess.Popen[bytes]:
    """``pyfathom`` (serve, no cache), or one of this file's factories:
    ``python-chess`` (:func:`reference_app`), ``old-batch`` (:func:`old_batch_app`)."""
    env = dict(os.environ, PYFATHOM_SERVE_TABLES=str(tables))
    if kind == "pyfathom":
        cmd = server_common.pyfathom_command(tables, port, workers)
    else:
        factory = {"python-chess": "reference_app", "old-batch": "old_batch_app"}[kind]
        cmd = server_common.uvicorn_command(f"bench_server:{factory}", ROOT / "benchmarks",
                                            port, workers)
    return server_common.start(cmd, port, env, f"{kind} server")


_free_port = server_common.free_port
_stop = server_common.stop
_load = server_common.load
_get_request = server_common.get_request
_batch_request = server_common.batch_request
_percentiles = server_common.percentiles
_spread = server_common.spread


def run_load(port: int, fens: list[str], connections: int, warm: bool = True) -> dict[str, Any]:
    requests = [_get_request(fen) for fen in fens]
    if warm:  # start-up costs out of the timing
        asyncio.run(_load(port, requests[: min(200, len(requests))], min(connections, 8)))
    elapsed, latencies, failures = asyncio.run(_load(port, requests, connections))
    return {
        "requests": len(latencies),
        "non_200": len(failures),
        "seconds": round(elapsed, 3),
        "requests_per_sec": round(len(latencies) / elapsed, 1),
        **_percentiles(latencies),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2),
    }


def check_batch_answers(port: int, fens: list[str]) -> None:
    """One batch request, its answer read in full: one document per FEN,
    in order, none an error (so the load below measures real answers)."""
    body = json.dumps(fens).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/standard/batch", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as r:
        answers = json.loads(r.read())
    if len(answers) != len(fens) or any("error" in a or "moves" not in a for a in answers):
        raise RuntimeError(f"the batch endpoint on port {port} did not answer every FEN")


def run_batch_load(port: int, fens: list[str], batch_size: int,
                   connections: int, warm: bool = True) -> dict[str, Any]:
    """``POST /standard/batch`` with bodies of ``batch_size`` FENs (all of
    ``fens``, each once) over ``connections`` connections."""
    requests = [_batch_request(fens[i:i + batch_size]) for i in range(0, len(fens), batch_size)]
    if warm:
        check_batch_answers(port, fens[:batch_size])
    elapsed, latencies, failures = asyncio.run(_load(port, requests, connections))
    return {
        "positions": len(fens),
        "requests": len(latencies),
        "non_200": len(failures),
        "seconds": round(elapsed, 3),
        "positions_per_sec": round(len(fens) / elapsed, 1),
        **_percentiles(latencies),
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


def _process_tree_cpu(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) used so far by process
    ``pid`` and its live children (uvicorn's workers): what a server spent,
    whatever else the machine runs.  Linux ``/proc``; None elsewhere."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command: state, ppid, ... utime and stime are fields 14 and 15.
        if int(entry) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def time_documents(tables: Path, fens: list[str], rounds: int) -> dict[str, list[float]]:
    """In this process, no HTTP: milliseconds per 1,000 positions to build
    the documents through the per-board path (``probe_document`` each) and
    through the batch path (``probe_documents``, its C loop on 1 thread and
    on every core), alternated; plus the C batch call alone.  Shows how much
    of a document is the probes (what the batch path changes) and how much
    python-chess's move generation and SAN (what both paths share)."""
    import pyfathom
    from pyfathom.server import lichess

    boards = [lichess.parse_fen(f) for f in fens]
    per_thousand = 1000.0 / len(boards)
    times: dict[str, list[float]] = {"per-board": [], "batch-1-thread": [], "batch-all-cores": [],
                                     "c-batch-call": []}
    class TimedBatch:
        """The tablebase as probe_documents uses it, timing its one C call."""

        def __init__(self, tb: Any) -> None:
            self.tb = tb
            self.seconds = 0.0

        def probe_dtz_bitboards_as_stored(self, *a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            out = self.tb.probe_dtz_bitboards_as_stored(*a, **k)
            self.seconds = time.perf_counter() - start
            return out

    with pyfathom.open_tablebase(str(tables)) as tb:
        timed = TimedBatch(tb)
        lichess.probe_documents(tb, boards[:50])  # maps the tables
        for _ in range(rounds):
            start = time.perf_counter()
            for board in boards:
                lichess.probe_document(tb, board)
            times["per-board"].append((time.perf_counter() - start) * 1000 * per_thousand)
            for name, threads in (("batch-1-thread", 1), ("batch-all-cores", None)):
                start = time.perf_counter()
                lichess.probe_documents(tb, boards, threads=threads)
                times[name].append((time.perf_counter() - start) * 1000 * per_thousand)
            lichess.probe_documents(timed, boards)  # type: ignore[arg-type]
            times["c-batch-call"].append(timed.seconds * 1000 * per_thousand)
    return times


def batch_main(args: argparse.Namespace, tables: Path) -> int:
    """``--batch``: the batch endpoint, GET one by one and the old batch
    endpoint, alternated for ``--rounds`` rounds, in positions per second."""
    position_file = common.make_positions(common.BIN / f"positions-{args.batch_positions}.txt",
                                          args.batch_positions)
    fens = common.read_fens(position_file)
    servers: dict[str, tuple[int, subprocess.Popen[bytes]]] = {}
    rates: dict[str, list[float]] = {"batch": [], "get": [], "old-batch": []}
    p99: dict[str, list[float]] = {"batch": [], "get": [], "old-batch": []}
    cpu: dict[str, list[float]] = {"batch": [], "get": [], "old-batch": []}
    try:
        for kind in ("pyfathom", "old-batch"):
            port = _free_port()
            servers[kind] = (port, _start(kind, tables, args.workers, port))
        new_port, old_port = servers["pyfathom"][0], servers["old-batch"][0]
        for round_number in range(args.rounds):
            order = ["batch", "get", "old-batch"]
            if round_number % 2:
                order.reverse()
            for kind in order:
                if kind == "get":
                    run_load(new_port, fens[:200], 8)  # warm-up
                    pid = servers["pyfathom"][1].pid
                    cpu_before = _process_tree_cpu(pid)
                    if args.client == "wrk":
                        r = run_wrk(new_port, fens, args.connections, args.seconds)
                    else:
                        r = run_load(new_port, fens, args.connections, warm=False)
                    rate, positions = r["requests_per_sec"], r["requests"]
                else:
                    port, proc = servers["pyfathom" if kind == "batch" else "old-batch"]
                    check_batch_answers(port, fens[:args.batch_size])  # also the warm-up
                    pid = proc.pid
                    cpu_before = _process_tree_cpu(pid)
                    r = run_batch_load(port, fens, args.batch_size, args.batch_connections,
                                       warm=False)
                    rate, positions = r["positions_per_sec"], r["positions"]
                cpu_after = _process_tree_cpu(pid)
                if r["non_200"]:
                    raise RuntimeError(f"{kind}: {r['non_200']} answers were not 200")
                rates[kind].append(rate)
                p99[kind].append(r["p99_ms"])
                if cpu_before is not None and cpu_after is not None:
                    cpu[kind].append((cpu_after - cpu_before) * 1e6 / positions)
    finally:
        for _port, proc in servers.values():
            _stop(proc)
    in_process = time_documents(tables, fens[:2000], args.rounds)
    paired = {
        "batch_over_get": [b / g for b, g in zip(rates["batch"], rates["get"])],
        "batch_over_old_batch": [b / o for b, o in zip(rates["batch"], rates["old-batch"])],
    }
    result: dict[str, Any] = {
        "mode": "batch", "client": args.client, "workers": args.workers, "cpus": os.cpu_count(),
        "positions": len(fens), "batch_size": args.batch_size,
        "batch_connections": args.batch_connections, "get_connections": args.connections,
        "rounds": args.rounds,
        "positions_per_sec": {k: _spread(v) for k, v in rates.items()},
        "p99_ms": {k: _spread(v) for k, v in p99.items()},
        "server_cpu_ms_per_1000": {k: _spread(v) for k, v in cpu.items() if v},
        "ratios": {k: _spread(v) for k, v in paired.items()},
        "runs": rates,
        "in_process_ms_per_1000": {k: _spread(v) for k, v in in_process.items()},
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{len(fens)} distinct 3-4-piece positions, {args.workers} workers, {os.cpu_count()} CPUs, "
          f"{args.rounds} alternated rounds; batch: {args.batch_size} FENs a request over "
          f"{args.batch_connections} connections; GET: {args.connections} connections "
          f"(client: {args.client})")
    print(f"{'measurement':<34}{'positions/s median':>20}{'range':>20}{'p99 ms median':>15}"
          f"{'server CPU ms/1000':>20}")
    labels = {"batch": "POST /standard/batch (C batch)", "get": "GET /standard one by one",
              "old-batch": "old batch (per-board probes)"}
    for kind, label in labels.items():
        spread = result["positions_per_sec"][kind]
        used = result["server_cpu_ms_per_1000"].get(kind)
        print(f"{label:<34}{spread['median']:>20,.0f}{spread['min']:>11,.0f}-{spread['max']:<8,.0f}"
              f"{result['p99_ms'][kind]['median']:>15.1f}"
              + (f"{used['median']:>9,.0f} ({used['min']:,.0f}-{used['max']:,.0f})" if used else ""))
    for name, spread in result["ratios"].items():
        print(f"{name.replace('_', ' ')} (paired by round): median {spread['median']:.2f}x, "
              f"range {spread['min']:.2f}x-{spread['max']:.2f}x")
    print("in this process, no HTTP, ms per 1,000 positions (median, range):")
    for name, spread in result["in_process_ms_per_1000"].items():
        print(f"  {name:<18}{spread['median']:>8.0f}   {spread['min']:.0f}-{spread['max']:.0f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args_given = sys.argv[1:] if argv is None else argv
    if "--isolation" in args_given:
        # Cheap GETs beside slow mainlines and batches (their p99 against the
        # 50 ms budget) and RSS after many requests: bench_server_isolation.py,
        # which takes the remaining options (run as a program of its own).
        script = Path(__file__).resolve().parent / "bench_server_isolation.py"
        return subprocess.call([sys.executable, str(script),
                                *[a for a in args_given if a != "--isolation"]])
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="--isolation [OPTIONS]: run bench_server_isolation.py instead (cheap-GET p99 "
               "beside slow requests, RSS after many requests); see its --help")
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
    batch = parser.add_argument_group("--batch: POST /standard/batch against GET one by one")
    batch.add_argument("--batch", action="store_true",
                       help="measure the batch endpoint (see above) instead")
    batch.add_argument("--batch-positions", type=int, default=10_000,
                       help="positions per batch measurement (default 10000)")
    batch.add_argument("--batch-size", type=int, default=1_000,
                       help="FENs per request (default 1000, the most the server takes)")
    batch.add_argument("--batch-connections", type=int, default=4,
                       help="concurrent batch requests (default 4)")
    batch.add_argument("--rounds", type=int, default=3,
                       help="alternated rounds of the three measurements (default 3)")
    args = parser.parse_args(argv)

    if args.client == "auto":
        args.client = "wrk" if shutil.which("wrk") else "python"
    tables = args.tables or common.default_tables()
    if args.batch:
        return batch_main(args, tables)
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
