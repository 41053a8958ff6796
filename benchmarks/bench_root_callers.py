"""Every root-probe caller at the 50-move edge, as a multiple of the same
caller on the same position with the clock reset (where nothing is on the
edge, so no settling search runs: the plain root probe's work alone).

Callers: Python's ``Tablebase.probe_root``; Fathom's ``tb_probe_root`` and
``tb_probe_root_dtz`` through ``pyfathom.fathom`` (Pyrrhic's
``tb_probe_root`` is the same C call, ``tb_facade_probe_root``); annotate's
best move (``pyfathom.annotate.bestmove._best_move``, which falls back to
the root probe on the edge); and the server's ``/standard/mainline``
document (``pyfathom.server.lichess.mainline_document``, a root probe per
ply of the line), timed whole and per ply (from a reset clock the line is
another line, so it has no ratio).

Positions: among ``bench_root.py``'s first ``--positions`` (its file, the
same positions), those with a clock (mostly at the root's edge), the
slowest ``--slowest`` of them by Python's ``probe_root``, plus the issue's
two stalls.  Each time is the fastest of ``--repeats``.  Printed per caller:
median and worst of the ratio edge / reset clock, and the worst edge time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import chess

from common import BIN, SYZYGY5, default_tables

EXAMPLES = ["8/8/8/2Q5/4K3/8/1r1k4/8 w - - 61 1", "3b4/8/6k1/8/1K6/8/2b5/8 b - - 70 900"]


def fastest(call: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t0)
    return best


def edge_boards(count: int) -> list[chess.Board]:
    """The issue's two stalls, then the edge positions among bench_root.py's
    first *count* (its file, written here if missing)."""
    from bench_root import make_root_positions, tables_5

    from support.positions import ALL_TABLES

    path = BIN / f"root-positions-{count}.txt"
    if not path.exists():
        tables = list(ALL_TABLES) + (tables_5(SYZYGY5) if SYZYGY5.is_dir() else [])
        make_root_positions(path, count, tables)
    boards = [chess.Board(fen) for fen in EXAMPLES]
    for line in path.read_text().splitlines()[len(EXAMPLES):]:
        board = chess.Board(line.split(" ; ", 1)[1])
        if board.halfmove_clock:
            boards.append(board)
    return boards


def callers(tb: Any) -> tuple[dict[str, Callable[[chess.Board], Any]],
                             Callable[[chess.Board], Any]]:
    """The root-probe callers by name, and the mainline document's."""
    from pyfathom import fathom as f
    from pyfathom.annotate.bestmove import _best_move
    from pyfathom.server.lichess import mainline_document

    def bits(b: chess.Board) -> tuple[int, ...]:
        return (b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings, b.queens,
                b.rooks, b.bishops, b.knights, b.pawns)

    return {
        "probe_root": tb.probe_root,
        "tb_probe_root": lambda b: f.tb_probe_root(*bits(b), b.halfmove_clock, 0,
                                                   b.ep_square or 0, b.turn),
        "tb_probe_root_dtz": lambda b: f.tb_probe_root_dtz(*bits(b), b.halfmove_clock, 0,
                                                           b.ep_square or 0, b.turn, False, True),
        "annotate_best": lambda b: _best_move(tb, b),
    }, lambda b: mainline_document(tb, b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--slowest", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import os

    import pyfathom
    from pyfathom import fathom as f
    from pyfathom.server.lichess import NotInTables

    dirs = [str(d) for d in [default_tables(), SYZYGY5] if d.is_dir()]
    boards = edge_boards(args.positions)
    with pyfathom.open_tablebase(dirs) as tb:
        assert f.tb_init(os.pathsep.join(dirs))
        try:
            by_time = sorted(boards[2:], key=lambda b: -fastest(lambda: tb.probe_root(b), 1))
            sample = boards[:2] + by_time[:args.slowest]
            print(f"{len(sample)} positions (the slowest {args.slowest} of "
                  f"{len(boards) - 2} with a clock by probe_root, and the issue's two), "
                  f"fastest of {args.repeats}")
            probes, mainline = callers(tb)
            for name, call in probes.items():
                ratios, worst, worst_fen = [], 0.0, ""
                for board in sample:
                    reset = board.copy(stack=False)
                    reset.halfmove_clock = 0
                    edge_t = fastest(lambda: call(board), args.repeats)
                    ratios.append(edge_t / fastest(lambda: call(reset), args.repeats))
                    if edge_t > worst:
                        worst, worst_fen = edge_t, board.fen()
                print(f"{name:18} ratio median {statistics.median(ratios):6.1f} "
                      f"worst {max(ratios):7.1f}  worst time {worst * 1e3:7.2f} ms ({worst_fen})")
            # The line from a reset clock is another line: the mainline is
            # timed whole, and per root probe (one per ply of the line).
            worst, per_ply, worst_fen = 0.0, 0.0, ""
            for board in sample:
                try:
                    steps = max(1, len(mainline(board)["mainline"]))
                except NotInTables:  # a line into a table with its WDL file only
                    continue
                t = fastest(lambda: mainline(board), args.repeats)
                per_ply = max(per_ply, t / steps)
                if t > worst:
                    worst, worst_fen = t, board.fen()
            print(f"{'mainline':18} worst per ply {per_ply * 1e3:6.2f} ms  worst time "
                  f"{worst * 1e3:7.2f} ms ({worst_fen})")
        finally:
            f.tb_free()
    return 0


if __name__ == "__main__":
    sys.exit(main())
