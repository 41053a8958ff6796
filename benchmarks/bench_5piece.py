"""The tables engines probe most: 5-piece probes, from C and per board from
Python, against python-chess, beside the same figures on 3-4 pieces.

    python benchmarks/bench_5piece.py [--tables DIR] [--tables5 DIR]
        [--positions N] [--oracle-positions M] [--runs R] [--json]

For each set (3-4 pieces: the 35 test tables; 5 pieces: the tables of
``../shared/syzygy5`` that have DTZ files, with the 3-4-piece tables beside
them for the captures), on the same positions:

* the C core's WDL and DTZ probes per second (bench_core.c, one thread,
  median of R runs);
* per-board ``probe_wdl`` / ``probe_dtz``: pyfathom and python-chess in 3R
  paired rounds (both timed back to back, order alternating), the median
  ratio and its range (target: >= 100x on 5 pieces, quiet machine), on two
  clocks: wall time, and this process's CPU time (``time.process_time``),
  which leaves out the time the process waited for a core while other
  tenants ran: on a shared machine the CPU-time ratio is the closer
  estimate of a quiet machine's (cache contention still counts in both).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

import chess  # noqa: E402
import chess.syzygy  # noqa: E402

import pyfathom  # noqa: E402

TABLES_5 = common.MATERIALS_5_WITH_DTZ

DEFAULT_TABLES_5 = common.SYZYGY5


def _paired_rounds(fns: list[Callable[[], object]], rounds: int,
                   min_seconds: float) -> dict[str, list[list[float]]]:
    """Seconds per call of each function on both clocks ("wall", "cpu"),
    one sample of each per round, back to back, the order reversed every
    other round; each sample repeats its function for min_seconds of wall
    time."""
    samples: dict[str, list[list[float]]] = {"wall": [[] for _ in fns], "cpu": [[] for _ in fns]}
    for r in range(rounds):
        for i in (range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))):
            reps = 0
            wall0, cpu0 = time.perf_counter(), time.process_time()
            while True:
                fns[i]()
                reps += 1
                if time.perf_counter() - wall0 >= min_seconds:
                    break
            samples["wall"][i].append((time.perf_counter() - wall0) / reps)
            samples["cpu"][i].append((time.process_time() - cpu0) / reps)
    return samples


def bench_set(name: str, dirs: list[Path], keys: list[str] | None, n: int, n_oracle: int,
              runs: int, min_seconds: float) -> dict[str, Any]:
    pos_file = common.make_positions(common.BIN / f"positions-{name}-{n}.txt", n, keys=keys)
    boards = [chess.Board(f) for f in common.read_fens(pos_file)]
    small = boards[:n_oracle]
    res: dict[str, Any] = {"positions": len(boards), "oracle_positions": len(small)}

    core = common.run_bench_core(Path(":".join(map(str, dirs))), pos_file, runs, min_seconds)
    res["c_wdl_per_sec"] = core["wdl_median_probes_per_sec"]
    res["c_dtz_per_sec"] = core["dtz_median_probes_per_sec"]
    res["c_root_per_sec"] = core["root_median_probes_per_sec"]
    res["c_failed"] = sum(core.get(f"{k}_failed", 0) for k in ("wdl", "dtz", "root"))

    tb = pyfathom.open_tablebase([str(d) for d in dirs])
    pc = chess.syzygy.open_tablebase(str(dirs[0]))
    for d in dirs[1:]:
        pc.add_directory(str(d))
    try:
        for b in small:  # warm both: tables mapped / opened
            tb.probe_dtz(b)
            pc.probe_dtz(b)

        def per_board(probe: Callable[[chess.Board], object]) -> Callable[[], None]:
            def run() -> None:
                for b in small:
                    probe(b)
            return run

        for kind in ("wdl", "dtz"):
            samples = _paired_rounds(
                [per_board(getattr(tb, f"probe_{kind}")), per_board(getattr(pc, f"probe_{kind}"))],
                3 * runs, min_seconds / 3)
            for clock, (ours, theirs) in samples.items():
                ratios = [t / o for o, t in zip(ours, theirs)]
                suffix = "" if clock == "wall" else "_cpu"
                res[f"pyfathom_{kind}_us{suffix}"] = statistics.median(ours) / len(small) * 1e6
                res[f"python_chess_{kind}_us{suffix}"] = statistics.median(theirs) / len(small) * 1e6
                res[f"{kind}_ratio{suffix}"] = statistics.median(ratios)
                res[f"{kind}_ratio{suffix}_min"] = min(ratios)
                res[f"{kind}_ratio{suffix}_max"] = max(ratios)
            res[f"{kind}_rounds"] = 3 * runs
    finally:
        tb.close()
        pc.close()
    return res


def report(res: dict[str, Any]) -> str:
    lines = []
    for name in ("3-4", "5"):
        r = res.get(name)
        if r is None:
            continue
        lines.append(f"{name} pieces ({r['positions']} positions, python-chess on "
                     f"{r['oracle_positions']}):")
        lines.append(f"  C core: WDL {r['c_wdl_per_sec']:,.0f}/s, DTZ {r['c_dtz_per_sec']:,.0f}/s, "
                     f"root {r['c_root_per_sec']:,.0f} positions/s")
        for kind in ("wdl", "dtz"):
            for suffix, clock in (("", "wall"), ("_cpu", "cpu")):
                lines.append(
                    f"  probe_{kind} per board ({clock}): pyfathom "
                    f"{r[f'pyfathom_{kind}_us{suffix}']:.2f} us, python-chess "
                    f"{r[f'python_chess_{kind}_us{suffix}']:.1f} us: "
                    f"{r[f'{kind}_ratio{suffix}']:.0f}x (rounds "
                    f"{r[f'{kind}_ratio{suffix}_min']:.0f}x-{r[f'{kind}_ratio{suffix}_max']:.0f}x, "
                    f"{r[f'{kind}_rounds']} rounds)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, help="3-4-piece tables (default: the test tables)")
    parser.add_argument("--tables5", type=Path, default=DEFAULT_TABLES_5,
                        help=f"5-piece tables (default: {DEFAULT_TABLES_5})")
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--oracle-positions", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=0.3)
    parser.add_argument("--only", choices=["3-4", "5"], help="one set only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (args.tables5 / "KBBvKN.rtbz").exists():
        print(f"bench_5piece: no 5-piece tables in {args.tables5} (--tables5)", file=sys.stderr)
        return 2
    tables = args.tables or common.default_tables()
    res: dict[str, Any] = {}
    if args.only in (None, "3-4"):
        res["3-4"] = bench_set("34", [tables], None, args.positions, args.oracle_positions,
                               args.runs, args.min_seconds)
    if args.only in (None, "5"):
        res["5"] = bench_set("5", [tables, args.tables5], TABLES_5, args.positions,
                             args.oracle_positions, args.runs, args.min_seconds)
    print(json.dumps(res, indent=1) if args.json else report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
