"""``pyfathom.open_tablebase`` against python-chess's ``open_tablebase`` on a
folder holding both files of every 3-7-piece material (3,022 files), in one
run.

    python benchmarks/bench_open.py        # --rounds K --max-pieces N --json

The folder is written once per run into a temporary directory by the tests'
table writer (``tests/support/syzygy_writer.py``: small valid files, every stream
one value).  Each round opens the folder with both libraries, in an order
that alternates between rounds, and closes it again; reported: seconds per
open (median and range over the rounds) and the per-round ratio
python-chess / pyfathom (median and range).  Opening registers the files
(both libraries map a file only when a probe first needs it), so this is
the cost of listing and parsing names.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import common  # noqa: F401  (puts tests/ on sys.path)
from support import syzygy_writer


def stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def write_folder(folder: Path, max_pieces: int) -> int:
    import chess.syzygy

    names = list(chess.syzygy.tablenames(piece_count=max_pieces))
    for k, name in enumerate(names):
        syzygy_writer.write_tables(syzygy_writer.Spec(name, seed=k + 1, max_patterned=0), str(folder))
    return 2 * len(names)


def timed(open_and_close: Callable[[], None]) -> float:
    started = time.perf_counter()
    open_and_close()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--max-pieces", type=int, default=7,
                        help="tables of 3 up to this many pieces (default 7: 3,022 files)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import chess.syzygy

    import pyfathom

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = write_folder(folder, args.max_pieces)

        def ours() -> None:
            pyfathom.open_tablebase(folder).close()

        def theirs() -> None:
            chess.syzygy.open_tablebase(str(folder)).close()

        ours()
        theirs()  # warm the directory cache for both
        times: dict[str, list[float]] = {"pyfathom": [], "python_chess": []}
        ratios = []
        for r in range(args.rounds):
            order = [("pyfathom", ours), ("python_chess", theirs)]
            if r % 2:
                order.reverse()
            got = {name: timed(fn) for name, fn in order}
            for name, seconds in got.items():
                times[name].append(seconds)
            ratios.append(got["python_chess"] / got["pyfathom"])

    result = {"files": files, "rounds": args.rounds,
              "seconds": {name: stats(v) for name, v in times.items()},
              "ratio_python_chess_over_pyfathom": stats(ratios)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"open_tablebase on {files} files, {args.rounds} rounds (median, range):")
        for name, v in result["seconds"].items():
            print(f"  {name:13s} {v['median'] * 1e3:8.2f} ms  ({v['min'] * 1e3:.2f}-{v['max'] * 1e3:.2f})")
        r = result["ratio_python_chess_over_pyfathom"]
        print(f"  python-chess / pyfathom: {r['median']:.2f}x ({r['min']:.2f}-{r['max']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
