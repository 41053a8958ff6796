"""The batch probes' numpy side: board lists and arrays in, one C call,
result arrays out.

Imported by the first batch call (:meth:`pyfathom.Tablebase.probe_wdl_many`,
``probe_*_bitboards``...), so that ``import pyfathom`` and the per-board
probes do not load numpy.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Iterable, Optional, Sequence

import chess
import numpy as np
import numpy.typing as npt

from pyfathom._bindings import lowlevel as _ll
from pyfathom._types import FAILED, FAILED_DTZ, Status

_chain = chain.from_iterable


def popcount(a: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint8]:
    """Bits set in each element."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(a)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    counts: npt.NDArray[np.uint8] = table[a.view(np.uint8).reshape(-1, 8)].sum(
        axis=1, dtype=np.uint8)
    return counts


def _collect(boards: Iterable[chess.Board], max_pieces: int, uci_variant: str = "chess"
             ) -> tuple[list[npt.NDArray[np.uint64]], npt.NDArray[np.uint8],
                        npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """(8 contiguous mask arrays, ep, turn, why rows must fail), read from
    the boards in one pass.  Rows of another variant than ``uci_variant`` (the
    tablebase's), with castling rights or
    more than ``max_pieces`` pieces are zeroed (the C core rejects them at once)
    and get their :class:`Status` (0 for the other rows)."""
    flat = np.fromiter(
        _chain((b.occupied_co[1], b.occupied_co[0], b.kings, b.queens, b.rooks,
                b.bishops, b.knights, b.pawns, b.ep_square or 0, b.turn,
                b.castling_rights, b.uci_variant != uci_variant) for b in boards),
        dtype=np.uint64)
    cols = np.ascontiguousarray(flat.reshape(-1, 12).T)
    # Checked in python-chess's order: variant, castling, piece count.
    reasons = np.where(
        cols[11] != 0, np.uint8(Status.VARIANT),
        np.where(cols[10] != 0, np.uint8(Status.CASTLING),
                 np.where(popcount(cols[0] | cols[1]) > max_pieces,
                          np.uint8(Status.TOO_MANY_PIECES), np.uint8(0)))).astype(np.uint8)
    masks = cols[:8]
    bad = reasons != 0
    if bad.any():
        masks[:, bad] = 0
    return ([masks[i] for i in range(8)], cols[8].astype(np.uint8),
            cols[9].astype(np.uint8), reasons)


def probe_many(handle: _ll.Handle, max_pieces: int, boards: Iterable[chess.Board], dtz: bool,
               threads: Optional[int], status: Any, uci_variant: str = "chess",
               precise: Any = None) -> Any:
    """Tablebase.probe_wdl_many / probe_dtz_many."""
    masks, ep, turn, reasons = _collect(boards, max_pieces, uci_variant)
    out, status_out, precise_out = _probe(handle, masks, ep, turn, dtz, threads, status, precise)
    bad = reasons != 0
    out[bad] = FAILED_DTZ if dtz else FAILED
    if status_out is not None:
        status_out[bad] = reasons[bad]
    if precise_out is not None:
        precise_out[bad] = 0
    return out


def probe_arrays(handle: _ll.Handle, columns: Sequence[Any], dtz: bool,
                 threads: Optional[int], status: Any, precise: Any = None,
                 as_stored: bool = False) -> Any:
    """Tablebase.probe_wdl_bitboards / probe_dtz_bitboards (``as_stored``:
    Tablebase.probe_dtz_bitboards_as_stored)."""
    args = _batch_arrays(*columns)
    out, _, _ = _probe(handle, args[:8], args[8], args[9], dtz, threads, status, precise,
                       as_stored)
    return out


def _probe(handle: _ll.Handle, masks: Sequence[npt.NDArray[np.uint64]],
           ep: npt.NDArray[np.uint8], turn: npt.NDArray[np.uint8], dtz: bool,
           threads: Optional[int], status: Any, precise: Any = None,
           as_stored: bool = False) -> tuple[Any, Optional[npt.NDArray[np.uint8]], Optional[npt.NDArray[np.uint8]]]:
    """The one C batch call over checked arrays: (results, the caller's
    status array or None, the caller's precise array or None; ``precise``
    is for DTZ probes only)."""
    out: Any = np.empty(len(ep), dtype=np.int16 if dtz else np.int8)
    status_out = _output_array("status", status, len(out))
    precise_out = _output_array("precise", precise, len(out))
    if len(out):
        _ll.probe_batch(handle, masks, ep, turn, out, _threads(threads), status_out,
                        precise_out if dtz else None, as_stored=as_stored)
    return out, status_out, precise_out


_MASK_NAMES = ("white", "black", "kings", "queens", "rooks", "bishops",
               "knights", "pawns")


def _output_array(name: str, array: Any, n: int) -> Optional[npt.NDArray[np.uint8]]:
    """The caller's ``status`` or ``precise`` output array, checked, or None."""
    if array is None:
        return None
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{name} must be a numpy uint8 array or None, not {type(array).__name__}")
    if array.dtype != np.uint8:
        raise TypeError(f"{name} must be a uint8 array, not {array.dtype}")
    if array.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), not {array.shape}")
    if not array.flags.c_contiguous or not array.flags.writeable:
        raise ValueError(f"{name} must be a contiguous, writable array")
    return array


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be an int or None, not {type(threads).__name__}")
    if threads < 0:
        raise ValueError(f"threads must be >= 0 (0 or None: every core), not {threads}")
    return int(threads)


def _array(name: str, value: Any) -> npt.NDArray[Any]:
    a = np.asarray(value)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-dimensional array, not {a.ndim}-dimensional")
    return a


def _mask_array(name: str, value: Any) -> npt.NDArray[np.uint64]:
    a = _array(name, value)
    kind = a.dtype.kind
    if kind not in "ui":
        raise TypeError(f"{name} must be an array of uint64 bitboards, not {a.dtype}")
    if a.dtype.itemsize == 8:
        # int64 holds the same bits (h8 is the sign bit): reinterpret.
        a = a.view(np.uint64)
    else:
        if kind == "i" and len(a) and a.min() < 0:
            raise ValueError(f"{name} holds a negative {a.dtype} value; use uint64 bitboards")
        a = a.astype(np.uint64)
    return np.ascontiguousarray(a)


def _small_array(name: str, value: Any, top: int) -> npt.NDArray[np.uint8]:
    a = _array(name, value)
    if a.dtype.kind not in "uib":
        raise TypeError(f"{name} must be an array of integers, not {a.dtype}")
    if len(a) and (a.min() < 0 or a.max() > top):
        bad = a[(a < 0) | (a > top)][0]
        raise ValueError(f"{name} values must be in 0..{top}, found {bad}")
    return np.ascontiguousarray(a, dtype=np.uint8)


def _batch_arrays(*columns: Any) -> list[npt.NDArray[Any]]:
    """Validated C-contiguous uint64 x 8 + uint8 x 2 arrays of equal length."""
    arrays: list[npt.NDArray[Any]] = [
        _mask_array(name, col) for name, col in zip(_MASK_NAMES, columns[:8])]
    arrays.append(_small_array("ep", columns[8], 63))
    arrays.append(_small_array("turn", columns[9], 1))
    n = len(arrays[0])
    for name, a in zip(_MASK_NAMES + ("ep", "turn"), arrays):
        if len(a) != n:
            raise ValueError(f"{name} has {len(a)} entries but white has {n}")
    return arrays
