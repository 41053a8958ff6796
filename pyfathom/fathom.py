"""Fathom-compatible low-level calls, for engines with their own bitboards.

The functions and constants of Fathom's ``tbprobe.h`` with the same names,
arguments and bit layouts, over one process-wide default tablebase (the C
facade in ``src/fathom/tbprobe.h``):

>>> from pyfathom import fathom
>>> fathom.tb_init(TABLES)
True
>>> fathom.TB_LARGEST
4
>>> import chess
>>> b = chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
>>> fathom.tb_probe_wdl(b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK],
...                     b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns,
...                     0, 0, 0, b.turn) == fathom.TB_LOSS
True
>>> fathom.tb_free()

Squares are 0 = a1 ... 63 = h8, ``turn`` is true for white to move, ``ep`` is
the en-passant square or 0.  WDL values are Fathom's 0..4 (:data:`TB_LOSS` ..
:data:`TB_WIN`), not python-chess's -2..2.

``TB_LARGEST`` is read live from C on every access (``fathom.TB_LARGEST``), so
it is current after :func:`tb_init` and :func:`tb_free`; :func:`largest` is
the same as a function.  ``from pyfathom.fathom import TB_LARGEST`` copies the
value of that moment, as in C.

For new code, :class:`pyfathom.Tablebase` is the better interface: any number
of instances, exceptions that say what went wrong, and python-chess boards.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Union

from pyfathom._bindings import lowlevel as _lowlevel
from pyfathom._core import ffi, lib

__all__ = [
    "tb_init", "tb_free", "largest", "tb_probe_wdl", "tb_probe_root",
    "tb_probe_root_dtz", "tb_probe_root_wdl",
    "TB_LOSS", "TB_BLESSED_LOSS", "TB_DRAW", "TB_CURSED_WIN", "TB_WIN",
    "TB_PROMOTES_NONE", "TB_PROMOTES_QUEEN", "TB_PROMOTES_ROOK",
    "TB_PROMOTES_BISHOP", "TB_PROMOTES_KNIGHT",
    "TB_RESULT_WDL_MASK", "TB_RESULT_TO_MASK", "TB_RESULT_FROM_MASK",
    "TB_RESULT_PROMOTES_MASK", "TB_RESULT_EP_MASK", "TB_RESULT_DTZ_MASK",
    "TB_RESULT_WDL_SHIFT", "TB_RESULT_TO_SHIFT", "TB_RESULT_FROM_SHIFT",
    "TB_RESULT_PROMOTES_SHIFT", "TB_RESULT_EP_SHIFT", "TB_RESULT_DTZ_SHIFT",
    "TB_RESULT_FAILED", "TB_RESULT_CHECKMATE", "TB_RESULT_STALEMATE",
    "TB_MAX_MOVES", "TB_MAX_CAPTURES", "TB_MAX_PLY",
    "TB_CASTLING_K", "TB_CASTLING_Q", "TB_CASTLING_k", "TB_CASTLING_q",
    "TB_GET_WDL", "TB_GET_TO", "TB_GET_FROM", "TB_GET_PROMOTES", "TB_GET_EP",
    "TB_GET_DTZ", "TB_SET_WDL", "TB_SET_TO", "TB_SET_FROM", "TB_SET_PROMOTES",
    "TB_SET_EP", "TB_SET_DTZ", "TB_MOVE_FROM", "TB_MOVE_TO", "TB_MOVE_PROMOTES",
]

TB_LOSS: int = lib.TB_LOSS
"""Fathom's WDL 0: a loss for the side to move (python-chess's -2)."""
TB_BLESSED_LOSS: int = lib.TB_BLESSED_LOSS
"""Fathom's WDL 1: lost, but drawn under the 50-move rule (python-chess's -1)."""
TB_DRAW: int = lib.TB_DRAW
"""Fathom's WDL 2: a draw (python-chess's 0)."""
TB_CURSED_WIN: int = lib.TB_CURSED_WIN
"""Fathom's WDL 3: won, but drawn under the 50-move rule (python-chess's 1)."""
TB_WIN: int = lib.TB_WIN
"""Fathom's WDL 4: a win for the side to move (python-chess's 2)."""

TB_PROMOTES_NONE: int = lib.TB_PROMOTES_NONE
"""Promotion field of a packed root result: no promotion."""
TB_PROMOTES_QUEEN: int = lib.TB_PROMOTES_QUEEN
"""Promotion field of a packed root result: to a queen."""
TB_PROMOTES_ROOK: int = lib.TB_PROMOTES_ROOK
"""Promotion field of a packed root result: to a rook."""
TB_PROMOTES_BISHOP: int = lib.TB_PROMOTES_BISHOP
"""Promotion field of a packed root result: to a bishop."""
TB_PROMOTES_KNIGHT: int = lib.TB_PROMOTES_KNIGHT
"""Promotion field of a packed root result: to a knight."""

TB_RESULT_WDL_MASK: int = lib.TB_RESULT_WDL_MASK
"""Bits of a packed root result holding its WDL (0..4, :data:`TB_LOSS` .. :data:`TB_WIN`)."""
TB_RESULT_TO_MASK: int = lib.TB_RESULT_TO_MASK
"""Bits of a packed root result holding the move's destination square."""
TB_RESULT_FROM_MASK: int = lib.TB_RESULT_FROM_MASK
"""Bits of a packed root result holding the move's origin square."""
TB_RESULT_PROMOTES_MASK: int = lib.TB_RESULT_PROMOTES_MASK
"""Bits of a packed root result holding the promotion (``TB_PROMOTES_*``)."""
TB_RESULT_EP_MASK: int = lib.TB_RESULT_EP_MASK
"""The bit of a packed root result set for an en-passant capture."""
TB_RESULT_DTZ_MASK: int = lib.TB_RESULT_DTZ_MASK
"""Bits of a packed root result holding the (unsigned) DTZ."""
TB_RESULT_WDL_SHIFT: int = lib.TB_RESULT_WDL_SHIFT
"""Shift of the WDL field in a packed root result (see :func:`TB_GET_WDL`)."""
TB_RESULT_TO_SHIFT: int = lib.TB_RESULT_TO_SHIFT
"""Shift of the destination field in a packed root result (see :func:`TB_GET_TO`)."""
TB_RESULT_FROM_SHIFT: int = lib.TB_RESULT_FROM_SHIFT
"""Shift of the origin field in a packed root result (see :func:`TB_GET_FROM`)."""
TB_RESULT_PROMOTES_SHIFT: int = lib.TB_RESULT_PROMOTES_SHIFT
"""Shift of the promotion field in a packed root result (see :func:`TB_GET_PROMOTES`)."""
TB_RESULT_EP_SHIFT: int = lib.TB_RESULT_EP_SHIFT
"""Shift of the en-passant bit in a packed root result (see :func:`TB_GET_EP`)."""
TB_RESULT_DTZ_SHIFT: int = lib.TB_RESULT_DTZ_SHIFT
"""Shift of the DTZ field in a packed root result (see :func:`TB_GET_DTZ`)."""

TB_RESULT_FAILED: int = lib.TB_RESULT_FAILED
"""Returned by :func:`tb_probe_wdl` / :func:`tb_probe_root` when the probe
failed (missing table, castling rights, too many pieces, ...)."""
TB_RESULT_CHECKMATE: int = lib.TB_RESULT_CHECKMATE
""":func:`tb_probe_root` result: the side to move is checkmated."""
TB_RESULT_STALEMATE: int = lib.TB_RESULT_STALEMATE
""":func:`tb_probe_root` result: the side to move is stalemated."""

TB_MAX_MOVES: int = lib.TB_MAX_MOVES
"""Room for every legal move of a position plus its end mark: the size of
C's ``results`` array for ``tb_probe_root`` (:func:`tb_probe_root` here
returns a list)."""
TB_MAX_CAPTURES: int = lib.TB_MAX_CAPTURES
"""At most this many captures in a position (Fathom's bound for its capture lists)."""
TB_MAX_PLY: int = lib.TB_MAX_PLY
"""Fathom's bound on a line's length in plies."""

TB_CASTLING_K: int = lib.TB_CASTLING_K
"""Castling bit: white king side (any castling right makes a probe fail)."""
TB_CASTLING_Q: int = lib.TB_CASTLING_Q
"""Castling bit: white queen side."""
TB_CASTLING_k: int = lib.TB_CASTLING_k
"""Castling bit: black king side."""
TB_CASTLING_q: int = lib.TB_CASTLING_q
"""Castling bit: black queen side."""


# ---- Fathom's packing macros (macros with arguments cannot go through cffi) --

def TB_GET_WDL(res: int) -> int:
    """The WDL (0..4) of a packed root result."""
    return (res & TB_RESULT_WDL_MASK) >> TB_RESULT_WDL_SHIFT


def TB_GET_TO(res: int) -> int:
    """The destination square of a packed root result."""
    return (res & TB_RESULT_TO_MASK) >> TB_RESULT_TO_SHIFT


def TB_GET_FROM(res: int) -> int:
    """The origin square of a packed root result."""
    return (res & TB_RESULT_FROM_MASK) >> TB_RESULT_FROM_SHIFT


def TB_GET_PROMOTES(res: int) -> int:
    """The promotion (``TB_PROMOTES_*``) of a packed root result."""
    return (res & TB_RESULT_PROMOTES_MASK) >> TB_RESULT_PROMOTES_SHIFT


def TB_GET_EP(res: int) -> int:
    """1 if the move of a packed root result is an en-passant capture."""
    return (res & TB_RESULT_EP_MASK) >> TB_RESULT_EP_SHIFT


def TB_GET_DTZ(res: int) -> int:
    """The (unsigned) DTZ of a packed root result."""
    return (res & TB_RESULT_DTZ_MASK) >> TB_RESULT_DTZ_SHIFT


def _set(res: int, mask: int, shift: int, value: int) -> int:
    return (res & ~mask & 0xFFFFFFFF) | ((value << shift) & mask)


def TB_SET_WDL(res: int, wdl: int) -> int:
    """``res`` with its WDL field replaced."""
    return _set(res, TB_RESULT_WDL_MASK, TB_RESULT_WDL_SHIFT, wdl)


def TB_SET_TO(res: int, to: int) -> int:
    """``res`` with its destination square replaced."""
    return _set(res, TB_RESULT_TO_MASK, TB_RESULT_TO_SHIFT, to)


def TB_SET_FROM(res: int, from_: int) -> int:
    """``res`` with its origin square replaced."""
    return _set(res, TB_RESULT_FROM_MASK, TB_RESULT_FROM_SHIFT, from_)


def TB_SET_PROMOTES(res: int, promotes: int) -> int:
    """``res`` with its promotion field replaced."""
    return _set(res, TB_RESULT_PROMOTES_MASK, TB_RESULT_PROMOTES_SHIFT, promotes)


def TB_SET_EP(res: int, ep: int) -> int:
    """``res`` with its en-passant flag replaced."""
    return _set(res, TB_RESULT_EP_MASK, TB_RESULT_EP_SHIFT, ep)


def TB_SET_DTZ(res: int, dtz: int) -> int:
    """``res`` with its DTZ field replaced."""
    return _set(res, TB_RESULT_DTZ_MASK, TB_RESULT_DTZ_SHIFT, dtz)


def TB_MOVE_FROM(move: int) -> int:
    """Origin square of a ``TbMove`` (as in :func:`tb_probe_root_dtz`)."""
    return (move >> 6) & 0x3F


def TB_MOVE_TO(move: int) -> int:
    """Destination square of a ``TbMove``."""
    return move & 0x3F


def TB_MOVE_PROMOTES(move: int) -> int:
    """Promotion (``TB_PROMOTES_*``) of a ``TbMove``."""
    return (move >> 12) & 0x7


# ---- the calls ---------------------------------------------------------------

def tb_init(path: Union[str, "os.PathLike[str]", bytes]) -> bool:
    """Load the tables found in a path list (``:``-separated on POSIX,
    ``;`` on Windows; empty entries are fine), replacing any earlier set.

    Returns True, also when no table was found (check :data:`TB_LARGEST`,
    which is then 0); False only when memory runs out.  Not thread safe with
    respect to probes, as in Fathom.
    """
    return bool(lib.tb_init(os.fsencode(path)))


def tb_free() -> None:
    """Unload every table of the default instance."""
    lib.tb_free()


def largest() -> int:
    """``TB_LARGEST``: pieces in the largest table loaded by :func:`tb_init`
    (0 when none)."""
    return int(lib.TB_LARGEST)


def __getattr__(name: str) -> int:
    # PEP 562: TB_LARGEST is read from C at each access, never stale.
    if name == "TB_LARGEST":
        return int(lib.TB_LARGEST)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


tb_probe_wdl: Callable[[int, int, int, int, int, int, int, int, int, int, int, bool], int] = \
    _lowlevel.fathom_tb_probe_wdl
"""``tb_probe_wdl(white, black, kings, queens, rooks, bishops, knights, pawns,
rule50, castling, ep, turn) -> int``: WDL of a position, 0..4
(:data:`TB_LOSS` .. :data:`TB_WIN`), or :data:`TB_RESULT_FAILED`.

As Fathom: fails unless ``rule50 == 0`` and ``castling == 0`` (Syzygy
tables hold neither), when a table is missing, and past 7 pieces; a position
with more than ``TB_LARGEST`` pieces is answered where a capture into the
loaded tables decides it.  Thread safe.  Engines call it at every node, so
it is a compiled function with no Python frame around it, and not a cffi
call: bitboards are read as any int modulo 2**64, ``ep`` may also be None,
``turn`` is read for its truth value, and a ``rule50``, ``castling`` or
``ep`` that is negative or too large fails the probe rather than raising
(see ``pyfathom/_c/board_calls.c``)."""


def tb_probe_root(white: int, black: int, kings: int, queens: int, rooks: int,
                  bishops: int, knights: int, pawns: int, rule50: int,
                  castling: int, ep: int, turn: bool) -> tuple[int, list[int]]:
    """Fathom's ``tb_probe_root``: ``(result, results)``.

    ``result`` is the packed best move (read it with the ``TB_GET_*``
    helpers), :data:`TB_RESULT_CHECKMATE`, :data:`TB_RESULT_STALEMATE` or
    :data:`TB_RESULT_FAILED`.  ``results`` holds one packed result per legal
    move (Fathom's ``results`` array up to its ``TB_RESULT_FAILED``
    terminator); empty when the probe failed or there is no legal move.
    Thread safe (unlike Fathom's).
    """
    results = ffi.new("unsigned[]", TB_MAX_MOVES + 1)
    res = int(lib.tb_probe_root(white, black, kings, queens, rooks, bishops,
                                knights, pawns, rule50, castling, ep, turn,
                                results))
    if res == TB_RESULT_FAILED:
        return res, []
    moves: list[int] = []
    for i in range(TB_MAX_MOVES):
        r = int(results[i])
        if r == TB_RESULT_FAILED:
            break
        moves.append(r)
    return res, moves


RootMoves = list[tuple[int, list[int], int, int]]


def _root_moves(results: Any) -> RootMoves:
    out: RootMoves = []
    for i in range(results.size):
        m = results.moves[i]
        pv = [int(m.pv[j]) for j in range(min(m.pvSize, TB_MAX_PLY))]
        out.append((int(m.move), pv, int(m.tbScore), int(m.tbRank)))
    return out


def tb_probe_root_dtz(white: int, black: int, kings: int, queens: int, rooks: int,
                      bishops: int, knights: int, pawns: int, rule50: int,
                      castling: int, ep: int, turn: bool, has_repeated: bool,
                      use_rule50: bool) -> tuple[int, RootMoves]:
    """Fathom's ``tb_probe_root_dtz``: ``(ok, moves)`` with one
    ``(move, pv, tbScore, tbRank)`` per legal move, ``move`` a ``TbMove``
    (read with :func:`TB_MOVE_FROM`, :func:`TB_MOVE_TO`,
    :func:`TB_MOVE_PROMOTES`).  ``ok`` is 0 when the probe failed."""
    results = ffi.new("struct TbRootMoves *")
    ok = int(lib.tb_probe_root_dtz(white, black, kings, queens, rooks, bishops,
                                   knights, pawns, rule50, castling, ep, turn,
                                   has_repeated, use_rule50, results))
    return ok, (_root_moves(results) if ok else [])


def tb_probe_root_wdl(white: int, black: int, kings: int, queens: int, rooks: int,
                      bishops: int, knights: int, pawns: int, rule50: int,
                      castling: int, ep: int, turn: bool,
                      use_rule50: bool) -> tuple[int, RootMoves]:
    """Fathom's ``tb_probe_root_wdl``: as :func:`tb_probe_root_dtz`, ranking
    by WDL only (for when DTZ tables are missing)."""
    results = ffi.new("struct TbRootMoves *")
    ok = int(lib.tb_probe_root_wdl(white, black, kings, queens, rooks, bishops,
                                   knights, pawns, rule50, castling, ep, turn,
                                   use_rule50, results))
    return ok, (_root_moves(results) if ok else [])
