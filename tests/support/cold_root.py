"""Child process of tests/test_root_prefetch.py: root probes of the
positions in a FEN file (one a line) with the given read-ahead mode, in a
fresh process (so nothing is mapped before); prints one JSON object: every
answer (each move's UCI, WDL, DTZ, rank and unsettled flag, and the root's
values, or the error's class) and the probing's major faults.

    python cold_root.py TABLE_DIR FEN_FILE MODE [moves]

With ``moves``, the way ``pyfathom serve`` answers a position instead:
``Tablebase.read_ahead_moves`` (unless MODE is off), then the DTZ of the
position after each legal move, one at a time (the answers: those DTZs).
"""

from __future__ import annotations

import json
import resource
import sys

import chess

import pyfathom


def move_dtzs(tb: pyfathom.Tablebase, board: chess.Board) -> list[object]:
    tb.read_ahead_moves(board)
    out: list[object] = []
    for move in board.legal_moves:
        board.push(move)
        try:
            out.append(tb.probe_dtz_as_stored(board))
        except KeyError:
            out.append(None)
        board.pop()
    return out


def main() -> int:
    folder, fens, mode = sys.argv[1:4]
    boards = [chess.Board(line) for line in open(fens, encoding="ascii").read().splitlines()]
    answers: list[object] = []
    with pyfathom.open_tablebase(folder) as tb:
        tb.read_ahead = mode
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        for board in boards:
            if sys.argv[4:] == ["moves"]:
                answers.append(move_dtzs(tb, board))
                continue
            try:
                root = tb.probe_root(board)
            except (KeyError, pyfathom.InvalidPositionError) as error:
                answers.append(type(error).__name__)
                continue
            answers.append([root.wdl, root.dtz, [[m.move.uci(), m.wdl, m.dtz, m.rank,
                                                  m.unsettled] for m in root.moves]])
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before
    json.dump({"answers": answers, "major_faults": faults}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
