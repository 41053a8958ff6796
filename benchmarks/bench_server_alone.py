"""``pyfathom serve`` on cold tables, one client: each recorded
``GET /standard`` request alone, its cold time against its own reads.

bench_server_cold.py measures the server under parallel clients, where on
this machine's 2 cores the CPU hides what a request waits for.  Here one
client sends the log's ``GET /standard`` requests one at a time, so that
a request's cold time can be set against the reads it needed:

- tables and log: bench_server_cold.py's (``--tables``, ``--materials``,
  ``--requests``, ``--log``; its batches are left out here);
- per round and per mode (bench_server_cold.py's modes, alternated): the
  tables' pages dropped with no server running (``+index``: their index
  parts read back), ``pyfathom serve --workers 1 --cache 0`` started and its start-up requests sent, then the
  requests one after another on one keep-alive connection, three times:
  cold, warm, and warm again;
- for each request: the bytes the server read from disk while answering
  it cold (``/proc/PID/io``), its **cold extra** (cold time minus warm
  time) and the **control** (the second warm time minus the first: what
  the machine's noise alone gives one request's difference);
- its **reads at once**: its bytes as 4 KiB reads at the device's
  depth-32 rate, and at least one read at the depth-1 rate: what the
  request would wait for with all its reads in flight together.  The
  rates: ``--rates D1,D32``, or measured on the largest table file (fio
  where installed, else bench_cold.c's O_DIRECT reader).

Printed per mode (median [range] over the rounds): the cold extra over
its reads at once at p50 and p90 of the requests, the control's p50 and
p90 over the same reads (the spread the ratio has with no cold read at
all: one read is 50-60 us, a warm request 1-4 ms), cold p50 and p99 in
ms, the sum of the cold extras, and the MB read.  A ratio near 1 means
the request waited about as long as its reads take all at once; near
the count of reads, that it waited for them one after another.

Every answer must be a 200 and byte-identical in the three passes and in
every mode (the benchmark fails otherwise).  Linux only.  Run from the
repository root after ``pip install -e '.[test,server]'``::

    python benchmarks/bench_server_alone.py --tables DIR --materials KQRBvKQR
    python benchmarks/bench_server_alone.py --modes threads,threads+prefix --rounds 4
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_cold  # noqa: E402
import bench_server_cold as cold  # noqa: E402
import common  # noqa: E402
import server_common as sc  # noqa: E402

PAGE = 4096
PASSES = ("cold", "warm", "warm_again")


def ask(conn: socket.socket, raw: bytes) -> tuple[float, bytes]:
    """Send one request, read its whole answer: (seconds, body)."""
    start = time.perf_counter()
    conn.sendall(raw)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        body += chunk
    seconds = time.perf_counter() - start
    status = head.split(b" ", 2)[1]
    if status != b"200":
        raise RuntimeError(f"answer {status.decode()}: {body[:200]!r}")
    return seconds, body


def measure(mode: str, tables: Path, fens: Sequence[str]) -> dict[str, Any]:
    """One round of ``mode``: per request its three times, its cold bytes
    read and its answers."""
    proc, port = cold.start_cold(mode, tables, 1)
    out: dict[str, Any] = {name: [] for name in PASSES}
    out["bytes"], out["bodies"] = [], []
    requests = [sc.get_request(fen) for fen in fens]
    try:
        cold.start_up(port, 1)
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for name in PASSES:
                for i, raw in enumerate(requests):
                    before = cold.read_bytes(proc.pid) if name == "cold" else None
                    seconds, body = ask(conn, raw)
                    out[name].append(seconds)
                    if name == "cold":
                        after = cold.read_bytes(proc.pid)
                        out["bytes"].append(after - before if before is not None
                                            and after is not None else 0)
                        out["bodies"].append(body)
                    elif body != out["bodies"][i]:
                        raise RuntimeError(f"{mode}: request {i} ({fens[i]}) answered "
                                           f"differently {name} and cold")
    finally:
        sc.stop(proc)
    return out


def quantile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def figures(run: dict[str, Any], rate1: float, rate32: float) -> dict[str, float]:
    """One round's figures (see the module's docstring)."""
    at_once = [max(1 / rate1, b / PAGE / rate32) for b in run["bytes"]]
    ratio = [(c - w) / a for c, w, a in zip(run["cold"], run["warm"], at_once)]
    control = [(w2 - w) / a for w, w2, a in zip(run["warm"], run["warm_again"], at_once)]
    return {
        "ratio_p50": quantile(ratio, 0.5), "ratio_p90": quantile(ratio, 0.9),
        "control_p50": quantile(control, 0.5), "control_p90": quantile(control, 0.9),
        "cold_p50_ms": quantile(run["cold"], 0.5) * 1e3,
        "cold_p99_ms": quantile(run["cold"], 0.99) * 1e3,
        "warm_p50_ms": quantile(run["warm"], 0.5) * 1e3,
        "extra_sum_ms": (sum(run["cold"]) - sum(run["warm"])) * 1e3,
        "read_mb": sum(run["bytes"]) / 1e6,
    }


def device_rates(tables: Path) -> tuple[float, float, str]:
    """The depth-1 and depth-32 rates of 4 KiB random reads of the largest
    table file, as bench_cold.py measures them."""
    largest = max(cold.table_files(tables), key=lambda p: p.stat().st_size)
    exe = common.build_bench_core("bench_cold")
    rate1, tool = bench_cold.device_rate(exe, largest, 1, True)
    rate32, _ = bench_cold.device_rate(exe, largest, 32, True)
    return rate1, rate32, f"{tool} on {largest.name}"


def report(result: dict[str, Any]) -> None:
    print(f"pyfathom serve, one client, each GET /standard alone: {result['requests']} "
          f"requests, {result['rounds']} rounds; tables {result['materials']}; device "
          f"{result['rate1']:.0f} reads/s at depth 1, {result['rate32']:.0f} at depth 32 "
          f"({result['rates_from']})")
    print("median [min-max] over the rounds; ratios: cold extra (or control) over the "
          "request's reads at once")
    keys = ("ratio_p50", "ratio_p90", "control_p50", "control_p90", "cold_p50_ms",
            "cold_p99_ms", "extra_sum_ms", "read_mb")
    print(f"{'mode':<16}" + "".join(f"{k:>20}" for k in keys))
    for mode, row in result["summary"].items():
        print(f"{mode:<16}" + "".join(
            f"{row[k]['median']:.2f} [{row[k]['min']:.2f}-{row[k]['max']:.2f}]".rjust(20)
            for k in keys))
    print(f"answers identical in every pass and mode: {result['answers_identical']}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=Path,
                        help="table directory holding --materials (default: "
                             "bench_server_cold.py's synthetic tables)")
    parser.add_argument("--materials", default=",".join(cold.DEFAULT_MATERIALS))
    parser.add_argument("--requests", type=int, default=300,
                        help="requests in bench_server_cold.py's log (default 300)")
    parser.add_argument("--log", type=Path, help="the request log (default: in benchmarks/bin/)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--modes", default="threads,off",
                        help=f"from {', '.join(cold.MODES)} (default threads,off)")
    parser.add_argument("--rates", help="D1,D32: the device's 4 KiB random reads per second "
                                        "at depth 1 and 32 (default: measured)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    materials = [m for m in args.materials.split(",") if m]
    modes = [m for m in args.modes.split(",") if m]
    if not materials or not modes or any(m not in cold.MODES for m in modes):
        parser.error(f"--modes: a comma-separated list of {', '.join(cold.MODES)}; "
                     "--materials: at least one")
    if not sys.platform.startswith("linux"):
        print("bench_server_alone: Linux only (page-cache control, /proc/PID/io)",
              file=sys.stderr)
        return 2
    tables = args.tables or cold.make_tables(materials)
    if args.rates:
        try:
            rate1, rate32 = (float(x) for x in args.rates.split(","))
        except ValueError:
            parser.error("--rates: two numbers, D1,D32")
        rates_from = "--rates"
    else:
        rate1, rate32, rates_from = device_rates(tables)
    log_path = args.log or common.BIN / (f"cold-log-{'-'.join(materials)}-{args.requests}-"
                                         "10x20.jsonl")
    try:
        log = cold.make_log(log_path, materials, args.requests, 10, 20)
    except cold.LogMismatch as exc:
        parser.error(str(exc))
    fens = [item["fen"] for item in log if item["kind"] == "standard"]
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    reference: Optional[list[bytes]] = None
    for round_number in range(args.rounds):
        for mode in modes if round_number % 2 == 0 else modes[::-1]:
            run = measure(mode, tables, fens)
            if reference is None:
                reference = run["bodies"]
            elif run["bodies"] != reference:
                bad = next(i for i, (a, b) in enumerate(zip(run["bodies"], reference)) if a != b)
                raise RuntimeError(f"{mode}: request {bad} ({fens[bad]}) answered differently "
                                   "from the first mode's")
            runs[mode].append(figures(run, rate1, rate32))
    result = {
        "materials": materials, "tables": str(tables), "log": str(log_path),
        "requests": len(fens), "rounds": args.rounds, "modes": modes, "rate1": rate1,
        "rate32": rate32, "rates_from": rates_from, "runs": runs,
        "summary": {mode: {k: sc.spread([r[k] for r in got]) for k in got[0]}
                    for mode, got in runs.items()},
        "answers_identical": True,
    }
    if args.json:
        print(json.dumps(result))
    else:
        report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
