"""pyfathom: fast Syzygy endgame tablebase probing for python-chess.

A drop-in for :mod:`chess.syzygy` (same methods, same answers), backed by a C
core compiled with cffi:

>>> import chess, pyfathom
>>> with pyfathom.open_tablebase(TABLES) as tb:
...     board = chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
...     tb.probe_wdl(board), tb.probe_dtz(board)
(WDL.LOSS, -53)

:mod:`pyfathom.fathom` has the Fathom-compatible calls for engines that keep
their own bitboards.
"""

__version__ = "0.1.0"

try:  # the compiled core: say why it is missing (a clone's folder, mostly)
    __import__("pyfathom._core")
except ModuleNotFoundError as _missing:
    if _missing.name != "pyfathom._core":
        raise
    from pyfathom._source_tree import missing_core_error

    raise missing_core_error(__file__) from None

from pyfathom._errors import (
    CastlingRightsError,
    CorruptTableError,
    FathomError,
    InvalidPositionError,
    MissingTableError,
    TableFileError,
    TooManyPiecesError,
    UnsupportedPositionError,
    UnsupportedVariantError,
)
from pyfathom._tablebase.tablebase import Tablebase, open_tablebase
from pyfathom._types import FAILED, FAILED_DTZ, WDL, Probe, RootMove, RootProbe, Status

__all__ = [
    "__version__",
    "Tablebase",
    "open_tablebase",
    "WDL",
    "Probe",
    "RootMove",
    "RootProbe",
    "FAILED",
    "FAILED_DTZ",
    "Status",
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
