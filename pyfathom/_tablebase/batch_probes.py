"""The batch probes of :class:`pyfathom.Tablebase`: many boards, or
positions given as numpy arrays, in one C call without the GIL."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional

import chess

from pyfathom._bindings import lowlevel as _ll
from pyfathom._errors import UnsupportedPositionError

if TYPE_CHECKING:  # numpy is imported by the first batch call, not with pyfathom
    import numpy as np
    import numpy.typing as npt

    from pyfathom._tablebase.core_access import CoreAccess


class BatchProbes:
    """The batch probes of :class:`~pyfathom.Tablebase`, one of its base
    classes: it holds no state of its own (the class is documented there)."""

    __slots__ = ()

    # Tablebase's slots and internal interface (see there), declared for
    # the type checker.
    _h: _ll.Handle
    variant: type[chess.Board]

    if TYPE_CHECKING:
        def _core_access(self) -> CoreAccess: ...

    # ---- batches ------------------------------------------------------------

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
        many pieces, a board of another game, an invalid board) hold
        :data:`pyfathom.FAILED`; one bad row never raises.  The boards are
        read in one pass, then probed in one C call without the GIL.
        ``status``: as in :meth:`probe_wdl_bitboards` (the boards must then
        be a sequence, to know their number).

        >>> with pyfathom.open_tablebase(TABLES) as tb:
        ...     tb.probe_wdl_many([chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"),
        ...                        chess.Board()])
        array([  -2, -128], dtype=int8)
        """
        from pyfathom._tablebase import batch_arrays as _batch_arrays

        out: npt.NDArray[np.int8] = _batch_arrays.probe_many(
            self._h, self._core_access().piece_limit, boards, False, threads, status,
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
        from pyfathom._tablebase import batch_arrays as _batch_arrays

        out: npt.NDArray[np.int16] = _batch_arrays.probe_many(
            self._h, self._core_access().piece_limit, boards, True, threads, status,
            str(self.variant.uci_variant), precise)
        return out

    # The bitboard probes share one body (_probe_columns); their ten array
    # parameters stay written out in each signature, as public methods'
    # parameters are (help(), the type checker and the docs show them).
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
        of up to 1,048,576, in table order (the answers stay in the input's
        order), so that rows sharing a block of a table are decoded by one
        walk through it.  Working memory: 16 bytes per row of a slice (20
        when a 7-piece table is probed), about 0.74 MB per thread (less
        under 1,024 rows) and 0.52 MB for read-ahead unless it is off, so
        at most about 22 MB per thread however long the input, and nothing
        that grows with the tables.

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
        out: npt.NDArray[np.int8] = self._probe_columns(
            (white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn),
            False, threads, status, variant)
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
        out: npt.NDArray[np.int16] = self._probe_columns(
            (white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn),
            True, threads, status, variant, precise)
        return out

    def _probe_columns(self, columns: tuple[npt.ArrayLike, ...], dtz: bool,
                       threads: Optional[int], status: Optional[npt.NDArray[np.uint8]],
                       variant: Optional[str],
                       precise: Optional[npt.NDArray[np.uint8]] = None,
                       as_stored: bool = False) -> Any:
        """The one body of :meth:`probe_wdl_bitboards`,
        :meth:`probe_dtz_bitboards` and :meth:`probe_dtz_bitboards_as_stored`
        (their signatures stay written out, each with its parameters and its
        return type: help(), the type checker and the docs show them)."""
        from pyfathom._tablebase import batch_arrays as _batch_arrays

        self._check_rows_variant(variant)
        return _batch_arrays.probe_arrays(self._h, columns, dtz, threads, status, precise,
                                          as_stored=as_stored)

    def probe_dtz_bitboards_as_stored(
            self, white: npt.ArrayLike, black: npt.ArrayLike, kings: npt.ArrayLike,
            queens: npt.ArrayLike, rooks: npt.ArrayLike, bishops: npt.ArrayLike,
            knights: npt.ArrayLike, pawns: npt.ArrayLike, ep: npt.ArrayLike,
            turn: npt.ArrayLike, *, precise: npt.NDArray[np.uint8],
            threads: Optional[int] = None, status: Optional[npt.NDArray[np.uint8]] = None
            ) -> npt.NDArray[np.int16]:
        """:meth:`probe_dtz_bitboards` with the precise flags of
        :meth:`~pyfathom.Tablebase.probe_dtz_as_stored` in ``precise`` (the
        same DTZ)."""
        out: npt.NDArray[np.int16] = self._probe_columns(
            (white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn),
            True, threads, status, None, precise, as_stored=True)
        return out
