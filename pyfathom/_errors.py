"""The exceptions pyfathom raises.

Every class derives from :class:`FathomError` *and* from the builtin a caller
of :mod:`chess.syzygy` already catches, so code written for python-chess keeps
working:

* :class:`MissingTableError`, :class:`CastlingRightsError` and
  :class:`TooManyPiecesError` are :exc:`KeyError` s: the position is fine,
  the tables cannot answer.  ``get_wdl`` / ``get_dtz`` return their default
  for these, and only for these.
* :class:`InvalidPositionError` is a :exc:`ValueError`: the board is not a
  legal chess position (``board.is_valid()`` is false).
* :class:`CorruptTableError` is an :exc:`OSError` (through
  :class:`TableFileError`): a table file is damaged.  It names the file.
* :class:`UnsupportedVariantError` is a :exc:`ValueError`: a ``VariantBoard``
  pyfathom has no tables for.

Messages name the position (as a FEN) or the file involved.
"""

from __future__ import annotations

import chess.syzygy

__all__ = [
    "FathomError",
    "UnsupportedPositionError",
    "MissingTableError",
    "CastlingRightsError",
    "TooManyPiecesError",
    "InvalidPositionError",
    "TableFileError",
    "CorruptTableError",
    "UnsupportedVariantError",
]


class FathomError(Exception):
    """Base class of every error raised by pyfathom."""


class _PlainKeyError(KeyError):
    # KeyError.__str__ shows repr(message), quotes and all, because it
    # expects a missing key.  Our argument is a sentence.
    def __str__(self) -> str:
        if len(self.args) == 1:
            return str(self.args[0])
        return super().__str__()


class UnsupportedPositionError(_PlainKeyError, FathomError):
    """The tables cannot hold this position (a :exc:`KeyError`).

    Raised for positions outside what Syzygy tables store; see the
    subclasses.  Raised as such for a board of another game than the
    tablebase's (``board.uci_variant`` is not that of its ``VariantBoard``:
    an atomic board given to standard tables, a standard board given to
    atomic ones), as :mod:`chess.syzygy` raises a :exc:`KeyError` for it.  :meth:`~pyfathom.Tablebase.get_wdl` and
    :meth:`~pyfathom.Tablebase.get_dtz` return their default instead.
    """


class MissingTableError(chess.syzygy.MissingTableError, _PlainKeyError, FathomError):
    """A table needed by the probe is not loaded (a :exc:`KeyError`).

    Also a :class:`chess.syzygy.MissingTableError`.  The message names the
    metric, the table and the position, e.g. ``did not find wdl table KRvK:
    8/8/8/8/8/8/8/KR2k3 w - - 0 1``.
    """

    table: str = ""
    """The material key of the missing table (``"KRvK"``), or ``""``."""
    metric: str = ""
    """``"wdl"`` or ``"dtz"``, or ``""``."""


class CastlingRightsError(UnsupportedPositionError):
    """The position has castling rights; Syzygy tables hold none."""


class TooManyPiecesError(UnsupportedPositionError):
    """The position has more than 7 pieces, more than any Syzygy table holds.

    Positions with more pieces than the loaded tables, up to 7, are probed
    (captures first, as python-chess does) and raise
    :class:`MissingTableError` where a table is missing.
    """


class InvalidPositionError(ValueError, FathomError):
    """The board is not a valid chess position (a :exc:`ValueError`).

    Raised for boards where :meth:`chess.Board.is_valid` is false: a missing
    king, a pawn on the back rank, the side not to move in check, an
    impossible en-passant square, ...  The check is done by the C core, so
    valid boards pay nothing for it.
    """


class TableFileError(OSError, FathomError):
    """A table file could not be read (an :exc:`OSError`).

    ``filename`` holds the path of the file.
    """

    table: str = ""
    metric: str = ""

    def __str__(self) -> str:
        # OSError.__str__ would print "[Errno None] None: <filename>" once
        # filename is set; our message already names the file.
        if len(self.args) == 1:
            return str(self.args[0])
        return super().__str__()


class CorruptTableError(TableFileError):
    """A table file is damaged: wrong magic, wrong size, or data pointing
    outside the file.  ``filename`` holds the path of the file.

    Raised by the probe that meets the damage; ``get_wdl`` / ``get_dtz`` do
    not hide it.  The process never crashes on a damaged file.
    """


class UnsupportedVariantError(ValueError, FathomError):
    """A ``VariantBoard`` without Syzygy tables (a :exc:`ValueError`).

    Raised by :class:`~pyfathom.Tablebase` and
    :func:`~pyfathom.open_tablebase`: pyfathom probes standard chess
    (``.rtbw``/``.rtbz``), atomic (``.atbw``/``.atbz``) and the antichess
    family (suicide ``.stbw``/``.stbz``, giveaway and antichess
    ``.gtbw``/``.gtbz``); other variants, such as crazyhouse, raise this.
    """
