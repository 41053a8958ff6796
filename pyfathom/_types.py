"""Result types: the WDL enum and the immutable probe records."""

from __future__ import annotations

import enum
from typing import NamedTuple, Optional

import chess

from pyfathom._bindings.clock_rule import CLOCK_CEILING, fathom_clock_result

__all__ = ["WDL", "Probe", "RootMove", "RootProbe", "FAILED", "FAILED_DTZ", "Status"]

FAILED = -128
"""Batch WDL results (``int8``) hold this where a row could not be probed."""

FAILED_DTZ = -32768
"""Batch DTZ results (``int16``) hold this where a row could not be probed."""


@enum.unique
class Status(enum.IntEnum):
    """Why a batch row holds :data:`FAILED` (``OK`` where it was answered):
    the one list of row status codes.

    Batch calls fill a ``status`` array with these codes on request (see
    :meth:`~pyfathom.Tablebase.probe_wdl_bitboards`).  The numbers up to
    ``ARGUMENT`` are the C core's status codes (``enum fathom_status`` in
    ``fathom.h``, their one definition: :mod:`pyfathom._bindings.lowlevel` refuses to
    import if a member here disagrees with it); ``VARIANT`` only the
    board-based calls give, and the last three only a line of a file or a
    row of a table (``pyfathom batch``, :mod:`pyfathom.columnar`).  The name
    each code is written as there is :data:`STATUS_NAME_OF_CODE`.

    >>> pyfathom.Status(1)
    Status.MISSING_TABLE
    """

    OK = 0
    """Probed."""
    MISSING_TABLE = 1
    """A table the position (or a capture or promotion from it) needs is
    not loaded."""
    CASTLING = 2
    """The position has castling rights: the tables hold none."""
    TOO_MANY_PIECES = 3
    """More than 7 pieces (more than any Syzygy table holds)."""
    INVALID_POSITION = 4
    """Not a legal position (``board.is_valid()`` would be false), or masks
    that do not describe one."""
    BAD_MAGIC = 5
    """A table file does not start with the Syzygy magic."""
    BAD_SIZE = 6
    """A table file has an impossible size (truncated?)."""
    CORRUPT = 7
    """A table file is damaged."""
    IO = 8
    """A table file could not be opened or mapped."""
    NO_MEMORY = 9
    """Out of memory."""
    ARGUMENT = 10
    """A bad argument reached the core."""
    VARIANT = 11
    """A board of another game than the tablebase's (its ``uci_variant`` is
    not that of the tablebase's ``VariantBoard``)."""
    INVALID_FEN = 12
    """A line or string that is not a FEN / EPD position."""
    LINE_TOO_LONG = 13
    """A line longer than :data:`pyfathom.batch_files.MAX_LINE` bytes."""
    SKIPPED = 14
    """A blank or comment line (first non-blank character ``#``): not a
    position, so no output row, and not a bad line."""

    def __repr__(self) -> str:
        return f"Status.{self.name}"


STATUS_NAMES = ("ok", "invalid_fen", "castling", "too_many_pieces", "failed", "line_too_long",
                "missing_table", "invalid_position", "corrupt_table")
"""Every row status name ``pyfathom batch`` and :mod:`pyfathom.columnar`
write, in the order the summary lists them."""

_NAMED_CODES = {
    Status.OK: "ok", Status.MISSING_TABLE: "missing_table", Status.CASTLING: "castling",
    Status.TOO_MANY_PIECES: "too_many_pieces", Status.INVALID_POSITION: "invalid_position",
    Status.BAD_MAGIC: "corrupt_table", Status.BAD_SIZE: "corrupt_table",
    Status.CORRUPT: "corrupt_table", Status.INVALID_FEN: "invalid_fen",
    Status.LINE_TOO_LONG: "line_too_long", Status.SKIPPED: "skipped",
}

if [int(code) for code in Status] != list(range(len(Status))):  # pragma: no cover
    raise ImportError("pyfathom: Status codes must run 0, 1, 2, ... (they index STATUS_NAME_OF_CODE)")

#: The row status name of each :class:`Status` code, indexed by the code.
STATUS_NAME_OF_CODE = tuple(_NAMED_CODES.get(code, "failed") for code in Status)
"""The name written for each :class:`Status` code (indexed by the code):
one of :data:`STATUS_NAMES`, or ``skipped`` (which has no row); the codes
not named (I/O, memory, argument, variant) are all ``failed``."""


class WDL(enum.IntEnum):
    """Win/draw/loss for the side to move, python-chess's numbers.

    An :class:`~enum.IntEnum`, so it compares equal to the plain ints
    :mod:`chess.syzygy` returns:

    >>> pyfathom.WDL.WIN == 2
    True
    >>> pyfathom.WDL(-1)
    WDL.BLESSED_LOSS

    ``str`` and ``format`` give the number, as for python-chess's ints;
    ``repr`` the name:

    >>> print(pyfathom.WDL.LOSS, f"{pyfathom.WDL.WIN:+d}", "%s" % pyfathom.WDL.DRAW)
    -2 +2 0
    """

    LOSS = -2
    """Lost, also under the 50-move rule."""
    BLESSED_LOSS = -1
    """Lost without the 50-move rule, drawn with it."""
    DRAW = 0
    """Drawn."""
    CURSED_WIN = 1
    """Won without the 50-move rule, drawn with it."""
    WIN = 2
    """Won, also under the 50-move rule."""

    def __repr__(self) -> str:
        return f"WDL.{self.name}"

    # The number, as python-chess's plain ints print, on every Python:
    # before 3.11, IntEnum's str() (so print, "%s", csv) gave "WDL.LOSS".
    def __str__(self) -> str:
        return int.__repr__(self)

    def __format__(self, format_spec: str) -> str:
        return int.__format__(self, format_spec)


class ClockResult(enum.IntEnum):
    """The result of a position under the 50-move rule, from its DTZ, the
    DTZ's precise flag and the halfmove clock (the shape of
    shakmaty-syzygy's ``AmbiguousWdl``), ordered: higher is better for the
    side to move.

    The C core's ``fathom_clock_result`` is the one definition of the rule
    (``enum fathom_clock_result`` in ``fathom.h``; :mod:`pyfathom._bindings.lowlevel`
    refuses to import if a member here disagrees with it); :meth:`of` asks
    the core.  Root ranking, the Fathom facade, ``pyfathom annotate`` and
    the lichess-compatible server all use it.

    >>> from pyfathom._types import ClockResult
    >>> ClockResult.of(30, True, 70), ClockResult.of(30, False, 70), ClockResult.of(-31, True, 70)
    (ClockResult.WIN, ClockResult.MAYBE_WIN, ClockResult.BLESSED_LOSS)
    >>> ClockResult.of(30, False, 70).face_wdl, ClockResult.of(0, True, 120)
    (WDL.WIN, ClockResult.DRAW)
    """

    LOSS = -3
    """The zeroing move comes by ply 100 of the clock: lost."""
    MAYBE_LOSS = -2
    """It comes at ply 100 by a rounded DTZ (see :attr:`Probe.dtz_precise`),
    which may be one ply short: lost or a 50-move draw."""
    BLESSED_LOSS = -1
    """It comes after ply 100: the 50-move rule saves the side to move."""
    DRAW = 0
    """A DTZ of 0."""
    CURSED_WIN = 1
    """Won, but the zeroing move comes after ply 100: a 50-move draw."""
    MAYBE_WIN = 2
    """Won, the zeroing move at ply 100 by a rounded DTZ: won or a 50-move
    draw."""
    WIN = 3
    """Won within the 50-move rule."""

    @classmethod
    def of(cls, dtz: int, precise: bool, halfmove_clock: int) -> ClockResult:
        """The result under the 50-move rule of a position with DTZ ``dtz``
        (python-chess's sign: see :attr:`Probe.dtz`), ``precise`` its flag
        (:attr:`Probe.dtz_precise`) and halfmove clock ``halfmove_clock``
        (0 or more; any clock past 100 plies means the same): the core's
        ``fathom_clock_result`` (examples above)."""
        return _CLOCK_RESULT_OF_CODE[
            fathom_clock_result(dtz, precise, min(halfmove_clock, CLOCK_CEILING)) + 3]

    @property
    def maybe(self) -> bool:
        """True where the rounding of the DTZ decides the result."""
        return self in (ClockResult.MAYBE_WIN, ClockResult.MAYBE_LOSS)

    @property
    def face_wdl(self) -> WDL:
        """The :class:`WDL` taking a rounded DTZ at its face value (a
        maybe-win is a win), as :attr:`RootMove.wdl` holds it."""
        return WDL(2 if self >= 2 else -2 if self <= -2 else int(self))

    def __repr__(self) -> str:
        return f"ClockResult.{self.name}"


# Indexed by a core clock code + 3: the member without an enum lookup per call.
_CLOCK_RESULT_OF_CODE = tuple(sorted(ClockResult))


class Probe(NamedTuple):
    """WDL and DTZ of one position, from :meth:`pyfathom.Tablebase.probe`.

    ``dtz`` follows python-chess's :meth:`chess.syzygy.Tablebase.probe_dtz`:
    positive when the side to move wins, negative when it loses, 0 for a
    draw; ``1 <= dtz <= 100`` is a :attr:`WDL.WIN`, ``dtz > 100`` a
    :attr:`WDL.CURSED_WIN` (and the mirror image for losses).

    >>> with pyfathom.open_tablebase(TABLES) as tb:
    ...     tb.probe(chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"))
    Probe(wdl=WDL.LOSS, dtz=-32, dtz_precise=False)
    """

    wdl: WDL
    """The WDL of the position, as :meth:`~pyfathom.Tablebase.probe_wdl`."""

    dtz: int
    """Plies to the next zeroing move (capture or pawn move), signed as
    described above; the number :meth:`~pyfathom.Tablebase.probe_dtz`
    returns."""

    dtz_precise: bool
    """Whether :attr:`dtz` is exact.

    **DTZ rounding** (the one place this caveat is written; everything else
    links here): to save space, Syzygy DTZ tables store some distances in
    full moves instead of plies.  Where ``dtz_precise`` is False, a value
    ``+n`` may mean a winning zeroing move in ``n`` *or* ``n + 1`` plies,
    and ``-n`` a losing one in ``n`` or ``n + 1`` plies.  The tables only
    round where it cannot change the outcome under the 50-move rule, but a
    player who wastes one more ply than the tablebase line near the 50-move
    limit may turn a win into a draw.  This is exactly the value python-chess
    returns; pyfathom only adds the flag telling which values are exact.
    """


class RootMove(NamedTuple):
    """One legal move of a root position, from :meth:`pyfathom.Tablebase.probe_root`.

    ``wdl`` and ``dtz`` are from the point of view of the side playing the
    move (a winning move has a positive ``dtz``), with ``dtz`` counted from
    the root position: it is the root's DTZ when this move keeps it.  The
    DTZ may be rounded: see :attr:`Probe.dtz_precise`.  Where a rounded DTZ
    is exactly the plies the halfmove clock leaves (so the rounding decides
    between a win and a 50-move draw), a bounded search below the move
    settles it: ``dtz`` is then exact, one ply longer than the table's when
    the win does not fit, and ``wdl`` and ``rank`` follow.

    ``rank`` is Fathom's / Stockfish's ``tbRank``, an integer where higher is
    better.  It separates outcomes (wins certain within the 50-move rule
    rank highest, then other wins by DTZ, draws, blessed losses, losses) but
    does not separate moves of one outcome class: every certain win has the
    same rank, as has every loss within the rule.  A win is certain when it
    fits in the clock even if its DTZ, stored rounded, is one ply short, or
    when the search above proves it fits; a rounded DTZ exactly at the
    limit that the search could not settle ranks below the certain wins, so
    that ``best_move`` never gambles a win on rounding.  A losing side's
    moves that reach the 50-move draw rank first.
    :attr:`RootProbe.moves` is further ordered by DTZ inside a rank.

    The settling search is bounded (a fixed amount of work per root probe,
    so that no probe stalls a game); where it runs out before deciding a
    move, that move keeps its rounded table value and ``unsettled`` is
    true.
    """

    move: chess.Move
    """The move."""
    wdl: WDL
    """Outcome for the mover after playing it, under the 50-move rule
    counted from the root's halfmove clock."""
    dtz: int
    """Signed DTZ in plies from the root position (see :attr:`Probe.dtz`)."""
    rank: int
    """Higher is better (Fathom's tbRank); :attr:`RootProbe.moves` is sorted
    by it, best first, ties broken by DTZ."""
    unsettled: bool = False
    """True when the move's rounded DTZ sits exactly on the 50-move edge and
    the bounded settling search ran out of budget before deciding it: its
    ``dtz``, ``wdl`` and ``rank`` are the table's, one ply uncertain."""


class RootProbe(NamedTuple):
    """Every legal move of a position, probed: :meth:`pyfathom.Tablebase.probe_root`.

    >>> with pyfathom.open_tablebase(TABLES) as tb:
    ...     root = tb.probe_root(chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"))
    >>> root.wdl, root.dtz, len(root.moves)
    (WDL.LOSS, -32, 4)
    >>> root.best_move
    Move.from_uci('d2d3')
    """

    best_move: Optional[chess.Move]
    """The first of :attr:`moves`, or None when there is no legal move
    (checkmate or stalemate)."""
    wdl: WDL
    """WDL of the position for the side to move, under the 50-move rule
    from the board's halfmove clock (at clock 0 it equals
    :meth:`~pyfathom.Tablebase.probe_wdl`).  A checkmated side has
    :attr:`WDL.LOSS`."""
    dtz: int
    """DTZ of the position, as :meth:`~pyfathom.Tablebase.probe_dtz`
    (-1 for a checkmated side, 0 at stalemate)."""
    moves: list[RootMove]
    """Every legal move, best first: wins within the 50-move rule (shortest
    first), cursed wins, draws, blessed losses, losses (longest first)."""
