"""The per-board probes of :class:`pyfathom.Tablebase` (``probe_wdl``,
``probe_dtz``, ``probe``, ``get_wdl``, ``get_dtz``, ``probe_root``) and the
exceptions they raise: the hot path, one foreign call per board."""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn, TypeVar, Union

import chess

from pyfathom._bindings import lowlevel as _ll
from pyfathom._errors import UnsupportedPositionError
from pyfathom._types import WDL, Probe, RootMove, RootProbe, Status

if TYPE_CHECKING:
    from pyfathom._tablebase.core_access import CoreAccess

_T = TypeVar("_T")

_FAILED_BELOW = _ll.LEAN_FAILURE_BOUND
_board_wdl = _ll.board_wdl
_board_dtz = _ll.board_dtz
_wdl_answer = _ll.wdl_answer
_dtz_answer = _ll.dtz_answer
_probe_answer = _ll.probe_answer
_Deferred = _ll.Deferred
_UNCHECKED = _ll.BOARD_UNCHECKED
_WDLS = _ll.WDL_MEMBERS
_new_tuple = tuple.__new__


def _invalid_reasons(board: chess.Board) -> str:
    status = board.status()
    names = [flag.name.lower().replace("_", " ") for flag in chess.Status
             if flag and flag.name and status & flag]
    return ", ".join(names) or "rejected by the prober"


class BoardProbes:
    """The per-board probes of :class:`~pyfathom.Tablebase`, one of its base
    classes: it holds no state of its own (the class is documented there)."""

    __slots__ = ()

    # Tablebase's slots and internal interface (see there), declared for
    # the type checker.
    _h: _ll.Handle
    _pinned: _ll.Pinned
    variant: type[chess.Board]

    if TYPE_CHECKING:
        def _core_access(self) -> CoreAccess: ...

    # ---- errors (never on the hot path) -------------------------------------

    def _check_supported(self, board: chess.Board) -> None:
        """Raise for a board of another variant than the tablebase's or a
        board with castling rights; return for a subclass of the
        tablebase's board class that plays its game.  (The hot path tests
        ``type(board)``, which is cheaper than reading
        ``board.uci_variant``, a class attribute.)"""
        game = self.variant.uci_variant
        if board.uci_variant != game:
            # As chess.syzygy: a KeyError, the tables answer another game.
            name = "standard chess" if game == "chess" else game
            raise UnsupportedPositionError(
                f"syzygy tables for {name}, probed with {board.uci_variant}: "
                f"{board.fen()}")
        if board.castling_rights:
            _ll.raise_error(Status.CASTLING, board.fen())

    def _fail(self, dtz: bool, board: chess.Board, status: int) -> NoReturn:
        """Raise the exception for a probe of ``board`` (the DTZ one if
        ``dtz``) that failed with ``status``, naming the table or file
        involved (:meth:`~pyfathom._tablebase.core_access.CoreAccess.probe_error`)."""
        fen = board.fen()
        if status == Status.TOO_MANY_PIECES:
            _ll.raise_error(status, fen, message=(
                f"syzygy tables support up to {_ll.MAX_PIECES} pieces, "
                f"not {chess.popcount(board.occupied)}: {fen}"))
        if status == Status.INVALID_POSITION:
            _ll.raise_error(status, fen,
                            message=f"invalid position ({_invalid_reasons(board)}): {fen}")
        occ = board.occupied_co
        raise self._core_access().probe_error(
            dtz, fen, status, occ[1], occ[0], board.kings, board.queens, board.rooks,
            board.bishops, board.knights, board.pawns, board.ep_square or 0, board.turn)

    def _deferred(self, probe: _ll.ProbeFn, board: chess.Board, deferred: _ll.Deferred) -> int:
        """The slow path of :meth:`probe_wdl`, :meth:`probe_dtz` and
        :meth:`probe`, the lean answer of ``probe`` (:data:`_board_wdl` or
        :data:`_board_dtz`) for a board their answer call deferred:
        ``deferred.args[0]`` is that call's lean result, a failure or
        BOARD_UNCHECKED.  A board the call left to Python (castling rights,
        a type other than :attr:`variant`, an ``occupied_co`` that is no
        list of two ints) raises unless it is a board that plays the
        tablebase's game, which is then probed without the check; a failed
        probe raises."""
        r: int = deferred.args[0]
        if r == _UNCHECKED:
            self._check_supported(board)
            occ = board.occupied_co
            r = probe(self._pinned, occ[1], occ[0], board.queens, board.rooks,
                      board.bishops, board.knights, board.pawns, board.ep_square, board.turn)
            if r >= _FAILED_BELOW:
                return r
        self._fail(probe is _board_dtz, board, r - _ll.LEAN_FAILED)

    # ---- per-position probes (the hot path: one foreign call each) --------
    # The board's attributes are read here, not in C: CPython 3.11's
    # specialized attribute loads cost about 35 instructions each, a C
    # PyObject_GetAttr on a python-chess board about 210 (a C call that read
    # the board itself took 5,150 instructions per probe_wdl against these
    # methods' 4,430, callgrind on bench_python's boards).  The C call (an
    # answer call of board_calls.c) checks castling rights and type(board),
    # reads both colours from the occupied_co list and returns the final
    # object; every other outcome raises _Deferred, whose handler is the
    # slow path (a try costs nothing until it raises on CPython 3.11+).
    # Callgrind, bench_python's first 1,000 boards: 4,330 -> 3,860
    # instructions per probe_wdl against the method that tested the C
    # call's result itself; about 1,130 of them are the interpreter's (the
    # call, the frame, these ten attribute loads).

    def probe_wdl(self, board: chess.Board) -> WDL:
        """Win/draw/loss of ``board`` for the side to move.

        As :meth:`chess.syzygy.Tablebase.probe_wdl`: the outcome under the
        50-move rule, assuming the halfmove clock was just reset (a capture
        or pawn move was played).  :attr:`WDL.CURSED_WIN` and
        :attr:`WDL.BLESSED_LOSS` are wins and losses that the 50-move rule
        turns into draws.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_wdl(chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"))
        WDL.LOSS

        Positions with more pieces than the loaded tables (up to 7) are
        probed as python-chess probes them: captures are resolved first, so
        where a capture into the loaded tables decides the result, that is
        the answer (here the rook takes a piece, into KRvKB or KRvKN, with
        only the 3-4-piece tables loaded); where none does,
        :class:`~pyfathom.MissingTableError` names the missing table.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_wdl(chess.Board("5BrN/8/8/8/8/2k5/8/2K5 b - - 0 1"))
        WDL.WIN

        :raises: :class:`~pyfathom.MissingTableError`,
            :class:`~pyfathom.CastlingRightsError` or
            :class:`~pyfathom.TooManyPiecesError` (all :exc:`KeyError`;
            :meth:`get_wdl` returns a default instead; so is
            :class:`~pyfathom.UnsupportedPositionError` for a board of
            another variant, such as :class:`chess.variant.AtomicBoard`),
            :class:`~pyfathom.InvalidPositionError` (:exc:`ValueError`) for
            an invalid board, :class:`~pyfathom.CorruptTableError`
            (:exc:`OSError`) for a damaged file.
        """
        try:
            return _wdl_answer(self._pinned, board.occupied_co, board.queens, board.rooks,
                               board.bishops, board.knights, board.pawns, board.ep_square,
                               board.turn, board.castling_rights, board)
        except _Deferred as deferred:
            return _WDLS[self._deferred(_board_wdl, board, deferred)]

    def probe_dtz(self, board: chess.Board) -> int:
        """Distance to zeroing (DTZ50'') of ``board`` in plies.

        As :meth:`chess.syzygy.Tablebase.probe_dtz`, value for value:

        =======  =================  ===========================================
        WDL      DTZ                meaning
        =======  =================  ===========================================
        WIN      1 <= n <= 100      a zeroing move is forced in n plies
        CURSED   n > 100            won, but a draw under the 50-move rule
        DRAW     0                  drawn
        BLESSED  n < -100           lost, but a draw under the 50-move rule
        LOSS     -100 <= n <= -1    the opponent zeroes in -n plies
        =======  =================  ===========================================

        The value may be one ply short where the table stores moves
        instead of plies: see :attr:`Probe.dtz_precise` for this caveat,
        and :meth:`probe`, which also says whether this value is exact.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_dtz(chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"))
        -53

        Both WDL and DTZ tables are needed.

        :raises: as :meth:`probe_wdl`; :meth:`get_dtz` returns a default
            instead of the :exc:`KeyError` s.
        """
        try:
            return _dtz_answer(self._pinned, board.occupied_co, board.queens, board.rooks,
                               board.bishops, board.knights, board.pawns, board.ep_square,
                               board.turn, board.castling_rights, board)
        except _Deferred as deferred:
            return self._deferred(_board_dtz, board, deferred) >> 1

    def probe(self, board: chess.Board) -> Probe:
        """WDL, DTZ and whether the DTZ is exact, in one probe.

        Costs what :meth:`probe_dtz` costs; the WDL follows from the DTZ
        (see the table in :meth:`probe_dtz`).  See :attr:`Probe.dtz_precise`
        for the rounding caveat.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe(chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"))
        Probe(wdl=WDL.LOSS, dtz=-53, dtz_precise=False)

        :raises: as :meth:`probe_dtz`.
        """
        try:
            return _probe_answer(self._pinned, board.occupied_co, board.queens, board.rooks,
                                 board.bishops, board.knights, board.pawns, board.ep_square,
                                 board.turn, board.castling_rights, board)
        except _Deferred as deferred:
            return _ll.probe_record(self._pinned, self._deferred(_board_dtz, board, deferred))

    def get_wdl(self, board: chess.Board, default: _T = None) -> Union[WDL, _T]:  # type: ignore[assignment]
        """:meth:`probe_wdl`, but ``default`` where the tables cannot answer
        (a missing table, castling rights, too many pieces).

        Invalid boards, damaged files and a closed tablebase still raise.
        """
        try:
            return self.probe_wdl(board)
        except KeyError:
            return default

    def get_dtz(self, board: chess.Board, default: _T = None) -> Union[int, _T]:  # type: ignore[assignment]
        """:meth:`probe_dtz`, but ``default`` where the tables cannot answer
        (a missing table, castling rights, too many pieces).

        Invalid boards, damaged files and a closed tablebase still raise.
        """
        try:
            return self.probe_dtz(board)
        except KeyError:
            return default

    # ---- root probe ---------------------------------------------------------

    def probe_root(self, board: chess.Board) -> RootProbe:
        """Every legal move of ``board``, probed and ranked best first.

        Move choice follows Fathom's ``tb_probe_root``: keep the win within
        the 50-move rule counted from ``board.halfmove_clock``, shortest DTZ
        when winning, longest when losing.  Playing ``best_move`` for both
        sides from a won position mates without a 50-move draw.  The WDL of
        the root and of each move is under the 50-move rule from the board's
        clock.  See :class:`RootProbe` and :class:`RootMove`.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     root = tb.probe_root(chess.Board("4k3/8/4K3/8/8/8/8/7R w - - 0 1"))
        >>> root.best_move, root.wdl, root.dtz
        (Move.from_uci('h1h8'), WDL.WIN, 1)
        >>> root.moves[0]
        RootMove(move=Move.from_uci('h1h8'), wdl=WDL.WIN, dtz=1, rank=...)

        A checkmated side has no move, WDL LOSS and DTZ -1:

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_root(chess.Board("4k2R/8/4K3/8/8/8/8/8 b - - 1 1"))
        RootProbe(best_move=None, wdl=WDL.LOSS, dtz=-1, moves=[])

        :raises: as :meth:`probe_dtz`.
        """
        if board.castling_rights or type(board) is not self.variant:
            self._check_supported(board)
        occ = board.occupied_co
        res = _ll.probe_root(self._h, occ[1], occ[0], board.kings, board.queens,
                             board.rooks, board.bishops, board.knights,
                             board.pawns, board.ep_square or 0, board.turn,
                             board.halfmove_clock)
        if res.status != Status.OK:
            if res.status in (Status.TOO_MANY_PIECES, Status.INVALID_POSITION):
                self._fail(True, board, res.status)
            _ll.raise_error(res.status, board.fen(), res.detail)
        Move = chess.Move
        moves = [_new_tuple(RootMove, (Move(f, t, p or None), _WDLS[w + 2], d, rank,
                                       bool(open_)))
                 for f, t, p, w, d, rank, open_ in res.moves]
        best = moves[0].move if moves else None
        return RootProbe(best, _WDLS[res.wdl + 2], res.dtz, moves)

    # ---- lichess's precise flag (for pyfathom.server) ----------------------

    def probe_dtz_as_stored(self, board: chess.Board) -> tuple[int, bool]:
        """(DTZ, precise) of ``board``, the flag as lichess's tablebase
        server gives it (its prober, shakmaty-syzygy, sets it).

        The DTZ is :meth:`probe`'s; the flag differs from
        :attr:`Probe.dtz_precise` in two cases.  A DTZ of 1 stored rounded
        stays rounded where a move mates (:meth:`probe` marks it exact).
        Where the table stores the other side to move, the DTZ comes from
        the moves, and when several tie for it the flag is that of the
        first of them in shakmaty-syzygy's move order (:meth:`probe`'s is
        exact when the tied moves together pin the value down).  Standard
        chess only: a variant's tablebase answers as :meth:`probe`.

        >>> b = chess.Board("6k1/8/6K1/8/8/8/8/R7 w - - 99 2")  # Ra8# comes next
        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe(b).dtz_precise, tb.probe_dtz_as_stored(b)
        (True, (1, False))

        :raises: as :meth:`probe_dtz`.
        """
        if board.castling_rights or type(board) is not self.variant:
            self._check_supported(board)
        occ = board.occupied_co
        status, dtz, precise = _ll.probe_dtz_as_stored(
            self._h, occ[1], occ[0], board.kings, board.queens, board.rooks, board.bishops,
            board.knights, board.pawns, board.ep_square or 0, board.turn)
        if status != Status.OK:
            self._fail(True, board, status)
        return dtz, precise

    def read_ahead_moves(self, board: chess.Board) -> None:
        """Ask the system for the table reads that probing ``board`` and
        the position after each of its legal moves will make (WDL and DTZ,
        a capture's DTZ too, and the reads of their DTZ searches), all at once,
        before probing them (``fathom_read_ahead_moves``): on tables not in
        the page cache the probes that follow find their pages read or on
        their way, instead of each waiting for its reads in turn.  What
        :func:`pyfathom.server.lichess.probe_document` calls for 6-7-piece
        positions.  :meth:`probe_root` does it by itself (:attr:`read_ahead`).

        The tables of the position's and its moves' own values are opened
        first; the others (their captures' and searches') are covered once
        a probe has opened them.  Nothing is asked with
        :attr:`read_ahead` ``"off"``, for a variant, or for a board the
        tables cannot probe (no error: the probes that follow raise it).
        Answers never change.  With :attr:`read_ahead` ``"auto"`` (the
        default), one call in 16 looks which of the pages are in memory
        first and asks only for the others; once 4 such looks in a row
        found them all there, the calls between looks ask nothing (on
        tables in memory asking only costs time), until a look finds
        pages missing again.  ``"always"`` asks on every call.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.read_ahead_moves(chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"))
        """
        if board.castling_rights or type(board) is not self.variant:
            return
        occ = board.occupied_co
        _ll.read_ahead_moves(self._h, occ[1], occ[0], board.kings, board.queens, board.rooks,
                             board.bishops, board.knights, board.pawns, board.ep_square or 0,
                             board.turn)
