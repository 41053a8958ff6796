"""Root-probe latency: the worst single ``tb_probe_root`` call over random
3-4-5-piece positions with random clocks, ours beside Fathom's.

``bench_root.c`` uses Fathom's API alone, so it is built twice: against the
single-file build of ``src/fathom/`` (``amalgamate.sh``) and, with
``--fathom DIR``, against a Fathom checkout (``DIR/src/tbprobe.c``, built
into ``benchmarks/bin/``, never committed).  Both run on the same position
file: half of the positions get a uniform clock 0..99, half a clock that
puts the root's DTZ at or one ply past the plies the clock leaves (the
50-move edge, where our root probe settles moves by a search).  Each
call's time is the fastest of ``--repeats``; printed: median, 99th
percentile, worst (with its FEN) and the calls over 1/5/10 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
from pathlib import Path

from common import BENCH, BIN, CORE, SYZYGY5, _positions, default_tables

SHARED_5 = SYZYGY5
# The two stalls issue 25 reports, always in the file.
EXAMPLES = ["8/8/8/2Q5/4K3/8/1r1k4/8 w - - 61 1", "3b4/8/6k1/8/1K6/8/2b5/8 b - - 70 900"]


def tables_5(directory: Path) -> list[str]:
    """The 5-piece tables of *directory* with both WDL and DTZ files."""
    return sorted(p.stem for p in directory.glob("*.rtbz")
                  if (directory / f"{p.stem}.rtbw").exists() and len(p.stem) == 6)


def make_root_positions(path: Path, n: int, tables: list[str], seed: int = 25) -> Path:
    """Write *n* positions (bitboards, clock, ep, turn ; FEN) over *tables*."""
    import chess
    import pyfathom

    rng = random.Random(seed)
    dirs = [default_tables()] + ([SHARED_5] if SHARED_5.is_dir() else [])
    boards = [chess.Board(fen) for fen in EXAMPLES]
    with pyfathom.open_tablebase([str(d) for d in dirs]) as tb:
        while len(boards) < n:
            board = _positions.random_position(rng, rng.choice(tables))
            if rng.random() < 0.5:
                board.halfmove_clock = rng.randrange(100)
            else:
                dtz = abs(tb.probe_dtz(board))
                if not 1 <= dtz <= 100:
                    continue
                board.halfmove_clock = max(0, 100 - dtz - rng.choice([0, 0, 1]))
            boards.append(board)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for b in boards[:n]:
            w, bl, k, q, r, bi, kn, p, ep, turn = _positions.bitboards(b)
            f.write(f"{w:x} {bl:x} {k:x} {q:x} {r:x} {bi:x} {kn:x} {p:x} "
                    f"{b.halfmove_clock} {ep} {turn} ; {b.fen()}\n")
    return path


def build(name: str, source_dir: Path, tbprobe_c: Path) -> Path:
    """bench_root.c with the tbprobe.c/tbprobe.h of *source_dir*, -O2."""
    BIN.mkdir(parents=True, exist_ok=True)
    exe = BIN / name
    cc = shlex.split(os.environ.get("CC", "cc"))
    subprocess.run([*cc, "-std=gnu99", "-O2", "-w", "-pthread", f"-I{source_dir}",
                    str(BENCH / "bench_root.c"), str(tbprobe_c), "-o", str(exe)], check=True)
    return exe


def run(exe: Path, table_path: str, positions: Path, repeats: int) -> dict[str, float]:
    out = subprocess.run([str(exe), table_path, str(positions), str(repeats)],
                         check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fathom", type=Path, help="a Fathom checkout to compare with")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    tables = list(_positions.ALL_TABLES)
    if SHARED_5.is_dir():
        tables += tables_5(SHARED_5)
    positions = make_root_positions(BIN / f"root-positions-{args.positions}.txt",
                                    args.positions, tables)
    fens = [line.split(" ; ", 1)[1].strip() for line in positions.read_text().splitlines()]
    table_path = os.pathsep.join(str(d) for d in [default_tables(), SHARED_5] if d.is_dir())

    single = BIN / "single-file"
    subprocess.run(["sh", str(CORE / "amalgamate.sh"), str(single)], check=True)
    builds = {"pyfathom": build("bench_root", single, single / "tbprobe.c")}
    if args.fathom:
        src = args.fathom / "src"
        builds["fathom"] = build("bench_root_fathom", src, src / "tbprobe.c")
    results = {}
    for name, exe in builds.items():
        r = run(exe, table_path, positions, args.repeats)
        r["worst_fen"] = fens[int(r["worst_line"]) - 1]  # type: ignore[assignment]
        results[name] = r
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{args.positions} positions over {len(tables)} tables, fastest of "
              f"{args.repeats} per call")
        for name, r in results.items():
            print(f"{name:9} median {r['median_us']:8.1f} us  p99 {r['p99_us']:8.1f} us  "
                  f"worst {r['worst_us']:9.1f} us ({r['worst_fen']})  "
                  f">1ms {int(r['over_1ms'])} >5ms {int(r['over_5ms'])} "
                  f">10ms {int(r['over_10ms'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
