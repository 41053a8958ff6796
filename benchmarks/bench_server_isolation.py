"""Do slow requests hold up cheap ones?  And does a long run grow the server?

Starts ``pyfathom serve --workers W --cache 0`` on 127.0.0.1 and measures,
with the asyncio client of ``bench_server.py``:

1. ``quiet``: the latency of cheap ``GET /standard`` requests (distinct
   3-4-piece positions, ``--connections`` connections) with nothing else
   running;
2. ``loaded``: the same requests while, beside them, one connection after
   another asks for slow mainlines (the longest win of a KBNvK sample, or
   ``--mainline-fen``) and others post large batches (1,000 distinct FENs)
   without pause;
3. the resident memory (RSS) of the server's processes after
   ``--rss-requests`` more cheap requests (default 100,000).

The two latency runs alternate ``--rounds`` times; medians and ranges of
their p50 / p99 are reported, with the machine's load average before and
after, and a last line that says whether the loaded p99 (median) stays
under the 50 ms budget (``PASS`` / ``FAIL``).  Every answer must be a 200
(counted otherwise).  ``--compare-threads`` also runs, round by round on
the same requests, the same app with batches and mainlines on the
worker's own threads instead of child processes (``create_app``'s
``heavy_processes=False``, as before they moved), for the ratio.  Kept
out of ``bench_server.py``, which is long already.

Run from the repository root after ``pip install -e '.[test,server]'``::

    python benchmarks/bench_server_isolation.py            # 2 workers, 3 rounds, 100,000 for RSS
    python benchmarks/bench_server_isolation.py --requests 500 --rss-requests 2000 --json
    python benchmarks/bench_server_isolation.py --compare-threads --rss-requests 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
import server_common as sc  # noqa: E402


BUDGET_MS = 50.0
"""The loaded cheap-GET p99 the server must stay under (issue 27)."""


def threads_app() -> Any:
    """uvicorn factory for ``--compare-threads``: the app as ``pyfathom
    serve`` builds it, but batches and mainlines on the worker's threads."""
    from pyfathom.server import app

    sys.setswitchinterval(app.SWITCH_INTERVAL)
    return app.create_app([os.environ["PYFATHOM_SERVE_TABLES"]], cache_size=0,
                          heavy_processes=False)


def _start_threads(tables: Path, workers: int, port: int) -> Any:
    env = dict(os.environ, PYFATHOM_SERVE_TABLES=str(tables))
    cmd = sc.uvicorn_command("bench_server_isolation:threads_app", Path(__file__).resolve().parent,
                             port, workers)
    return sc.start(cmd, port, env, "the threads server", timeout=120)


def _mainline_request(fen: str) -> bytes:
    return (f"GET /standard/mainline?fen={fen.replace(' ', '_')} HTTP/1.1\r\n"
            "Host: 127.0.0.1\r\n\r\n").encode()


def _longest_win(tables: Path) -> str:
    """The KBNvK position with the largest DTZ in a sample: its mainline is
    the longest these tables give."""
    from support import positions

    import pyfathom

    with pyfathom.open_tablebase(tables) as tb:
        boards = positions.table_sample("KBNvK", 400, seed=27)
        return max(boards, key=lambda b: abs(tb.probe(b).dtz)).fen()


async def _forever(port: int, request: bytes, stop: asyncio.Event, counts: dict[str, int],
                   name: str) -> None:
    """Send ``request`` again and again on one connection until ``stop``."""
    while not stop.is_set():
        _elapsed, latencies, failures = await sc.load(port, [request], 1)
        counts[name] = counts.get(name, 0) + len(latencies)
        counts["non_200"] = counts.get("non_200", 0) + len(failures)


async def _loaded(port: int, cheap: list[bytes], connections: int, slow: bytes, big: bytes,
                  beside: int) -> tuple[list[float], list[str], dict[str, int]]:
    stop = asyncio.Event()
    counts: dict[str, int] = {}
    background = [asyncio.create_task(_forever(port, slow, stop, counts, "mainlines"))
                  for _ in range(beside)]
    background += [asyncio.create_task(_forever(port, big, stop, counts, "batches"))
                   for _ in range(beside)]
    await asyncio.sleep(0.5)  # the slow requests are under way
    _elapsed, latencies, failures = await sc.load(port, cheap, connections)
    stop.set()
    await asyncio.gather(*background)
    return latencies, failures, counts


def _rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and its descendants (uvicorn's workers
    and their batch processes), in kB."""
    total = 0
    pids = [pid]
    while pids:
        p = pids.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):  # each thread's children
            try:
                pids += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=Path, help="table directory (default: the tests' tables)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--requests", type=int, default=3000,
                        help="cheap GETs per latency run (default 3000)")
    parser.add_argument("--connections", type=int, default=4,
                        help="connections of the cheap GETs (default 4)")
    parser.add_argument("--beside", type=int, default=2,
                        help="connections of slow mainlines, and as many of batches (default 2)")
    parser.add_argument("--mainline-fen", help="the slow mainline (default: a long KBNvK win)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    parser.add_argument("--rss-requests", type=int, default=100_000,
                        help="cheap GETs before RSS is read (default 100000)")
    parser.add_argument("--compare-threads", action="store_true",
                        help="also measure batches and mainlines on the worker's threads")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    tables = args.tables or common.default_tables()
    fens = common.read_fens(common.make_positions(common.BIN / "positions-20000.txt", 20_000))
    cheap = [sc.get_request(fen) for fen in fens[:args.requests]]
    slow = _mainline_request(args.mainline_fen or _longest_win(tables))
    big = sc.batch_request(fens[-1000:])
    servers = {"processes": sc.free_port()}
    if args.compare_threads:
        servers["threads"] = sc.free_port()
    result: dict[str, Any] = {"workers": args.workers, "connections": args.connections,
                              "beside": args.beside, "cpus": os.cpu_count(),
                              "load_average_before": [round(v, 2) for v in os.getloadavg()]}
    procs: dict[str, Any] = {}
    try:
        procs["processes"] = sc.start(sc.pyfathom_command(tables, servers["processes"], args.workers),
                                      servers["processes"], name="pyfathom serve")
        if args.compare_threads:
            procs["threads"] = _start_threads(tables, args.workers, servers["threads"])
        for port in servers.values():
            asyncio.run(sc.load(port, cheap[:200], 4))  # warm-up
            # Every batch process started (each on its first job) and its tables mapped.
            asyncio.run(sc.load(port, [big, slow] * 2, 2))
        runs: dict[str, list[dict[str, float]]] = {}
        non_200 = 0
        counts: dict[str, int] = {}
        for _ in range(args.rounds):
            for kind, port in servers.items():
                _e, latencies, failures = asyncio.run(sc.load(port, cheap, args.connections))
                runs.setdefault(f"{kind} quiet", []).append(sc.percentiles(latencies))
                non_200 += len(failures)
                latencies, failures, counts = asyncio.run(
                    _loaded(port, cheap, args.connections, slow, big, args.beside))
                runs.setdefault(f"{kind} loaded", []).append(sc.percentiles(latencies))
                non_200 += len(failures) + counts.get("non_200", 0)
        for name, got in runs.items():
            result[name] = {key: sc.spread([r[key] for r in got]) for key in ("p50_ms", "p99_ms")}
        if args.compare_threads:
            ratios = [t["p99_ms"] / p["p99_ms"] for t, p in
                      zip(runs["threads loaded"], runs["processes loaded"])]
            result["loaded_p99_threads_over_processes"] = sc.spread(ratios)
        result["quiet"], result["loaded"] = result["processes quiet"], result["processes loaded"]
        result["beside_last_round"] = counts
        result["non_200"] = non_200
        port, proc = servers["processes"], procs["processes"]
        result["rss_kb_before"] = _rss_kb(proc.pid)
        requests = [sc.get_request(fens[i % len(fens)]) for i in range(args.rss_requests)]
        start = time.perf_counter()
        _e, latencies, failures = asyncio.run(sc.load(port, requests, 16))
        result["rss_requests"] = len(latencies)
        result["rss_requests_seconds"] = round(time.perf_counter() - start, 1)
        result["rss_kb_after"] = _rss_kb(proc.pid)
        result["non_200"] += len(failures)
    finally:
        for proc in procs.values():
            sc.stop(proc)
    result["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    p99 = result["loaded"]["p99_ms"]["median"]
    result["budget_ms"] = BUDGET_MS
    result["pass"] = p99 < BUDGET_MS and result["non_200"] == 0
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"cheap GET /standard latency, {args.connections} connections, {args.workers} workers, "
          f"{os.cpu_count()} CPUs, {args.rounds} rounds (median [min-max]); load average "
          f"{result['load_average_before']} before, {result['load_average_after']} after")
    for name in runs:
        r = result[name]
        print(f"  {name:<16} p50 {r['p50_ms']['median']} ms [{r['p50_ms']['min']}-"
              f"{r['p50_ms']['max']}]  p99 {r['p99_ms']['median']} ms [{r['p99_ms']['min']}-"
              f"{r['p99_ms']['max']}]")
    if args.compare_threads:
        r = result["loaded_p99_threads_over_processes"]
        print(f"  loaded p99, threads / processes: {r['median']}x [{r['min']}-{r['max']}]")
    print(f"  beside the loaded run (last round): {counts}")
    print(f"RSS of the server's processes: {result['rss_kb_before'] / 1024:.0f} MB before, "
          f"{result['rss_kb_after'] / 1024:.0f} MB after {result['rss_requests']} more requests")
    print(f"non-200 answers: {result['non_200']}")
    print(f"{'PASS' if result['pass'] else 'FAIL'}: loaded cheap-GET p99 {p99} ms (median of "
          f"{args.rounds} rounds) against the {BUDGET_MS:.0f} ms budget, {args.workers} workers"
          f"{'' if result['non_200'] == 0 else ', with non-200 answers'}; the machine's load "
          f"average was {result['load_average_before'][0]} (a shared machine inflates it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
