"""Batch probes on tables that are not in memory: read-ahead on and off,
against the per-position loop and the device's own rate.

    python benchmarks/bench_cold.py [--material KQRBvKQR] [--tables DIR]
        [--positions N] [--rounds R] [--kinds wdl,dtz] [--no-fio]
        [--min-mb MB] [--json]

What it does:

* writes synthetic tables (tests/support/syzygy_writer.py) for MATERIAL
  and every table its probes reach, in a temporary folder (default
  KQRBvKQR: 25 files, 663 MB, a 425 MB WDL file; at least ``--min-mb``
  megabytes, 600 by default, or it refuses), or uses ``--tables``;
* N random positions of MATERIAL (default 100,000);
* the device bound: 4 KiB random reads per second of the largest file
  past the page cache (O_DIRECT) at queue depth 1 and 32, by fio where it
  is installed, else by bench_cold.c's reader (DEPTH threads, one read at
  a time each), measured at the start of every round (the median and the
  range are printed; the bound uses the median);
* each way in a fresh process (bench_cold.c): ``loop`` (fathom_probe_wdl /
  _dtz per row, one thread), ``t1`` (fathom_probe_batch, one thread) and
  ``default`` (one thread per core), the batches with read-ahead ``off``
  and ``auto`` (the default); each cold (every table file's pages dropped
  with POSIX_FADV_DONTNEED just before, from this process, which maps
  none) and then warm (the page cache as the cold run left it); the ways'
  order rotated from round to round;
* prints, per kind, way, cold or warm: positions/s (median and range over
  the rounds), major faults, bytes read (/proc/self/io) and reads per
  position, and the cold runs' share of the device bound: the reads the
  ``default`` batch needs, at fio's depth-32 rate, as positions/s.

Every run's answers (value and status per row) are compared row by row
with the first run's of the same kind and call (the batch ways with each
other, read-ahead on or off, cold or warm; the loop with itself): a
difference fails the benchmark (exit 1).  (The loop's and the batch's
DTZ answers are not compared: on synthetic tables, whose DTZ values are
no real tablebase's, fathom_probe_dtz and the batch rows can disagree.)
Linux (page-cache control, /proc/self/io); the figures on this machine are
in docs/tables-on-disk.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

WAYS = [  # name, bench_cold.c's way, threads, read-ahead
    ("loop", "loop", 1, "off"),
    ("t1_off", "batch", 1, "off"),
    ("t1_auto", "batch", 1, "auto"),
    ("default_off", "batch", 0, "off"),
    ("default_auto", "batch", 0, "auto"),
]
PAGE = 4096


def write_tables(material: str, into: Path) -> Path:
    writer = common.ROOT / "tests" / "support" / "syzygy_writer.py"
    subprocess.run([sys.executable, str(writer), str(into), material], check=True,
                   capture_output=True)
    return into


def table_files(tables: Path) -> list[Path]:
    return sorted(p for p in tables.iterdir() if p.suffix in (".rtbw", ".rtbz"))


def drop_pages(tables: Path) -> None:
    """Every table file's pages out of the page cache (nothing here maps them)."""
    for path in table_files(tables):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def device_rate(exe: Path, path: Path, depth: int, use_fio: bool) -> tuple[float, str]:
    """4 KiB random O_DIRECT reads per second of *path* at queue *depth*."""
    if use_fio and shutil.which("fio"):
        out = subprocess.run(
            ["fio", "--name=cold", f"--filename={path}", "--readonly", "--rw=randread",
             "--bs=4k", "--direct=1", "--ioengine=libaio", f"--iodepth={depth}",
             "--runtime=3", "--time_based", "--output-format=json"],
            check=True, capture_output=True, text=True).stdout
        return float(json.loads(out)["jobs"][0]["read"]["iops"]), "fio"
    reads = 4000 if depth == 1 else 40000
    out = subprocess.run([str(exe), "--device", str(path), str(depth), str(reads)],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[1]), "O_DIRECT reader"


def run_way(exe: Path, tables: Path, positions: Path, kind: str, way: tuple[str, str, int, str],
            answers: Path) -> dict[str, float]:
    _, how, threads, read_ahead = way
    out = subprocess.run([str(exe), str(tables), str(positions), how, kind, str(threads),
                          read_ahead, str(answers)],
                         check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(exe: Path, tables: Path, positions: Path, kinds: list[str], rounds: int,
            work: Path, device: Optional[Callable[[], None]] = None
            ) -> tuple[dict[str, Any], list[str]]:
    """Every way cold and warm, *rounds* times; *device*, when given, is
    called at the start of each round (the device's rate, measured next to
    the ways it bounds)."""
    runs: dict[str, dict[str, list[dict[str, float]]]] = {}
    mismatches: list[str] = []
    reference: dict[tuple[str, bool], bytes] = {}
    for r in range(rounds):
        if device:
            device()
        order = WAYS[r % len(WAYS):] + WAYS[:r % len(WAYS)]
        for kind in kinds:
            for way in order:
                for state in ("cold", "warm"):
                    if state == "cold":
                        drop_pages(tables)
                    answers = work / f"answers-{kind}-{way[0]}-{state}"
                    res = run_way(exe, tables, positions, kind, way, answers)
                    runs.setdefault(f"{kind}/{way[0]}", {}).setdefault(state, []).append(res)
                    data = answers.read_bytes()
                    key = (kind, way[1] == "loop")
                    if key not in reference:
                        reference[key] = data
                    elif data != reference[key]:
                        mismatches.append(f"{kind} {way[0]} {state} round {r}")
    figures: dict[str, Any] = {}
    for name, states in runs.items():
        figures[name] = {}
        for state, results in states.items():
            n = results[0]["positions"]
            figures[name][state] = {
                "positions_per_s": summary([x["positions_per_s"] for x in results]),
                "major_faults": statistics.median(x["major_faults"] for x in results),
                "minor_faults": statistics.median(x["minor_faults"] for x in results),
                "read_bytes": statistics.median(x["read_bytes"] for x in results),
                "reads_per_position": statistics.median(x["read_bytes"] for x in results)
                / PAGE / n,
            }
    return figures, mismatches


def device_bound(figures: dict[str, Any], kind: str, n: int, rate32: float) -> float:
    """Positions/s if the reads the default batch needs went at the depth-32 rate."""
    reads = figures[f"{kind}/default_auto"]["cold"]["read_bytes"] / PAGE
    return n / (reads / rate32) if reads else float("inf")


def report(res: dict[str, Any]) -> None:
    print(f"tables: {res['tables_mb']:.0f} MB in {res['files']} files; "
          f"{res['positions']} positions; {res['rounds']} rounds")
    d1, d32 = res["device_depth1_range"], res["device_depth32_range"]
    print(f"device ({res['device_tool']}, {res['device_file']}, median of the rounds): "
          f"{res['device_depth1']:.0f} reads/s at depth 1 ({d1[0]:.0f}-{d1[1]:.0f}), "
          f"{res['device_depth32']:.0f} at depth 32 ({d32[0]:.0f}-{d32[1]:.0f})")
    for kind in res["kinds"]:
        bound = res["device_bound"][kind]
        print(f"{kind}: device bound {bound:.0f} positions/s")
        for name, *_ in WAYS:
            for state in ("cold", "warm"):
                f = res["figures"][f"{kind}/{name}"][state]
                p = f["positions_per_s"]
                share = f"  {p['median'] / bound:5.0%} of bound" if state == "cold" else ""
                print(f"  {name:13s} {state}: {p['median']:9.0f}/s ({p['min']:.0f}-{p['max']:.0f})"
                      f"  major {f['major_faults']:7.0f}  read {f['read_bytes'] / 1e6:6.1f} MB"
                      f"  reads/pos {f['reads_per_position']:.3f}{share}")
        fig = res["figures"]
        loop = fig[f"{kind}/loop"]["cold"]["positions_per_s"]["median"]
        print(f"  t1_auto / loop (cold): "
              f"{fig[f'{kind}/t1_auto']['cold']['positions_per_s']['median'] / loop:.2f}x")
    print("answers identical row by row:", res["answers_identical"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--material", default="KQRBvKQR")
    parser.add_argument("--tables", type=Path, help="use these tables instead of writing them")
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", default="wdl,dtz")
    parser.add_argument("--min-mb", type=float, default=600.0,
                        help="refuse tables smaller than this (0: any)")
    parser.add_argument("--no-fio", action="store_true", help="the O_DIRECT reader even with fio")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",")
    if any(k not in ("wdl", "dtz") for k in kinds):
        parser.error("--kinds takes wdl, dtz")
    if not sys.platform.startswith("linux"):
        print("bench_cold: Linux only (page-cache control, /proc/self/io)", file=sys.stderr)
        return 2
    exe = common.build_bench_core("bench_cold")
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        work = Path(tmp)
        tables = args.tables or write_tables(args.material, work / "tables")
        files = table_files(tables)
        size = sum(p.stat().st_size for p in files)
        if size < args.min_mb * 1e6:
            print(f"bench_cold: {size / 1e6:.0f} MB of tables, under --min-mb {args.min_mb:.0f}",
                  file=sys.stderr)
            return 2
        positions = common.make_positions(work / "positions.txt", args.positions,
                                          keys=[args.material])
        largest = max(files, key=lambda p: p.stat().st_size)
        # The rate is measured in every round, not once: on a shared disk
        # one slow moment would set the bound of the whole run (once, here:
        # 6,534 reads/s at depth 32 at the start, 69,000-76,000 minutes
        # later).
        rates: dict[int, list[float]] = {1: [], 32: []}
        tools: list[str] = []

        def device() -> None:
            for depth, got in rates.items():
                rate, tool = device_rate(exe, largest, depth, not args.no_fio)
                got.append(rate)
                tools.append(tool)

        figures, mismatches = measure(exe, tables, positions, kinds, args.rounds, work, device)
    rate1, rate32 = statistics.median(rates[1]), statistics.median(rates[32])
    res = {
        "tables_mb": size / 1e6, "files": len(files), "positions": args.positions,
        "rounds": args.rounds, "kinds": kinds, "device_tool": tools[0], "device_file": largest.name,
        "device_depth1": rate1, "device_depth32": rate32,
        "device_depth1_range": [min(rates[1]), max(rates[1])],
        "device_depth32_range": [min(rates[32]), max(rates[32])], "figures": figures,
        "device_bound": {k: device_bound(figures, k, args.positions, rate32) for k in kinds},
        "answers_identical": not mismatches, "mismatches": mismatches,
    }
    if args.json:
        print(json.dumps(res, indent=1))
    else:
        report(res)
    if mismatches:
        print("bench_cold: answers differ: " + "; ".join(mismatches), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
