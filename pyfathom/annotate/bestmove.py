"""The best move of a position, named in the comment on a mistake
(:mod:`pyfathom.annotate`)."""

from __future__ import annotations

from typing import Optional

import chess

from pyfathom import _lowlevel as _ll
from pyfathom._tablebase import Tablebase
from pyfathom._types import Status
from pyfathom.annotate.verdict import LOSS, DRAW, WIN, _move_rank, move_dtz, verdict

_board_dtz = _ll.board_dtz
_FAILED_BELOW = _ll.LEAN_FAILURE_BOUND

def _best_move(tb: Tablebase, board: chess.Board, dtz_hint: int = 0
               ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """(move, its DTZ from the mover's side, exact?, result) of the best
    legal move by :func:`_move_rank`; None if no move can be probed.

    One C call (``fathom_best_move``) ranks the moves as
    :meth:`Tablebase.probe_root` would list them, with a WDL probe of every
    move and a DTZ probe only of the quiet moves that can still be best
    (about a third of them on the benchmark's mistakes; ``dtz_hint``, the
    position's DTZ when known, lets it drop slower wins sooner and does not
    change the answer).  Where a move that can be best has a rounded DTZ on
    the 50-move edge, :func:`_best_move_by_root` ranks them (the root probe
    settles such moves by a search); where a table some move needs is
    missing, :func:`_best_move_by_children` probes the moves one by one and
    skips those that cannot be probed.
    """
    occ = board.occupied_co
    found = _ll.best_move(tb._core_access().handle, occ[1], occ[0], board.kings, board.queens,
                          board.rooks, board.bishops, board.knights, board.pawns,
                          board.ep_square or 0, board.turn, board.halfmove_clock, dtz_hint)
    if found.status != Status.OK:
        return _best_move_by_children(tb, board)
    if found.on_edge:
        return _best_move_by_root(tb, board)
    if found.move is None:
        return None
    start, to, promotion = found.move
    return (chess.Move(start, to, promotion or None), found.dtz, found.dtz_precise,
            found.result)


def _best_move_by_root(tb: Tablebase, board: chess.Board
                       ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """:func:`_best_move` from a root probe.

    One root probe ranks every move in C (:meth:`Tablebase.probe_root`,
    whose move DTZ is :func:`move_dtz`'s, or on the 50-move edge the exact
    value its search settles); where it fails (a table some move
    needs is missing), :func:`_best_move_by_children` probes the moves one
    by one and skips those that cannot be probed.
    """
    try:
        root = tb.probe_root(board)
    except (KeyError, ValueError, OSError):
        return _best_move_by_children(tb, board)
    clock = board.halfmove_clock
    best: Optional[tuple[tuple[int, int, int], chess.Move, int, bool, int]] = None
    for rm in root.moves:
        zeroing = board.is_zeroing(rm.move)
        if rm.dtz == 1 and not zeroing:
            result = WIN  # only a mate wins in one ply without zeroing
        elif zeroing:
            # The clock restarts: the table's result is the game's.
            result = (WIN if rm.wdl > 0 else LOSS) if abs(rm.wdl) == 2 else DRAW
        elif rm.dtz and abs(rm.dtz) + clock <= 100:
            # The position after the move has DTZ |dtz| - 1 and clock + 1.
            result = WIN if rm.dtz > 0 else LOSS
        else:
            result = DRAW
        key = _move_rank(result, rm.dtz)
        if best is None or key > best[0]:
            best = (key, rm.move, rm.dtz, zeroing, result)
    if best is None:
        return None
    _, move, dtz, zeroing, result = best
    precise = True
    if not zeroing and dtz not in (0, 1):
        # The move's DTZ is as exact as that of the position it leads to.
        board.push(move)
        try:
            occ = board.occupied_co
            r = _board_dtz(tb._core_access().pinned, occ[1], occ[0], board.queens, board.rooks,
                           board.bishops, board.knights, board.pawns, board.ep_square,
                           board.turn)
        finally:
            board.pop()
        precise = r >= _FAILED_BELOW and r & 1 == 1
        if r >= _FAILED_BELOW and abs(dtz) == abs(r >> 1) + 2:
            # One ply longer than the position's rounded DTZ says: the root
            # probe's search settled the move on the 50-move edge, exactly.
            precise = True
    return move, dtz, precise, result


def _best_move_by_children(tb: Tablebase, board: chess.Board
                           ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """:func:`_best_move` probing each move's position, skipping those that
    cannot be probed."""
    pinned = tb._core_access().pinned
    best: Optional[tuple[tuple[int, int, int], chess.Move, int, bool, int]] = None
    for move in board.legal_moves:
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            occ = board.occupied_co
            r = _board_dtz(pinned, occ[1], occ[0], board.queens, board.rooks, board.bishops,
                           board.knights, board.pawns, board.ep_square, board.turn)
            if r < _FAILED_BELOW:
                continue  # a missing table (say a DTZ table after a promotion)
            child_dtz, precise = r >> 1, r & 1 == 1
            mates = child_dtz == -1 and board.is_checkmate()
            child = verdict(child_dtz, precise, board.halfmove_clock, mates)
        finally:
            board.pop()
        dtz = move_dtz(child_dtz, zeroing, mates)
        key = _move_rank(-child.result, dtz)
        if best is None or key > best[0]:
            best = (key, move, dtz, precise or zeroing or mates, -child.result)
    if best is None:
        return None
    return best[1], best[2], best[3], best[4]
