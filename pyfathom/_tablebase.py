"""The Tablebase class: python-chess's chess.syzygy interface over the C core."""

from __future__ import annotations

import os
from types import TracebackType
from typing import TYPE_CHECKING, Iterable, NoReturn, Optional, Sequence, TypeVar, Union

import chess

from pyfathom import _lowlevel as _ll
from pyfathom._errors import UnsupportedPositionError, UnsupportedVariantError
from pyfathom._types import FAILED, FAILED_DTZ, WDL, Probe, RootMove, RootProbe, Status

if TYPE_CHECKING:  # numpy is imported by the first batch call, not with pyfathom
    import numpy as np
    import numpy.typing as npt

__all__ = ["Tablebase", "open_tablebase", "StrPath"]

StrPath = Union[str, "os.PathLike[str]"]
_T = TypeVar("_T")

_FAILED_BELOW = _ll.LEAN_FAILURE_BOUND
_board_wdl = _ll.board_wdl
_board_dtz = _ll.board_dtz
_WDLS = (WDL.LOSS, WDL.BLESSED_LOSS, WDL.DRAW, WDL.CURSED_WIN, WDL.WIN)
"""WDL members indexed by value + 2 (no enum lookup on the hot path)."""
_LOSS, _BLESSED_LOSS, _DRAW, _CURSED_WIN, _WIN = _WDLS
_new_tuple = tuple.__new__

_EMPTY = _ll.open_handle()
"""One C instance without tables, shared by every closed :class:`Tablebase`.

A closed tablebase probes this one, so it answers as python-chess's closed
(emptied) tablebase does, through the very same code path: what needs no
table (KvK) is answered, anything else raises :class:`MissingTableError`.
Nothing is ever added to it (:meth:`Tablebase._own_handle` opens a new
instance first), so it stays empty and holds no mapped file."""
_EMPTY_PINNED = _ll.pin(_EMPTY)


if _ll.BATCH_WDL_FAILED != FAILED or _ll.BATCH_DTZ_FAILED != FAILED_DTZ:  # pragma: no cover
    raise ImportError("pyfathom: FAILED sentinels disagree with the C core")


# The variants whose tables the C core reads, by python-chess's uci_variant:
# the C instance's variant.  Antichess is giveaway under another name (the
# same tables and rules; python-chess tells the boards apart).
_VARIANTS = {
    "chess": _ll.VARIANT_STANDARD,
    "atomic": _ll.VARIANT_ATOMIC,
    "suicide": _ll.VARIANT_SUICIDE,
    "giveaway": _ll.VARIANT_GIVEAWAY,
    "antichess": _ll.VARIANT_GIVEAWAY,
}


def _variant_of(VariantBoard: type[chess.Board]) -> int:
    """The one place that decides which ``VariantBoard`` a :class:`Tablebase`
    probes: standard chess (:class:`chess.Board` or a subclass playing it),
    atomic, suicide, giveaway or antichess.  Returns the C instance's variant.

    :raises: :exc:`TypeError` for anything but a :class:`chess.Board`
        class, :class:`~pyfathom.UnsupportedVariantError` (a
        :exc:`ValueError`) for a variant without Syzygy tables, such as
        :class:`chess.variant.CrazyhouseBoard`.
    """
    if not (isinstance(VariantBoard, type) and issubclass(VariantBoard, chess.Board)):
        raise TypeError(f"VariantBoard must be chess.Board or a subclass, not {VariantBoard!r}")
    uci = VariantBoard.uci_variant
    if uci not in _VARIANTS:
        raise UnsupportedVariantError(
            f"no Syzygy tables for the variant {uci} "
            f"({VariantBoard.__module__}.{VariantBoard.__qualname__}); pyfathom probes "
            f"{', '.join(sorted(_VARIANTS))}")
    return _VARIANTS[str(uci)]


def _invalid_reasons(board: chess.Board) -> str:
    status = board.status()
    names = [flag.name.lower().replace("_", " ") for flag in chess.Status
             if flag and flag.name and status & flag]
    return ", ".join(names) or "rejected by the prober"


class Tablebase:
    """A set of Syzygy tables, probed through pyfathom's C core.

    The interface is python-chess's :class:`chess.syzygy.Tablebase`
    (``Tablebase(*, max_fds=128, VariantBoard=chess.Board)``,
    ``add_directory``, ``add_file``, ``probe_wdl``, ``probe_dtz``,
    ``get_wdl``, ``get_dtz``, ``close``, ``with``), with the same answers,
    plus :meth:`probe` (WDL and DTZ in one call), :meth:`probe_root` (every
    legal move ranked) and numpy batch probes.

    ``max_fds`` is accepted and kept (as :attr:`max_fds`) but bounds
    nothing: python-chess keeps a file descriptor open per mapped table and
    closes the least recently used ones past ``max_fds``, while pyfathom
    closes each descriptor right after mapping its file, so it never holds
    any.

    ``VariantBoard`` (as in python-chess) probes the tables of a chess
    variant instead, with that variant's rules:
    :class:`chess.variant.AtomicBoard` (``.atbw``/``.atbz`` files),
    :class:`chess.variant.SuicideBoard` (``.stbw``/``.stbz``, pawnless
    also ``.gtbw``/``.gtbz``), :class:`chess.variant.GiveawayBoard` and
    :class:`chess.variant.AntichessBoard` (``.gtbw``/``.gtbz``, pawnless
    also ``.stbw``/``.stbz``).  Such a tablebase takes boards of its
    variant only (another board raises
    :class:`~pyfathom.UnsupportedPositionError`, a :exc:`KeyError`); other
    variants raise :class:`~pyfathom.UnsupportedVariantError`.

    Directories and files are only listed when added, and stored as
    absolute paths (a later :func:`os.chdir` does not lose them); a table
    file is memory-mapped the first time a probe needs it.

    **Thread safety:** every probe method may be called from any number of
    threads at once, also with one shared board object (boards are only
    read).  :meth:`add_directory`, :meth:`add_file` and :meth:`close` must
    not overlap with probes.  The per-board probes (:meth:`probe_wdl`,
    :meth:`probe_dtz`, :meth:`probe`) keep the GIL for their half
    microsecond of C; the batch probes release it, and spread their rows
    over threads themselves.

    >>> tb = pyfathom.Tablebase()
    >>> tb.add_directory(TABLES)
    70
    >>> tb.largest
    4
    >>> tb.close()
    """

    __slots__ = ("_h", "_pinned", "_buffers", "max_fds", "variant", "__weakref__")

    _h: _ll.Handle
    """The C instance (for the cffi calls); the shared empty one
    (:data:`_EMPTY`) once closed."""

    _pinned: _ll.Pinned
    """The same instance for the per-board probes (see
    :func:`pyfathom._lowlevel.pin`)."""

    _buffers: list[object]
    """The table bytes given to :meth:`add_table_bytes`, which the C core
    reads in place: kept as long as this object (not cleared by
    :meth:`close`, so a probe still running on the instance can read
    them)."""

    max_fds: Optional[int]
    """As given; bounds nothing (pyfathom keeps no descriptor open)."""

    variant: type[chess.Board]
    """The ``VariantBoard`` (python-chess's attribute of that name)."""

    def __init__(self, *, max_fds: Optional[int] = 128,
                 VariantBoard: type[chess.Board] = chess.Board) -> None:
        c_variant = _variant_of(VariantBoard)
        self.max_fds = max_fds
        self.variant = VariantBoard
        self._h = _ll.open_handle(c_variant)
        self._pinned = _ll.pin(self._h)
        self._buffers = []

    # ---- lifetime ----------------------------------------------------------

    def _handle(self) -> _ll.Handle:
        """The C instance (the empty shared one once closed)."""
        return self._h

    def _own_handle(self) -> _ll.Handle:
        """The instance to add tables to: a new one after :meth:`close`, of
        the variant :attr:`variant` names (the one place that says which)."""
        if self._h is _EMPTY:
            h = _ll.open_handle(_variant_of(self.variant))
            self._pinned = _ll.pin(h)
            self._h = h
        return self._h

    def add_directory(self, directory: StrPath, *, load_wdl: bool = True,
                      load_dtz: bool = True) -> int:
        """Register the tables (``*.rtbw``, ``*.rtbz``) found in a directory.

        Nothing is opened or mapped yet.  A table already registered is
        replaced by the one found here.  The directory is stored as an
        absolute path.  Returns the number of table files found.

        :raises: :exc:`FileNotFoundError` / :exc:`NotADirectoryError` if
            ``directory`` is not a directory.
        """
        path = os.path.abspath(os.fspath(directory))
        if not os.path.isdir(path):
            if os.path.exists(path):
                raise NotADirectoryError(20, "not a directory", path)
            raise FileNotFoundError(2, "no such tablebase directory", path)
        return _ll.add_directory(self._own_handle(), path, load_wdl, load_dtz)

    def add_file(self, path: StrPath, *, load_wdl: bool = True, load_dtz: bool = True) -> int:
        """Register one table file, as :meth:`chess.syzygy.Tablebase.add_file`.

        Returns 1 if ``path`` is a regular file named as a table
        (``KRvK.rtbw`` with ``load_wdl``, ``KRvK.rtbz`` with ``load_dtz``;
        the name must be the normalised one, as python-chess requires), 0
        otherwise, also when it does not exist.  The file is not opened
        yet; its path is stored as an absolute path.  It replaces a file of
        the same table registered before.

        >>> tb = pyfathom.Tablebase()
        >>> tb.add_file(os.path.join(TABLES, "KRvK.rtbw")), tb.add_file("no/KvK.rtbw")
        (1, 0)
        >>> tb.probe_wdl(chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"))
        WDL.LOSS
        >>> tb.close()
        """
        full = os.path.abspath(os.fspath(path))
        if not os.path.isfile(full):
            return 0
        return _ll.add_file(self._own_handle(), full, load_wdl, load_dtz)

    def add_table_bytes(self, name: str, data: "bytes | bytearray | memoryview") -> None:
        """Register one table from bytes already in memory, instead of a file:
        read from an archive, a database or the network.

        ``name`` is the file name the bytes would have (``"KQvK.rtbw"``,
        ``"KRPvKR.rtbz"``).  The bytes are not copied: the C core reads them
        in place, and this tablebase keeps a reference to them; do not
        change them afterwards.  They are checked as a mapped file is (size,
        magic, every offset) by the first probe that needs them, which
        raises :class:`~pyfathom.CorruptTableError` naming
        ``memory:<name>`` for damaged bytes.  A table already registered
        under that name is replaced.

        >>> with pyfathom.Tablebase() as tb:
        ...     tb.add_table_bytes("KQvK.rtbw", open(f"{TABLES}/KQvK.rtbw", "rb").read())
        ...     tb.probe_wdl(chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1"))
        WDL.WIN

        :raises ValueError: ``name`` is not the name of a table file.
        """
        self._buffers.append(_ll.add_table_memory(self._own_handle(), name, data))

    @property
    def largest(self) -> int:
        """Pieces in the largest WDL table registered (Fathom's
        ``TB_LARGEST``); 0 when there is none.  Positions with more pieces
        are probed too, as python-chess probes them (see :meth:`probe_wdl`)."""
        return _ll.largest(self._h)

    @property
    def mapped_count(self) -> int:
        """Table files memory-mapped so far (they are mapped on first use)."""
        return _ll.mapped_count(self._h)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`, until tables are added again."""
        return self._h is _EMPTY

    def close(self) -> None:
        """Unmap every table and free the C instance.

        As python-chess's ``close()``, the object stays usable as an empty
        tablebase: probes that need no table (KvK) answer, the others raise
        :class:`~pyfathom.MissingTableError` (so ``get_*`` return their
        default), and :meth:`add_directory` / :meth:`add_file` fill it
        again.  Closing twice is fine.  Closing while other threads are
        inside a probe is safe: each probe holds a reference to the C
        instance for the length of its call, and the instance is freed when
        the last such reference goes (at once when no probe is running;
        under CPython's reference counting this is deterministic).
        """
        # _h first: a probe that sees the empty _pinned then sees closed.
        self._h = _EMPTY
        self._pinned = _EMPTY_PINNED

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]],
                 exc_value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._h is _EMPTY:
            return "<pyfathom.Tablebase (closed)>"
        return f"<pyfathom.Tablebase largest={self.largest}>"

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

    def _fail(self, full_probe: _ll.ProbeFn, board: chess.Board, status: int) -> NoReturn:
        """Raise the exception for a probe of ``board`` that failed with
        ``status``; ``full_probe`` (:data:`~pyfathom._lowlevel.probe_wdl_raw`
        or ``probe_dtz_raw``) repeats it for the table or file involved."""
        fen = board.fen()
        message = None
        detail = None
        if status == Status.TOO_MANY_PIECES:
            message = (f"syzygy tables support up to {_ll.MAX_PIECES} pieces, "
                       f"not {chess.popcount(board.occupied)}: {fen}")
        elif status == Status.INVALID_POSITION:
            message = f"invalid position ({_invalid_reasons(board)}): {fen}"
        else:
            occ = board.occupied_co
            _, detail = _ll.probe_detail(full_probe, self._h, occ[1], occ[0],
                                         board.kings, board.queens, board.rooks,
                                         board.bishops, board.knights, board.pawns,
                                         board.ep_square or 0, board.turn)
        _ll.raise_error(status, fen, detail, message)

    def _bitboard_error(self, dtz: bool, white: int, black: int, kings: int, queens: int,
                        rooks: int, bishops: int, knights: int, pawns: int, ep: int,
                        turn: bool, status: int) -> Exception:
        """The exception for one row of a bitboard batch probe that failed
        with ``status`` (for :mod:`pyfathom.batch_files`, which reports bad
        rows by line): the probe is repeated alone to learn the table or
        file involved.  ``status`` is kept when the repeat succeeds (a file
        readable again)."""
        full_probe = _ll.probe_dtz_raw if dtz else _ll.probe_wdl_raw
        again, detail = _ll.probe_detail(full_probe, self._handle(), white, black, kings,
                                         queens, rooks, bishops, knights, pawns, ep, turn)
        return _ll.error(again if again != Status.OK else status, "this line", detail)

    # ---- per-position probes (the hot path: one foreign call each) --------

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
        if board.castling_rights or type(board) is not self.variant:
            self._check_supported(board)
        occ = board.occupied_co
        r = _board_wdl(self._pinned, occ[1], occ[0], board.queens, board.rooks,
                       board.bishops, board.knights, board.pawns,
                       board.ep_square, board.turn)
        if r < _FAILED_BELOW:
            self._fail(_ll.probe_wdl_raw, board, r - _ll.LEAN_FAILED)
        return _WDLS[r]

    def probe_dtz(self, board: chess.Board) -> int:
        """Distance to zeroing (DTZ50'') of ``board`` in plies.

        As :meth:`chess.syzygy.Tablebase.probe_dtz`, value for value:

        ======  =================  ===========================================
        WDL     DTZ                meaning
        ======  =================  ===========================================
        WIN     1 <= n <= 100      a zeroing move is forced in n plies
        CURSED  n > 100            won, but a draw under the 50-move rule
        DRAW    0                  drawn
        BLESSED n < -100           lost, but a draw under the 50-move rule
        LOSS    -100 <= n <= -1    the opponent zeroes in -n plies
        ======  =================  ===========================================

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
        if board.castling_rights or type(board) is not self.variant:
            self._check_supported(board)
        occ = board.occupied_co
        r = _board_dtz(self._pinned, occ[1], occ[0], board.queens, board.rooks,
                       board.bishops, board.knights, board.pawns,
                       board.ep_square, board.turn)
        if r < _FAILED_BELOW:
            self._fail(_ll.probe_dtz_raw, board, r - _ll.LEAN_FAILED)
        return r >> 1

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
        if board.castling_rights or type(board) is not self.variant:
            self._check_supported(board)
        occ = board.occupied_co
        r = _board_dtz(self._pinned, occ[1], occ[0], board.queens, board.rooks,
                       board.bishops, board.knights, board.pawns,
                       board.ep_square, board.turn)
        if r < _FAILED_BELOW:
            self._fail(_ll.probe_dtz_raw, board, r - _ll.LEAN_FAILED)
        dtz = r >> 1
        # The WDL follows from the DTZ (python-chess's table, see probe_dtz).
        if dtz > 0:
            wdl = _WIN if dtz <= 100 else _CURSED_WIN
        elif dtz < 0:
            wdl = _LOSS if dtz >= -100 else _BLESSED_LOSS
        else:
            wdl = _DRAW
        return _new_tuple(Probe, (wdl, dtz, r & 1 == 1))

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
                self._fail(_ll.probe_dtz_raw, board, res.status)
            _ll.raise_error(res.status, board.fen(), res.detail)
        Move = chess.Move
        moves = [_new_tuple(RootMove, (Move(f, t, p or None), _WDLS[w + 2], d, rank))
                 for f, t, p, w, d, rank in res.moves]
        best = moves[0].move if moves else None
        return RootProbe(best, _WDLS[res.wdl + 2], res.dtz, moves)

    # ---- batches ------------------------------------------------------------

    def _piece_limit(self) -> int:
        """Rows with more pieces fail without a probe: what any table holds,
        or for a variant python-chess's limit (one piece more, where
        captures lead into the tables)."""
        if self.variant.uci_variant == "chess":
            return _ll.MAX_PIECES
        return _ll.MAX_PIECES + 1

    def _check_rows_variant(self, variant: Optional[str]) -> None:
        game = self.variant.uci_variant
        if variant is not None and variant != game:
            raise UnsupportedPositionError(
                f"tablebase has been opened for {game}, probed with rows of {variant}")

    def probe_wdl_many(self, boards: Iterable[chess.Board], *,
                       threads: Optional[int] = None,
                       status: Optional[npt.NDArray[np.uint8]] = None) -> npt.NDArray[np.int8]:
        """:meth:`probe_wdl` for many boards: an ``int8`` array.

        Rows that cannot be probed (a missing table, castling rights, too
        many pieces, a chess variant, an invalid board) hold
        :data:`pyfathom.FAILED`; one bad row never raises.  The boards are
        read in one pass, then probed in one C call without the GIL.
        ``status``: as in :meth:`probe_wdl_bitboards` (the boards must then
        be a sequence, to know their number).

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_wdl_many([chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"),
        ...                        chess.Board()])
        array([  -2, -128], dtype=int8)
        """
        from pyfathom import _batch_arrays

        out: npt.NDArray[np.int8] = _batch_arrays.probe_many(
            self._h, self._piece_limit(), boards, False, threads, status,
            str(self.variant.uci_variant))
        return out

    def probe_dtz_many(self, boards: Iterable[chess.Board], *,
                       threads: Optional[int] = None,
                       status: Optional[npt.NDArray[np.uint8]] = None,
                       precise: Optional[npt.NDArray[np.uint8]] = None) -> npt.NDArray[np.int16]:
        """:meth:`probe_dtz` for many boards: an ``int16`` array, with
        :data:`pyfathom.FAILED_DTZ` (-32768) where a row failed.
        ``status`` and ``precise``: as in :meth:`probe_dtz_bitboards`.

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_dtz_many([chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")])
        array([-53], dtype=int16)
        """
        from pyfathom import _batch_arrays

        out: npt.NDArray[np.int16] = _batch_arrays.probe_many(
            self._h, self._piece_limit(), boards, True, threads, status,
            str(self.variant.uci_variant), precise)
        return out

    def probe_wdl_bitboards(self, white: npt.ArrayLike, black: npt.ArrayLike,
                            kings: npt.ArrayLike, queens: npt.ArrayLike,
                            rooks: npt.ArrayLike, bishops: npt.ArrayLike,
                            knights: npt.ArrayLike, pawns: npt.ArrayLike,
                            ep: npt.ArrayLike, turn: npt.ArrayLike, *,
                            threads: Optional[int] = None,
                            status: Optional[npt.NDArray[np.uint8]] = None,
                            variant: Optional[str] = None
                            ) -> npt.NDArray[np.int8]:
        """WDL of n positions given as numpy arrays: an ``int8`` array.

        The eight masks are ``uint64`` arrays laid out as python-chess's
        ``occupied_co[WHITE]``, ``occupied_co[BLACK]``, ``kings`` ...
        ``pawns`` (square 0 = a1); ``ep`` is the en-passant square (0 for
        none, else 0..63) and ``turn`` 1 for white to move, 0 for black, in
        any integer dtype.  Contiguous arrays are passed to C without a copy.
        Castling rights are not part of the input: rows are probed as if
        there were none.  Failed rows hold :data:`pyfathom.FAILED`.

        ``threads``: worker threads for the C loop (None: every core).  The
        GIL is released for the whole call.  The rows are probed in slices
        of up to 65,536, each sorted by where its rows' values lie in the
        tables (the answers stay in the input's order), so that rows sharing
        a block of a table are decoded by one walk through it.  Working
        memory: 16 bytes per row of a slice and about 2 KB per thread, so at
        most about 1 MB per thread however long the input, and nothing that
        grows with the tables.

        ``status``: None, or a writable ``uint8`` array as long as the input,
        which receives each row's :class:`~pyfathom.Status`: why a row
        failed (``Status.OK`` where it was answered).

        ``variant``: the ``uci_variant`` of the game the rows come from
        (``"atomic"``, ...); None: the tablebase's.  Rows of another game
        than the tablebase's raise :class:`~pyfathom.UnsupportedPositionError`
        (a :exc:`KeyError`), as a board of it does.

        >>> import numpy as np
        >>> b = chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
        >>> cols = [np.array([v], dtype=np.uint64) for v in (
        ...     b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings,
        ...     b.queens, b.rooks, b.bishops, b.knights, b.pawns)]
        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_wdl_bitboards(*cols, ep=np.array([0]), turn=np.array([0]))
        array([-2], dtype=int8)

        A row that is not a legal position (a pawn on the first rank) fails,
        and ``status`` says why:

        >>> b = chess.Board("8/2K5/4B3/8/8/8/4k3/P7 b - - 0 1")
        >>> cols = [np.array([v], dtype=np.uint64) for v in (
        ...     b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings,
        ...     b.queens, b.rooks, b.bishops, b.knights, b.pawns)]
        >>> why = np.empty(1, dtype=np.uint8)
        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_wdl_bitboards(*cols, ep=[0], turn=[0], status=why)
        array([-128], dtype=int8)
        >>> pyfathom.Status(why[0])
        Status.INVALID_POSITION

        :raises: :exc:`TypeError` for an argument of the wrong dtype kind,
            :exc:`ValueError` for a wrong shape, a length that differs from
            ``white``'s, or a value out of range.
        """
        from pyfathom import _batch_arrays

        self._check_rows_variant(variant)
        out: npt.NDArray[np.int8] = _batch_arrays.probe_arrays(
            self._h, (white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn),
            False, threads, status)
        return out

    def probe_dtz_bitboards(self, white: npt.ArrayLike, black: npt.ArrayLike,
                            kings: npt.ArrayLike, queens: npt.ArrayLike,
                            rooks: npt.ArrayLike, bishops: npt.ArrayLike,
                            knights: npt.ArrayLike, pawns: npt.ArrayLike,
                            ep: npt.ArrayLike, turn: npt.ArrayLike, *,
                            threads: Optional[int] = None,
                            status: Optional[npt.NDArray[np.uint8]] = None,
                            variant: Optional[str] = None,
                            precise: Optional[npt.NDArray[np.uint8]] = None
                            ) -> npt.NDArray[np.int16]:
        """DTZ of n positions given as numpy arrays: an ``int16`` array with
        :data:`pyfathom.FAILED_DTZ` at failed rows.  Arguments as
        :meth:`probe_wdl_bitboards`, and:

        ``precise``: None, or a writable ``uint8`` array as long as the
        input, which receives each row's :attr:`Probe.dtz_precise` (1 where
        the DTZ is exact, 0 where it may be one ply short or the row
        failed), filled in the same C call: what :meth:`probe` tells of one
        board, for n rows at once.

        >>> import numpy as np
        >>> b = chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
        >>> cols = [np.array([v], dtype=np.uint64) for v in (
        ...     b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings,
        ...     b.queens, b.rooks, b.bishops, b.knights, b.pawns)]
        >>> exact = np.empty(1, dtype=np.uint8)
        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_dtz_bitboards(*cols, ep=[0], turn=[0], precise=exact), exact
        (array([-53], dtype=int16), array([0], dtype=uint8))
        """
        from pyfathom import _batch_arrays

        self._check_rows_variant(variant)
        out: npt.NDArray[np.int16] = _batch_arrays.probe_arrays(
            self._h, (white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn),
            True, threads, status, precise)
        return out

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
            self._fail(_ll.probe_dtz_raw, board, status)
        return dtz, precise

    def probe_dtz_bitboards_as_stored(
            self, white: npt.ArrayLike, black: npt.ArrayLike, kings: npt.ArrayLike,
            queens: npt.ArrayLike, rooks: npt.ArrayLike, bishops: npt.ArrayLike,
            knights: npt.ArrayLike, pawns: npt.ArrayLike, ep: npt.ArrayLike,
            turn: npt.ArrayLike, *, precise: npt.NDArray[np.uint8],
            threads: Optional[int] = None, status: Optional[npt.NDArray[np.uint8]] = None
            ) -> npt.NDArray[np.int16]:
        """:meth:`probe_dtz_bitboards` with the precise flags of
        :meth:`probe_dtz_as_stored` in ``precise`` (the same DTZ)."""
        from pyfathom import _batch_arrays

        out: npt.NDArray[np.int16] = _batch_arrays.probe_arrays(
            self._h, (white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn),
            True, threads, status, precise, as_stored=True)
        return out


def open_tablebase(directory: Union[StrPath, Sequence[StrPath]], *, load_wdl: bool = True,
                   load_dtz: bool = True, max_fds: Optional[int] = 128,
                   VariantBoard: type[chess.Board] = chess.Board) -> Tablebase:
    """Open the Syzygy tables of a directory: :func:`chess.syzygy.open_tablebase`.

    ``Tablebase(max_fds=max_fds, VariantBoard=VariantBoard)``, then
    :meth:`~Tablebase.add_directory`, as python-chess.  As an extra,
    ``directory`` may also be a list of directories, or a string of
    directories separated by :data:`os.pathsep` (as ``$SYZYGY_PATH``) that
    is not itself a directory; empty entries are skipped.  Only the
    directory listing happens now; tables are mapped when probed.  See
    :class:`Tablebase` for ``max_fds`` (accepted, bounds nothing) and
    ``VariantBoard`` (standard chess, atomic, suicide, giveaway, antichess).

    Probing needs the table of the position's material and of every material
    its captures and promotions lead to.

    >>> with pyfathom.open_tablebase(TABLES) as tb:
    ...     tb.largest
    4

    ``VariantBoard``: the tables of a chess variant, as in python-chess
    (see :class:`Tablebase`):

    >>> import chess.variant
    >>> with pyfathom.open_tablebase(TABLES, VariantBoard=chess.variant.AtomicBoard) as tb:
    ...     tb.largest  # TABLES holds standard tables only
    0

    :raises: :exc:`FileNotFoundError` if a directory does not exist,
        :class:`~pyfathom.UnsupportedVariantError` for a ``VariantBoard``
        of a chess variant without Syzygy tables.
    """
    if isinstance(directory, (str, os.PathLike)):
        from pyfathom.tables import split_path_list  # "a:b" as tb_init and $SYZYGY_PATH

        directories: Sequence[StrPath] = split_path_list(directory)
    elif isinstance(directory, bytes):
        directories = [directory]
    else:
        directories = directory
    tb = Tablebase(max_fds=max_fds, VariantBoard=VariantBoard)
    try:
        for path in directories:
            tb.add_directory(path, load_wdl=load_wdl, load_dtz=load_dtz)
    except BaseException:
        tb.close()
        raise
    return tb
