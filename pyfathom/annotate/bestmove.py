"""The best move of a position, named in the comment on a mistake
(:mod:`pyfathom.annotate`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Optional

import chess

from pyfathom._bindings import lowlevel as _ll
from pyfathom._bindings import lowlevel_helpers as _helpers
from pyfathom._tablebase.tablebase import Tablebase
from pyfathom._types import Status
from pyfathom.annotate.verdict import _move_key, move_dtz

_board_dtz = _ll.board_dtz
_FAILED_BELOW = _ll.LEAN_FAILURE_BOUND


def _best_move(tb: Tablebase, board: chess.Board, dtz_hint: int = 0
               ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """(move, its DTZ from the mover's side, exact?, result) of the best
    legal move by :func:`~pyfathom.annotate.verdict._move_key`; None if no move can be probed.

    One C call (``fathom_best_move``) ranks the moves as
    :meth:`Tablebase.probe_root` would list them, with a WDL probe of every
    move and a DTZ probe only of the quiet moves that can still be best
    (about a third of them on the benchmark's mistakes; ``dtz_hint``, the
    position's DTZ when known, lets it drop slower wins sooner and does not
    change the answer).  Where it cannot, :func:`_best_of` ranks the moves
    by the same key: where a move that can be best has a rounded DTZ on the
    50-move edge, from the root probe (:func:`_root_moves`: it settles such
    moves by a search); where a table some move needs is missing, from
    probes of the moves one by one, skipping those that cannot be probed
    (:func:`_child_moves`).
    """
    occ = board.occupied_co
    found = _helpers.best_move(tb._core_access().handle, occ[1], occ[0], board.kings, board.queens,
                               board.rooks, board.bishops, board.knights, board.pawns,
                               board.ep_square or 0, board.turn, board.halfmove_clock, dtz_hint)
    if found.status != Status.OK:
        return _best_of(tb, board, _child_moves(tb, board))
    if found.on_edge:
        moves: Iterable[_Candidate]
        try:
            moves = _root_moves(tb, board)
        except (KeyError, ValueError, OSError):
            moves = _child_moves(tb, board)
        return _best_of(tb, board, moves)
    if found.move is None:
        return None
    start, to, promotion = found.move
    return (chess.Move(start, to, promotion or None), found.dtz, found.dtz_precise,
            found.result)


_Candidate = tuple[chess.Move, int, bool, Optional[bool]]
"""A legal move, its DTZ from the mover's side counted from the position
(as :func:`move_dtz` gives it), whether it zeroes the clock, and whether the
DTZ is exact (None: not known yet)."""


def _best_of(tb: Tablebase, board: chess.Board, moves: Iterable[_Candidate]
             ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """:func:`_best_move` among ``moves``: the first of the highest
    :func:`~pyfathom.annotate.verdict._move_key` (the one ranking); its
    exactness, where not known, from a DTZ probe of the position it leads
    to."""
    clock = board.halfmove_clock
    best: Optional[tuple[tuple[int, int, int], int, _Candidate]] = None
    for candidate in moves:
        result, key = _move_key(candidate[1], candidate[2], clock)
        if best is None or key > best[0]:
            best = (key, result, candidate)
    if best is None:
        return None
    _, result, (move, dtz, zeroing, precise) = best
    if precise is None:
        precise = _root_move_precise(tb, board, move, dtz, zeroing)
    return move, dtz, precise, result


def _root_moves(tb: Tablebase, board: chess.Board) -> list[_Candidate]:
    """Every legal move from one root probe (:meth:`Tablebase.probe_root`:
    :func:`move_dtz`'s DTZ, or on the 50-move edge the exact value its
    search settles), exactness not known yet; KeyError (ValueError,
    OSError) where the root probe fails."""
    return [(rm.move, rm.dtz, board.is_zeroing(rm.move), None)
            for rm in tb.probe_root(board).moves]


def _root_move_precise(tb: Tablebase, board: chess.Board, move: chess.Move, dtz: int,
                       zeroing: bool) -> bool:
    """Whether a root move's DTZ is exact: as exact as that of the position
    it leads to, or settled by the root probe's search."""
    if zeroing or dtz in (0, 1):
        return True
    board.push(move)
    try:
        occ = board.occupied_co
        r = _board_dtz(tb._core_access().pinned, occ[1], occ[0], board.queens, board.rooks,
                       board.bishops, board.knights, board.pawns, board.ep_square,
                       board.turn)
    finally:
        board.pop()
    if r >= _FAILED_BELOW and abs(dtz) == abs(r >> 1) + 2:
        # One ply longer than the position's rounded DTZ says: the root
        # probe's search settled the move on the 50-move edge, exactly.
        return True
    return r >= _FAILED_BELOW and r & 1 == 1


def _child_moves(tb: Tablebase, board: chess.Board) -> Iterator[_Candidate]:
    """Every legal move whose position can be probed, from a DTZ probe of
    that position (a missing table, say a DTZ table after a promotion,
    skips the move)."""
    pinned = tb._core_access().pinned
    for move in board.legal_moves:
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            occ = board.occupied_co
            r = _board_dtz(pinned, occ[1], occ[0], board.queens, board.rooks, board.bishops,
                           board.knights, board.pawns, board.ep_square, board.turn)
            mates = r >= _FAILED_BELOW and r >> 1 == -1 and board.is_checkmate()
        finally:
            board.pop()
        if r < _FAILED_BELOW:
            continue
        child_dtz, precise = r >> 1, r & 1 == 1
        yield move, move_dtz(child_dtz, zeroing, mates), zeroing, precise or zeroing or mates
