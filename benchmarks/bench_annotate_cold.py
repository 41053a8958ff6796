"""``pyfathom annotate`` on cold 7-piece tables, read-ahead off against auto.

Each run is a fresh process that opens the tables (their cached pages
dropped first, ``posix_fadvise(DONTNEED)``, unless warm) and annotates one
PGN with :func:`pyfathom.annotate.annotate_stream` (what ``pyfathom
annotate GAMES.pgn`` does, without the interpreter start) with
``Tablebase.read_ahead`` set to the mode.  Printed per mode and phase: the
call's wall time and the process's major faults, medians and ranges over
alternated rounds; the annotated text must be the same in every run.

The PGN (``--games`` games, deterministic): each starts from a random
position of ``--material`` (a ``FEN``/``SetUp`` header) and goes on for up
to ``--plies`` random legal moves, quiet ones three times in four, so most
of the game stays in the largest table.  Every position from the start on
is in the tables: the replay probes each one's DTZ (issue 41: those probes
ask for their reads together, src/fathom/probe/tb_prefetch.c), and each
mistake gets a root probe for the best move.

``--python`` runs the children with another interpreter (a build of an
earlier commit, to tell the replay's share from the root probes').

    python benchmarks/bench_annotate_cold.py --tables /tmp/annot_cold/tables
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import chess

import common  # noqa: F401  (puts tests/ on sys.path)

from support import positions  # noqa: E402
from support.page_drop import drop_tables  # noqa: E402


def make_pgn(path: Path, games: int, material: str, plies: int, seed: int) -> Path:
    rng = random.Random(seed)
    lines = []
    for i in range(games):
        board = positions.random_position(seed * 100_000 + i, material)
        start, sans = board.fen(), []
        for _ in range(plies):
            legal = list(board.legal_moves)
            quiet = [m for m in legal if not board.is_capture(m)]
            if not legal:
                break
            move = rng.choice(quiet if quiet and rng.random() < 0.75 else legal)
            sans.append(board.san(move))
            board.push(move)
        lines.append(f'[Event "cold {i + 1}"]\n[FEN "{start}"]\n[SetUp "1"]\n\n'
                     f'{" ".join(sans)} *\n\n')
    path.write_text("".join(lines), encoding="ascii")
    return path


def child(tables: str, pgn: str, mode: str) -> int:
    """One run: the annotation's wall time, the process's major faults
    during it, and a digest of the text written."""
    import pyfathom
    from pyfathom.annotate import annotate_stream

    text = open(pgn, encoding="ascii").read()
    with pyfathom.open_tablebase(tables) as tb:
        tb.read_ahead = mode
        out = io.StringIO()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        start = time.perf_counter()
        annotate_stream(tb, io.StringIO(text), out)
        seconds = time.perf_counter() - start
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before
    digest = hashlib.sha256(out.getvalue().encode()).hexdigest()
    json.dump({"seconds": seconds, "major_faults": faults, "digest": digest}, sys.stdout)
    return 0


def run(python: str, tables: Path, pgn: Path, mode: str, cold: bool) -> dict[str, Any]:
    if cold:
        drop_tables(tables)
    proc = subprocess.run([python, __file__, "--child", str(tables), str(pgn), mode],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    return json.loads(proc.stdout)


def spread(values: list[float]) -> str:
    def one(v: float) -> str:
        return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"
    return f"{one(statistics.median(values))} ({one(min(values))}-{one(max(values))})"


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return child(*sys.argv[2:5])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=Path, required=True,
                    help="a folder with --material's tables and every table they reach "
                         "(tests/support/syzygy_writer.py FOLDER MATERIAL)")
    ap.add_argument("--material", default="KQRBvKQR")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default="off,auto")
    ap.add_argument("--python", default=sys.executable, help="the children's interpreter")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    pgn = make_pgn(args.tables.parent / f"cold-{args.material}-{args.games}-{args.seed}.pgn",
                   args.games, args.material, args.plies, args.seed)
    modes = args.modes.split(",")
    runs: dict[str, list[dict[str, Any]]] = {}
    for r in range(args.rounds):
        # Alternated, and the first mode of a round turns: a drift of the
        # machine falls on every mode alike.
        for mode in modes[r % len(modes):] + modes[:r % len(modes)]:
            runs.setdefault(f"{mode} cold", []).append(run(args.python, args.tables, pgn,
                                                           mode, True))
        for mode in modes:
            runs.setdefault(f"{mode} warm", []).append(run(args.python, args.tables, pgn,
                                                           mode, False))
    digests = {one["digest"] for all_runs in runs.values() for one in all_runs}
    summary = {name: {"seconds": spread([one["seconds"] for one in got]),
                      "major_faults": spread([one["major_faults"] for one in got])}
               for name, got in runs.items()}
    if args.json:
        json.dump({"summary": summary, "runs": runs, "identical": len(digests) == 1},
                  sys.stdout, indent=1)
        return 0
    print(f"annotate, {args.games} games from random {args.material} positions, "
          f"{args.rounds} rounds: median (range)")
    for name, row in summary.items():
        print(f"  {name:12} {row['seconds']:>26} s  {row['major_faults']:>22} major faults")
    print(f"annotated text identical in every run: {len(digests) == 1}")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
