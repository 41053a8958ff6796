"""Run the C core benchmark (benchmarks/bench_core.c): WDL and DTZ probes per
second, median of RUNS runs, over a deterministic position file.

    python benchmarks/run_core.py [--tables DIR] [--positions N] [--runs R]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, help="table directory (default: the test tables)")
    parser.add_argument("--positions", type=int, default=10_000, help="number of positions")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=0.3, help="length of one run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    tables = args.tables or common.default_tables()
    pos = common.make_positions(common.BIN / f"positions-{args.positions}.txt", args.positions)
    res = common.run_bench_core(tables, pos, args.runs, args.min_seconds)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"positions: {args.positions} (3-4 pieces, {pos})")
    print(f"WDL: {res['wdl_median_probes_per_sec']:,.0f} probes/s "
          f"({res['wdl_median_us_per_probe']:.3f} us/probe), median of {args.runs}")
    print(f"DTZ: {res['dtz_median_probes_per_sec']:,.0f} probes/s "
          f"({res['dtz_median_us_per_probe']:.3f} us/probe), median of {args.runs}")
    print(f"root (fathom_probe_root, every legal move): "
          f"{res['root_median_probes_per_sec']:,.0f} positions/s, median of {args.runs}")
    for kind in ("wdl", "dtz"):
        t1 = res[f"c_batch_{kind}_t1_median_probes_per_sec"]
        t2 = res[f"c_batch_{kind}_t2_median_probes_per_sec"]
        print(f"{kind.upper()} batch call (fathom_probe_{kind}_batch): 1 thread {t1:,.0f}/s, "
              f"2 threads {t2:,.0f}/s ({t2 / t1:.2f}x)")
    if res.get("wdl_failed") or res.get("dtz_failed") or res.get("root_failed"):
        print(f"failed probes: wdl {res['wdl_failed']:.0f} dtz {res['dtz_failed']:.0f} "
              f"root {res.get('root_failed', 0):.0f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
