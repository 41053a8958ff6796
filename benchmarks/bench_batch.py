"""Batch probes in table order against row order and a per-position C loop.

    python benchmarks/bench_batch.py [--positions N] [--rounds R] [--kinds wdl|dtz|both]
                                     [--sets random,random_10k,games] [--json]

Three sets of rows, each timed by bench_batch.c (C only, no Python): rows
per second of ``fathom_probe_batch`` in table order (the default), in row
order (``FATHOM_BATCH_ROW_ORDER``, one per-position probe per row, what
batches did before) and of a plain C loop of ``fathom_probe_wdl`` /
``fathom_probe_dtz``; the batch calls with one and two threads; median and
range over R alternated rounds (one pass over all rows each):

* ``random``: N (default 1,000,000) random positions over the 35 3-4-piece
  test tables and the 5-piece tables of ``../shared/syzygy5`` (those without
  a DTZ file fail their DTZ rows, as missing tables do), in one batch; with
  no 5-piece tables in ``--tables5`` the benchmark refuses (exit 2);
* ``random_10k``: the same rows in batches of 10,000;
* ``games``: the positions ``pyfathom annotate`` probes in the games of
  bench_annotate.py's PGN (benchmarks/bin/games-*.pgn, 2,000 games: about
  13,000 positions), in one batch.

Besides the medians, ratios paired within each round (``*_paired_*``:
the two rates of a ratio measured next to each other).  The 1-thread vs
2-thread figure of the table-order path on its own, in one command:

    python benchmarks/bench_batch.py --sets random --kinds wdl

(``wdl_paired_table_order_t2_over_t1``; ``--kinds dtz`` for DTZ).

Target (issue 29): table order >= 2x the per-position C loop, one thread,
on ``random``; two threads >= 1.8x one thread.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

import bench_annotate  # noqa: E402
from support.positions import ALL_TABLES  # noqa: E402  (tests/, put on the path by common)

TABLES_5 = common.SYZYGY5


def run(dirs: str, positions: Path, rounds: int, batch: int = 0,
        kinds: str = "both") -> dict[str, Any]:
    exe = common.build_bench_core("bench_batch")
    out = subprocess.run([str(exe), dirs, str(positions), str(rounds), str(batch), kinds],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(out.stderr.strip() or f"bench_batch failed ({out.returncode})")
    res: dict[str, Any] = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 7 and parts[1] == "median":
            res[parts[0]] = {"median": float(parts[2]), "min": float(parts[4]),
                             "max": float(parts[6])}
        elif parts[:1] == ["same"]:
            res["same_answers"] = parts[1] == "1"
        elif parts[:1] == ["positions"]:
            res["positions"] = int(parts[1])
    return res


def games_positions(games: int, limit: int) -> Path:
    """The rows annotate probes in bench_annotate's PGN of that many games
    (at most ``limit``), as a position file."""
    out = common.BIN / f"positions-games-{games}-{limit}.txt"
    if out.exists():
        return out
    pgn = bench_annotate.make_pgn(common.BIN / f"games-{games}.pgn", games, "games")
    rows = bench_annotate.collect_positions(pgn, 4, limit)
    tmp = out.with_suffix(".tmp")
    with tmp.open("w") as f:
        for r in rows:
            f.write(" ".join(f"{v:x}" for v in r[:8]) + f" {r[8]} {r[9]}\n")
    tmp.replace(out)
    return out


def ratios(res: dict[str, Any]) -> dict[str, float]:
    r: dict[str, float] = {}
    for kind in ("wdl", "dtz"):
        if f"{kind}_c_loop_t1" not in res:
            continue
        loop = res[f"{kind}_c_loop_t1"]["median"]
        for t in (1, 2):
            table = res[f"{kind}_batch_table_order_t{t}"]["median"]
            r[f"{kind}_table_order_t{t}_over_c_loop"] = round(table / loop, 2)
            r[f"{kind}_table_order_t{t}_over_row_order_t{t}"] = round(
                table / res[f"{kind}_batch_row_order_t{t}"]["median"], 2)
        r[f"{kind}_table_order_t2_over_t1"] = round(
            res[f"{kind}_batch_table_order_t2"]["median"]
            / res[f"{kind}_batch_table_order_t1"]["median"], 2)
    return r


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=1_000_000)
    parser.add_argument("--games", type=int, default=2000, help="games of the PGN")
    parser.add_argument("--game-positions", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tables", type=Path, default=None, help="3-4-piece tables")
    parser.add_argument("--tables5", type=Path, default=TABLES_5)
    parser.add_argument("--kinds", choices=("wdl", "dtz", "both"), default="both")
    parser.add_argument("--sets", default="random,random_10k,games")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sets = [name for name in args.sets.split(",") if name]
    if any(name not in ("random", "random_10k", "games") for name in sets):
        parser.error("--sets takes random, random_10k, games")
    keys5 = sorted(p.stem for p in args.tables5.glob("*.rtbw")) if args.tables5.is_dir() else []
    if not keys5:
        # The rows are drawn from the 5-piece materials too: without them
        # the figures would be of another benchmark.
        print(f"bench_batch: no 5-piece tables in {args.tables5} (--tables5)", file=sys.stderr)
        return 2
    tables = args.tables or common.default_tables()
    dirs = f"{tables}:{args.tables5}"
    pos = common.make_positions(common.BIN / f"positions-batch-{args.positions}.txt",
                                args.positions, keys=ALL_TABLES + keys5)
    results: dict[str, Any] = {"tables5": keys5}
    plan = {"random": (lambda: pos, 0), "random_10k": (lambda: pos, 10_000),
            "games": (lambda: games_positions(args.games, args.game_positions), 0)}
    for name in sets:
        path, batch = plan[name]
        res = run(dirs, path(), args.rounds, batch, args.kinds)
        res["ratios"] = ratios(res)
        results[name] = res
        if not args.json:
            print(f"{name}: {res['positions']:,} rows, same answers: {res['same_answers']}")
            for k, v in res.items():
                if isinstance(v, dict) and "median" in v:
                    unit = "x (paired)" if "_paired_" in k else " rows/s"
                    fmt = ".3f" if "_paired_" in k else ",.0f"
                    print(f"  {k:48s} {v['median']:>12{fmt}}{unit}"
                          f"  ({v['min']:{fmt}} .. {v['max']:{fmt}})")
            for k, v in res["ratios"].items():
                print(f"  {k:48s} {v:.2f}x (of the medians)")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0 if all(results[n]["same_answers"] for n in sets) else 1


if __name__ == "__main__":
    sys.exit(main())
