"""Results under the 50-move rule, for :mod:`pyfathom.annotate`: the
:class:`Verdict` of a position, a move's DTZ and the sort key of moves."""

from __future__ import annotations

from typing import NamedTuple

import chess.pgn

from pyfathom._types import ClockResult

WIN, DRAW, LOSS = 1, 0, -1
"""Results for one side: the game's outcome for it under the 50-move rule."""

RESULT_WORDS = {WIN: "win", DRAW: "draw", LOSS: "loss"}

NAG_MISTAKE = chess.pgn.NAG_MISTAKE      # ``?``: the change rests on a rounded DTZ
NAG_BLUNDER = chess.pgn.NAG_BLUNDER      # ``??``: a certain change of result


class Verdict(NamedTuple):
    """The result of one position for the side to move, under the 50-move rule
    counted from the game's halfmove clock.

    ``result`` is WIN, DRAW or LOSS taking the DTZ at its face value (the
    number python-chess returns, which may be one ply short where the table
    rounds: see :attr:`pyfathom.Probe.dtz_precise`).  ``doubt`` is True when
    that rounding decides the result: the zeroing move is exactly at the
    50-move limit by the face value and one ply past it if the DTZ is one
    more, so a WIN (LOSS) may really be a draw.  ``fifty`` is True for a draw
    that the 50-move rule makes of a win or a loss.
    """

    result: int
    doubt: bool
    fifty: bool
    dtz: int
    precise: bool
    clock: int
    mated: bool

    def bounds(self) -> tuple[int, int]:
        """(worst, best) result this verdict allows, for the side to move."""
        if not self.doubt:
            return self.result, self.result
        return (DRAW, WIN) if self.result == WIN else (LOSS, DRAW)


def verdict(dtz: int, precise: bool, clock: int, mated: bool = False) -> Verdict:
    """The :class:`Verdict` of a position with DTZ ``dtz`` (python-chess's
    sign and rounding), ``precise`` its exactness, ``clock`` the halfmove
    clock, ``mated`` True for a checkmate (a loss whatever the clock).

    A win counts when the zeroing move comes within the 50-move rule:
    ``dtz + clock <= 100``; a loss likewise with ``-dtz`` (the core's one
    rule: :class:`~pyfathom._types.ClockResult`).

    >>> verdict(30, True, 70)
    Verdict(result=1, doubt=False, fifty=False, dtz=30, precise=True, clock=70, mated=False)
    >>> verdict(30, False, 70).doubt       # 30 or 31 plies: the 31st is one too many
    True
    >>> verdict(-31, True, 70).result      # the defender reaches the 50-move draw
    0
    """
    if mated:
        return Verdict(LOSS, False, False, dtz, precise, clock, True)
    r = ClockResult.of(dtz, precise, clock)
    return Verdict(_RESULT_AT_FACE_VALUE[r], r.maybe,
                   r in (ClockResult.CURSED_WIN, ClockResult.BLESSED_LOSS),
                   dtz, precise, clock, False)


_RESULT_AT_FACE_VALUE = {
    ClockResult.LOSS: LOSS, ClockResult.MAYBE_LOSS: LOSS, ClockResult.BLESSED_LOSS: DRAW,
    ClockResult.DRAW: DRAW, ClockResult.CURSED_WIN: DRAW, ClockResult.MAYBE_WIN: WIN,
    ClockResult.WIN: WIN,
}
"""The result a clock result gives the side to move, a rounded DTZ taken at
its face value (a maybe-win is a WIN, with doubt)."""


def move_dtz(child_dtz: int, zeroing: bool, mates: bool) -> int:
    """The DTZ of a move from the mover's point of view, counted from the
    position before it (as ``pyfathom probe`` lists moves): the position's
    own DTZ when the move keeps it.  ``child_dtz`` is the DTZ of the
    position after the move (for the opponent)."""
    if mates:
        return 1
    if child_dtz == 0:
        return 0
    if zeroing:
        magnitude = 1 if -100 <= child_dtz <= 100 else 101
        return magnitude if child_dtz < 0 else -magnitude
    return -child_dtz + 1 if child_dtz < 0 else -child_dtz - 1


def _dtz_text(dtz: int, precise: bool) -> str:
    if precise or dtz == 0:
        return str(dtz)
    return f"{dtz} or {dtz + 1 if dtz > 0 else dtz - 1}"


def _move_rank(result: int, dtz: int) -> tuple[int, int, int]:
    """Sort key of a move, higher is better: its result, then the fastest
    win / the longest loss; among draws, one the 50-move rule saves the
    opponent from (a win or loss beyond the limit) before a plain draw."""
    if result == DRAW:
        side = (dtz > 0) - (dtz < 0)
        return (DRAW, side, -abs(dtz) if side > 0 else abs(dtz))
    return (result, 0, -dtz)


def _move_key(dtz: int, zeroing: bool, clock: int) -> tuple[int, tuple[int, int, int]]:
    """(the mover's result, :func:`_move_rank`) of a move with DTZ ``dtz``
    (:func:`move_dtz`'s, counted from the position) from a position with
    halfmove clock ``clock``: the key ``fathom_best_move`` ranks moves by
    (``move_key`` in tb_probe.c), a win or loss only within the 50-move
    rule, the DTZ at its face value.

    >>> _move_key(1, False, 99), _move_key(2, False, 99)   # a mate; a win one ply too slow
    ((1, (1, 0, -1)), (0, (0, 1, -2)))
    """
    if dtz == 1 and not zeroing:
        result = WIN  # only a mate wins in one ply without zeroing
    else:
        result = _RESULT_AT_FACE_VALUE[ClockResult.of(dtz, True, clock)]
    return result, _move_rank(result, dtz)
