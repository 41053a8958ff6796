"""Child process of tests/test_root_prefetch.py: root probes of the
positions in a FEN file (one a line) with the given read-ahead mode, in a
fresh process (so nothing is mapped before); prints one JSON object: every
answer (each move's UCI, WDL, DTZ, rank and unsettled flag, and the root's
values, or the error's class) and the probing's major faults.

    python cold_root.py TABLE_DIR FEN_FILE MODE [moves | wdl]

With ``moves``, the way ``pyfathom serve`` answers a position instead:
``Tablebase.read_ahead_moves`` (unless MODE is off), then the DTZ of the
position after each legal move, one at a time (the answers: those DTZs).
With ``wdl``, ``fathom_probe_root_wdl`` instead (as Fathom's
``tb_probe_root_wdl``, for engines without DTZ tables): each move's UCI,
WDL and rank, or the status.
With ``replay``, each line is a game, ``FEN;SAN SAN ...``, replayed the way
``pyfathom annotate`` replays it (``fathom_game_replay``, which probes the
DTZ of every position): the answers are each game's DTZs, and last the
text ``annotate_stream`` writes for all the games (run after the faults
are counted).
"""

from __future__ import annotations

import json
import resource
import sys

import io

import chess

import pyfathom
from pyfathom._bindings import lowlevel_helpers
from pyfathom.annotate import annotate_stream
from pyfathom.annotate.replay import _board_start


def move_dtzs(tb: pyfathom.Tablebase, board: chess.Board) -> list[object]:
    tb.read_ahead_moves(board)
    return moves_dtz_as_stored(tb, board)


def moves_dtz_as_stored(tb: pyfathom.Tablebase, board: chess.Board) -> list[object]:
    """The DTZ of the position after each legal move, None where no table."""
    out: list[object] = []
    for move in board.legal_moves:
        board.push(move)
        try:
            out.append(tb.probe_dtz_as_stored(board))
        except KeyError:
            out.append(None)
        board.pop()
    return out


def root_wdl(tb: pyfathom.Tablebase, board: chess.Board) -> object:
    """fathom_probe_root_wdl of board, through the C core."""
    from pyfathom._core import ffi, lib
    from pyfathom._bindings.lowlevel import _board

    c_board = _board(board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                     board.kings, board.queens, board.rooks, board.bishops, board.knights,
                     board.pawns, board.ep_square or 0, int(board.turn), board.halfmove_clock)
    moves = ffi.new("fathom_root_move[]", 256)
    count = ffi.new("unsigned *")
    wdl = ffi.new("int *")
    status = lib.fathom_probe_root_wdl(tb._core_access().handle, c_board, moves, count, wdl,
                                       ffi.NULL)
    if status != 0:
        return status
    return [wdl[0], [[getattr(m, "from"), m.to, m.promotion, m.wdl, m.rank]
                     for m in (moves[i] for i in range(count[0]))]]


def replays(tb: pyfathom.Tablebase, games: list[str]) -> tuple[list[object], int]:
    """Each game's DTZs, from the C replay, and the major faults it took."""
    handle = tb._core_access().handle
    out: list[object] = []
    before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
    for line in games:
        fen, sans = line.split(";")
        replay = lowlevel_helpers.game_replay(handle, _board_start(chess.Board(fen)),
                                              sans.encode("ascii"), 6)
        out.append([replay.stop, [replay.records[i].dtz for i in range(replay.written)]])
    return out, resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before


def annotated(tb: pyfathom.Tablebase, games: list[str]) -> str:
    pgn = "".join(f'[FEN "{line.split(";")[0]}"]\n[SetUp "1"]\n\n{line.split(";")[1]} *\n\n'
                  for line in games)
    out = io.StringIO()
    annotate_stream(tb, io.StringIO(pgn), out)
    return out.getvalue()


def main() -> int:
    folder, fens, mode = sys.argv[1:4]
    if sys.argv[4:] == ["replay"]:
        games = open(fens, encoding="ascii").read().splitlines()
        with pyfathom.open_tablebase(folder) as tb:
            tb.read_ahead = mode
            answers, faults = replays(tb, games)
            answers.append(annotated(tb, games))
        json.dump({"answers": answers, "major_faults": faults}, sys.stdout)
        return 0
    boards = [chess.Board(line) for line in open(fens, encoding="ascii").read().splitlines()]
    answers: list[object] = []
    with pyfathom.open_tablebase(folder) as tb:
        tb.read_ahead = mode
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        for board in boards:
            if sys.argv[4:] == ["moves"]:
                answers.append(move_dtzs(tb, board))
                continue
            if sys.argv[4:] == ["wdl"]:
                answers.append(root_wdl(tb, board))
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
