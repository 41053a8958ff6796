"""Thin typed wrappers over the compiled C core (``pyfathom._core``): the
instance, probe, batch, check and FEN-parser calls of ``fathom.h`` and
``fen.h``.

This and its two siblings are the only modules of the Pythonic layer that
import ``ffi`` and ``lib`` (:mod:`pyfathom.fathom`, the Fathom-compatible
module, is the other one): :mod:`pyfathom._bindings.lowlevel_helpers` wraps the
application helpers of ``fathom_helpers.h`` (best move, SAN, game replay),
and :mod:`pyfathom._bindings.clock_rule` the one 50-move rule, for
:meth:`~pyfathom._types.ClockResult.of`.  This module has one small wrapper
per C function and one table turning a status code into an exception
(:func:`error`).  Everything above it (:mod:`pyfathom._tablebase.tablebase`) works
with Python ints, bytes and numpy arrays.

The per-board probes of :class:`~pyfathom.Tablebase` (and Fathom's
``tb_probe_wdl``, :data:`fathom_tb_probe_wdl`) do not go through cffi:
:data:`board_wdl` and :data:`board_dtz` are the lean probes of the core (no
kings, no detail, a small int back) behind a METH_FASTCALL function written
against the CPython API (``pyfathom/_c/board_calls.c``, which says why), and
take the instance as a capsule from :func:`pin`; the answer calls
(:data:`wdl_answer`, :data:`dtz_answer`, :data:`probe_answer`) probe the same
way and return the Tablebase method's final object, raising
:class:`Deferred` for everything else.  On failure,
:func:`probe_detail` repeats the probe through the full form
(:data:`probe_wdl_raw`, :data:`probe_dtz_raw`) with a ``fathom_detail`` to
learn which table or file the error is about.
"""
from __future__ import annotations

import enum
import os
from typing import (TYPE_CHECKING, Any, Callable, NamedTuple, NoReturn, Optional, Sequence,
                    Union)

from pyfathom._errors import (
    CastlingRightsError,
    CorruptTableError,
    FathomError,
    InvalidPositionError,
    MissingTableError,
    TableFileError,
    TooManyPiecesError,
)
from pyfathom._core import ffi, lib
from pyfathom._types import WDL, ClockResult, Probe, Status

Handle = Any
"""A ``fathom_tb *`` cdata, freed by ``ffi.gc`` when its last reference goes."""

ProbeFn = Callable[..., int]

NULL: Any = ffi.NULL


def _check_codes() -> None:
    """Status codes and clock results are defined once, as ``enum
    fathom_status`` and ``enum fathom_clock_result`` in ``fathom.h``;
    :class:`~pyfathom.Status` (adding ``VARIANT`` right after the core's
    last code, then the codes only a line of a file has) and
    :class:`~pyfathom._types.ClockResult` name them for Python.  Refuse to
    import a build whose values disagree, so that no code can mean two
    things."""
    names: list[tuple[enum.IntEnum, str]] = [
        (m, "FATHOM_STATUS_COUNT" if m is Status.VARIANT else
         "FATHOM_OK" if m is Status.OK else f"FATHOM_ERR_{m.name}")
        for m in Status if m <= Status.VARIANT]  # after it: nothing in C to agree with
    names += [(m, f"FATHOM_CLOCK_{m.name}") for m in ClockResult]
    for member, c_name in names:
        value = getattr(lib, c_name, None)
        if value != member.value:  # pragma: no cover
            raise ImportError(f"pyfathom: {member!r} is {member.value} but the C core's "
                              f"{c_name} is {value}")


_check_codes()

# The C instance's variant (fathom_open_variant).
VARIANT_STANDARD: int = lib.FATHOM_VARIANT_STANDARD
VARIANT_ATOMIC: int = lib.FATHOM_VARIANT_ATOMIC
VARIANT_SUICIDE: int = lib.FATHOM_VARIANT_SUICIDE
VARIANT_GIVEAWAY: int = lib.FATHOM_VARIANT_GIVEAWAY

MAX_MOVES: int = lib.FATHOM_MAX_MOVES
MAX_PIECES: int = lib.FATHOM_MAX_PIECES
BATCH_WDL_FAILED: int = lib.FATHOM_BATCH_WDL_FAILED
BATCH_DTZ_FAILED: int = lib.FATHOM_BATCH_DTZ_FAILED

LEAN_FAILED: int = lib.FATHOM_LEAN_FAILED

if not lib.pyfathom_board_calls_install():  # pragma: no cover
    raise ImportError("pyfathom: the per-board probes could not be added to pyfathom._core")
from pyfathom import _core  # noqa: E402 (after the install above)

LEAN_FAILURE_BOUND: int = getattr(_core, "LEAN_FAILURE_BOUND")
"""A lean result below this is LEAN_FAILED + status; above, an answer."""

Pinned = Any
"""A capsule carrying a ``fathom_tb *`` (and references to its owning cdata,
the tablebase's board class, the :class:`~pyfathom.WDL` members and
:class:`Deferred`) into the board calls below (:func:`pin`; for
:data:`board_wdl` / :data:`board_dtz` ``None`` is answered
FATHOM_ERR_ARGUMENT)."""

board_wdl: ProbeFn = getattr(_core, "board_wdl")
"""``board_wdl(pinned, white, black, queens, rooks, bishops, knights, pawns,
ep_square, turn)`` -> wdl + 2, or LEAN_FAILED + status (``fathom_probe_wdl_lean``;
``ep_square`` may be None; FATHOM_ERR_ARGUMENT for ``pinned`` None)."""

board_dtz: ProbeFn = getattr(_core, "board_dtz")
"""``board_dtz``, same arguments -> dtz * 2 + precise, or LEAN_FAILED +
status (``fathom_probe_dtz_lean``)."""


WDL_MEMBERS: tuple[WDL, ...] = tuple(WDL(value) for value in range(-2, 3))
"""The :class:`~pyfathom.WDL` members indexed by value + 2, as the lean WDL
result and the answer calls index them (no enum lookup on the hot path)."""


class Deferred(Exception):
    """What the answer calls (:data:`wdl_answer` ...) raise for every board
    they do not answer, ``args[0]`` the lean result (LEAN_FAILED + status)
    or :data:`BOARD_UNCHECKED`: Tablebase's methods catch it and take their
    slow path, so it never reaches their callers.  (Raising costs nothing on
    the answered path, where a result test in Python would.)"""


wdl_answer: Callable[..., WDL] = getattr(_core, "wdl_answer")
"""``wdl_answer(pinned, occupied_co, queens, rooks, bishops, knights, pawns,
ep_square, turn, castling_rights, board)`` -> the :class:`~pyfathom.WDL`
member, for a board whose type is the pinned board class exactly, with no
castling rights and ``occupied_co`` a list of two ints; anything else
raises :class:`Deferred` (a bitboard that is no int: :exc:`TypeError`)."""

dtz_answer: Callable[..., int] = getattr(_core, "dtz_answer")
"""``dtz_answer``, arguments as :data:`wdl_answer` -> the DTZ (an int)."""

probe_answer: Callable[..., Probe] = getattr(_core, "probe_answer")
"""``probe_answer``, arguments as :data:`wdl_answer` -> the
:class:`~pyfathom.Probe` (its WDL follows from the DTZ, python-chess's table)."""

probe_record: Callable[[Pinned, int], Probe] = getattr(_core, "probe_record")
"""``probe_record(pinned, lean)``: :data:`probe_answer`'s Probe for a lean
DTZ answer of :data:`board_dtz` (so that the WDL follows from the DTZ in
one place, the C one)."""

BOARD_UNCHECKED: int = getattr(_core, "BOARD_UNCHECKED")
"""What :class:`Deferred` carries for a board left to Python (castling
rights, a type other than the pinned class, an ``occupied_co`` that is not
a list of two ints): below LEAN_FAILED + any status."""

fathom_tb_probe_wdl: ProbeFn = getattr(_core, "tb_probe_wdl")
"""Fathom's ``tb_probe_wdl`` on the default instance of ``tbprobe.h``, the
same way (:data:`pyfathom.fathom.tb_probe_wdl`)."""

probe_wdl_raw: ProbeFn = lib.fathom_probe_wdl
"""``fathom_probe_wdl(tb, board, detail) -> packed result`` (``board``: a
``fathom_board *``, :func:`_board`)."""

probe_dtz_raw: ProbeFn = lib.fathom_probe_dtz
"""``fathom_probe_dtz``, same arguments."""


# ---- the status code -> exception table ------------------------------------

_EXCEPTIONS: dict[int, type[Exception]] = {
    Status.MISSING_TABLE: MissingTableError,
    Status.CASTLING: CastlingRightsError,
    Status.TOO_MANY_PIECES: TooManyPiecesError,
    Status.INVALID_POSITION: InvalidPositionError,
    Status.BAD_MAGIC: CorruptTableError,
    Status.BAD_SIZE: CorruptTableError,
    Status.CORRUPT: CorruptTableError,
    Status.IO: TableFileError,
    Status.NO_MEMORY: MemoryError,
    Status.ARGUMENT: FathomError,
}


class Detail(NamedTuple):
    """What a failed call was about (from ``fathom_detail``)."""

    table: str = ""
    metric: str = ""
    path: str = ""


def strerror(status: int) -> str:
    """``fathom_strerror``: a short English description of a status code."""
    text: bytes = ffi.string(lib.fathom_strerror(status))
    return text.decode("utf-8", "replace")


def error(status: int, context: str, detail: Optional[Detail] = None,
          message: Optional[str] = None) -> Exception:
    """The exception for a failed call.

    ``context`` names what was being done (a FEN, a directory); ``message``
    replaces the generated text where the caller knows better.
    """
    cls = _EXCEPTIONS.get(status, FathomError)
    detail = detail or Detail()
    if message is None:
        if status == Status.MISSING_TABLE:
            metric = detail.metric or "syzygy"
            table = detail.table or "(unknown)"
            message = f"did not find {metric} table {table}: {context}"
        elif status == Status.CASTLING:
            message = f"syzygy tables do not contain positions with castling rights: {context}"
        elif issubclass(cls, OSError) and detail.path:
            about = f" ({detail.metric} table {detail.table})" if detail.table else ""
            message = f"{strerror(status)}: {detail.path!r}{about}, while probing {context}"
        else:
            message = f"{strerror(status)}: {context}"
    exc = cls(message)
    if isinstance(exc, OSError) and detail.path:
        exc.filename = detail.path
    if isinstance(exc, (MissingTableError, TableFileError)):
        exc.table = detail.table
        exc.metric = detail.metric
    return exc


def check(status: int, context: str) -> None:
    """Raise :func:`error` unless ``status`` is ``FATHOM_OK``."""
    if status != Status.OK:
        raise error(status, context)


# ---- instance lifetime -----------------------------------------------------

def open_handle(variant: int = 0) -> Handle:
    """``fathom_open_variant``: a new empty instance for the tables of a
    variant (``VARIANT_*``; 0, standard chess, by default).

    ``fathom_close`` runs when the last reference to the returned cdata is
    dropped.  A cffi call holds the cdata (a per-board probe holds the
    capsule from :func:`pin`, which holds the cdata) for its whole length,
    also while the GIL is released, so a concurrent ``close()`` (which only
    drops the owner's references) can never free an instance that a probe
    is still reading.
    """
    out = ffi.new("fathom_tb **")
    check(lib.fathom_open_variant(out, variant), "opening a tablebase")
    return ffi.gc(out[0], lib.fathom_close)


def pin(handle: Handle, variant: type) -> Pinned:
    """The capsule the board calls take for the instance ``handle``, whose
    answer calls probe boards of type ``variant`` exactly (a Tablebase's
    :attr:`~pyfathom.Tablebase.variant`).  It holds a reference to
    ``handle``, so a probe in progress keeps the instance alive as the
    cdata passed to a cffi call does."""
    return getattr(_core, "pin")(handle, int(ffi.cast("uintptr_t", handle)), variant,
                                 WDL_MEMBERS, Deferred, Probe)


def add_directory(handle: Handle, path: str, load_wdl: bool, load_dtz: bool) -> int:
    """``fathom_add_directory``: the number of table files registered."""
    found = ffi.new("unsigned *")
    status = lib.fathom_add_directory(handle, os.fsencode(path), int(load_wdl),
                                      int(load_dtz), found)
    if status != Status.OK:
        raise error(status, f"adding directory {path!r}", Detail(path=path))
    return int(found[0])


def add_prefix_directory(handle: Handle, path: str) -> int:
    """``fathom_add_prefix_directory``: the number of prefix files found."""
    found = ffi.new("unsigned *")
    status = lib.fathom_add_prefix_directory(handle, os.fsencode(path), found)
    if status != Status.OK:
        raise error(status, f"adding prefix directory {path!r}", Detail(path=path))
    return int(found[0])


def add_file(handle: Handle, path: str, load_wdl: bool, load_dtz: bool) -> int:
    """``fathom_add_file``: 1 if the file was registered, else 0."""
    found = ffi.new("unsigned *")
    status = lib.fathom_add_file(handle, os.fsencode(path), int(load_wdl), int(load_dtz),
                                 found)
    if status != Status.OK:
        raise error(status, f"adding file {path!r}", Detail(path=path))
    return int(found[0])


def add_table_memory(handle: Handle, name: str, data: Any) -> Any:
    """``fathom_add_table_memory``: register one table from a bytes-like
    object.  Returns the cffi buffer over it, which must be kept alive (and
    the bytes unchanged) as long as the instance may read them."""
    try:
        encoded = name.encode("ascii")
    except UnicodeEncodeError:
        encoded = b""
    buffer = ffi.from_buffer(data)
    status = lib.fathom_add_table_memory(handle, encoded, buffer, len(buffer))
    if status == Status.ARGUMENT:
        raise ValueError(f"not the file name of a Syzygy table: {name!r} "
                         "(e.g. 'KQvK.rtbw' or 'KRPvKR.rtbz')")
    check(status, f"adding table {name!r} from memory")
    return buffer


def largest(handle: Handle) -> int:
    """``fathom_largest``: pieces of the largest registered WDL table."""
    return int(lib.fathom_largest(handle))


READ_AHEAD_MODES = {"off": 0, "auto": 1, "always": 2}


def set_read_ahead(handle: Handle, mode: str) -> None:
    """``fathom_set_read_ahead`` by name: ``"auto"``, ``"always"`` or ``"off"``."""
    if mode not in READ_AHEAD_MODES:
        raise ValueError(f"read_ahead must be one of {sorted(READ_AHEAD_MODES)}, not {mode!r}")
    check(lib.fathom_set_read_ahead(handle, READ_AHEAD_MODES[mode]), "setting read-ahead")


def read_ahead(handle: Handle) -> str:
    """``fathom_read_ahead`` by name."""
    code = int(lib.fathom_read_ahead(handle))
    return next(name for name, value in READ_AHEAD_MODES.items() if value == code)


def mapped_count(handle: Handle) -> int:
    """``fathom_mapped_count``: table files currently mapped."""
    return int(lib.fathom_mapped_count(handle))


# ---- checking a table file --------------------------------------------------

def new_stop_flag() -> Any:
    """A stop flag for :func:`check_table`: an ``int[1]`` cdata, raised by
    ``flag[0] = 1`` from any thread."""
    return ffi.new("int[1]")


def check_table(path: str, stop: Any = None) -> tuple[int, int, str, bool]:
    """``fathom_check_table_stoppable``: (status, offset of the damage, what
    is wrong, whether it gave up early because ``stop`` (a
    :func:`new_stop_flag`) was raised).  Reads the whole file without the GIL."""
    result = ffi.new("fathom_check_result *")
    stopped = ffi.new("int *")
    status = lib.fathom_check_table_stoppable(os.fsencode(path), result,
                                              NULL if stop is None else stop, stopped)
    what = ffi.string(result.what).decode("utf-8", "replace")
    return int(status), int(result.offset), what, bool(stopped[0])


def table_layout(path: str) -> tuple[int, list[tuple[int, int, int, int, int]]]:
    """``fathom_table_layout``: (status, [(kind, file, side, offset, length)])
    in file order; kind is a ``FATHOM_PART_*`` value."""
    parts = ffi.new("fathom_table_part[]", lib.FATHOM_LAYOUT_MAX_PARTS)
    count = ffi.new("unsigned *")
    status = lib.fathom_table_layout(os.fsencode(path), parts, lib.FATHOM_LAYOUT_MAX_PARTS, count)
    return int(status), [(int(p.kind), int(p.file), int(p.side), int(p.offset), int(p.length))
                         for p in parts[0:count[0]]]


def file_resident(path: str, ranges: Sequence[tuple[int, int]]) -> tuple[int, list[int]]:
    """``fathom_file_resident``: (status, resident bytes per (offset, length))."""
    n = len(ranges)
    offsets = ffi.new("uint64_t[]", [r[0] for r in ranges] or [0])
    lengths = ffi.new("uint64_t[]", [r[1] for r in ranges] or [0])
    resident = ffi.new("uint64_t[]", max(n, 1))
    status = lib.fathom_file_resident(os.fsencode(path), n, offsets, lengths, resident)
    return int(status), [int(resident[i]) for i in range(n)]


# ---- probes ----------------------------------------------------------------

def _detail(d: Any) -> Detail:
    return Detail(
        table=ffi.string(d.table).decode("ascii", "replace"),
        metric=ffi.string(d.metric).decode("ascii", "replace"),
        path=os.fsdecode(ffi.string(d.path)),
    )


def probe_detail(fn: ProbeFn, handle: Handle, white: int, black: int, kings: int,
                 queens: int, rooks: int, bishops: int, knights: int, pawns: int,
                 ep: int, turn: bool) -> tuple[int, Detail]:
    """Repeat a failed :data:`probe_wdl_raw`/:data:`probe_dtz_raw` probe with
    a ``fathom_detail``: (status, detail)."""
    d = ffi.new("fathom_detail *")
    r = fn(handle, _board(white, black, kings, queens, rooks, bishops, knights, pawns, ep,
                          turn, 0), d)
    return r & 0xFF, _detail(d)


def probe_dtz_as_stored(handle: Handle, white: int, black: int, kings: int, queens: int,
                        rooks: int, bishops: int, knights: int, pawns: int, ep: int,
                        turn: int) -> tuple[int, int, bool]:
    """``fathom_probe_dtz_as_stored``: (status, dtz, precise), the precise
    flag lichess's prober reports (see
    :meth:`pyfathom.Tablebase.probe_dtz_as_stored`)."""
    board = _board(white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn, 0)
    r = lib.fathom_probe_dtz_as_stored(handle, board, ffi.NULL)
    return r & 0xFF, r >> 16, bool((r >> 8) & 1)


def read_ahead_moves(handle: Handle, white: int, black: int, kings: int, queens: int,
                     rooks: int, bishops: int, knights: int, pawns: int, ep: int,
                     turn: int) -> int:
    """``fathom_read_ahead_moves``: its status."""
    board = _board(white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn, 0)
    return int(lib.fathom_read_ahead_moves(handle, board))


class RootResult(NamedTuple):
    """What ``fathom_probe_root`` returned."""

    status: int
    moves: list[tuple[int, int, int, int, int, int, int]]
    """(from, to, promotion, wdl, dtz, rank, unsettled) per legal move, best
    first."""
    wdl: int
    dtz: int
    dtz_precise: bool
    detail: Detail
    unsettled: int = 0
    """How many moves on the 50-move edge the settling search left open
    (its budget ran out: they keep their rounded DTZ)."""


def probe_root(handle: Handle, white: int, black: int, kings: int, queens: int,
               rooks: int, bishops: int, knights: int, pawns: int, ep: int,
               turn: bool, rule50: int) -> RootResult:
    """``fathom_probe_root``."""
    moves = ffi.new("fathom_root_move[]", MAX_MOVES)
    count = ffi.new("unsigned *")
    ints = ffi.new("int[3]")
    d = ffi.new("fathom_detail *")
    board = _board(white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn,
                   rule50)
    status = lib.fathom_probe_root(handle, board, moves, count, ints, ints + 1, ints + 2, d)
    if status != Status.OK:
        return RootResult(status, [], 0, 0, False, _detail(d))
    listed = moves[0:count[0]]
    rows = [(getattr(m, "from"), m.to, m.promotion, m.wdl, m.dtz, m.rank, m.unsettled)
            for m in listed]
    return RootResult(status, rows, ints[0], ints[1], bool(ints[2]), Detail(),
                      sum(row[6] for row in rows))


def _board(white: int, black: int, kings: int, queens: int, rooks: int, bishops: int,
           knights: int, pawns: int, ep: int, turn: int, halfmove: int) -> Any:
    """A ``fathom_board`` without castling rights, as the probes of
    ``fathom.h`` and the helpers of ``fathom_helpers.h`` take a position
    (any clock past 100 plies means the same)."""
    return ffi.new("fathom_board *", {
        "white": white, "black": black, "kings": kings, "queens": queens, "rooks": rooks,
        "bishops": bishops, "knights": knights, "pawns": pawns, "ep": ep, "turn": turn,
        "halfmove": min(halfmove, 0xFFFF), "fullmove": 1})


if TYPE_CHECKING:  # numpy is not imported at run time here (see pyfathom._tablebase.batch_arrays)
    import numpy as np
    import numpy.typing as npt

    U64Array = npt.NDArray[np.uint64]
    U8Array = npt.NDArray[np.uint8]


def _optional_u8_output(status: Optional[U8Array]) -> Any:
    return NULL if status is None else ffi.from_buffer("uint8_t[]", status,
                                                       require_writable=True)


def probe_batch(handle: Handle, masks: Sequence[U64Array], ep: U8Array, turn: U8Array,
                out: Union[npt.NDArray[np.int8], npt.NDArray[np.int16]], threads: int,
                status: Optional[U8Array] = None, precise: Optional[U8Array] = None,
                row_order: bool = False, as_stored: bool = False) -> None:
    """``fathom_probe_batch`` over C-contiguous arrays (no copies): WDL when
    ``out`` is int8, DTZ when it is int16; ``masks`` are white, black, kings,
    queens, rooks, bishops, knights, pawns; ``status`` and ``precise`` (DTZ
    only; None or as long as ``out``) receive each row's status and DTZ
    precise flag.  ``row_order``: probe row by row in the given order
    (``FATHOM_BATCH_ROW_ORDER``; same answers, for comparisons).
    ``as_stored``: the precise flags of :func:`probe_dtz_as_stored`
    (``FATHOM_BATCH_AS_STORED``)."""
    bitboards = ffi.new("const uint64_t *[8]",
                        [ffi.from_buffer("const uint64_t[]", a) for a in masks])
    dtz = out.dtype.itemsize == 2
    target = ffi.from_buffer("int16_t[]" if dtz else "int8_t[]", out, require_writable=True)
    check(lib.fathom_probe_batch(
        handle, len(out), bitboards, ffi.from_buffer("const uint8_t[]", ep),
        ffi.from_buffer("const uint8_t[]", turn), NULL if dtz else target,
        target if dtz else NULL, _optional_u8_output(precise), _optional_u8_output(status),
        threads, (lib.FATHOM_BATCH_ROW_ORDER if row_order else 0)
        | (lib.FATHOM_BATCH_AS_STORED if as_stored else 0)),
        "batch DTZ probe" if dtz else "batch WDL probe")


def raise_error(status: int, context: str, detail: Optional[Detail] = None,
                message: Optional[str] = None) -> NoReturn:
    """``raise error(...)``, for callers that want a NoReturn call."""
    raise error(status, context, detail, message)


# ---- the C FEN parser (batch files) -----------------------------------------

FEN_EPD: int = lib.FATHOM_FEN_EPD
"""Flag for :func:`parse_fen_batch`: accept EPD lines (operations after the
four position fields)."""


def parse_fen_batch(data: bytes, offsets: npt.NDArray[np.uintp],
                    lengths: npt.NDArray[np.uintp], flags: int,
                    masks: Sequence[U64Array], ep: U8Array, turn: U8Array,
                    castling: U8Array, fen_begin: npt.NDArray[np.uintp],
                    fen_end: npt.NDArray[np.uintp], status: npt.NDArray[np.int8]) -> int:
    """``fathom_parse_fen_batch``: parse line ``i`` of ``data`` (bytes
    ``offsets[i]`` to ``offsets[i] + lengths[i]``) into row ``i`` of the
    output arrays (``masks``: white, black, kings, queens, rooks, bishops,
    knights, pawns), in one call; ``status`` receives each line's
    ``FATHOM_FEN_*`` code (see :func:`fen_strerror`).  Returns the number of
    lines parsed without error."""
    def out(ctype: str, array: Any) -> Any:
        return ffi.from_buffer(ctype, array, require_writable=True)

    n = len(offsets)
    if n == 0:
        return 0
    return int(lib.fathom_parse_fen_batch(
        ffi.from_buffer(data), ffi.from_buffer("size_t[]", offsets),
        ffi.from_buffer("size_t[]", lengths), n, flags,
        *(out("uint64_t[]", m) for m in masks),
        out("uint8_t[]", ep), out("uint8_t[]", turn), out("uint8_t[]", castling),
        NULL, out("size_t[]", fen_begin), out("size_t[]", fen_end), out("int8_t[]", status)))


FEN_ERR_FIELD_COUNT: int = lib.FATHOM_FEN_ERR_FIELD_COUNT
"""The C FEN parser's status for a line without 4 or 6 fields."""

FEN_MAX_COUNTER: int = lib.FATHOM_FEN_MAX_COUNTER
"""The largest halfmove clock or fullmove number the C FEN parser reads."""


def fen_strerror(status: int) -> str:
    """``fathom_fen_strerror``: the C FEN parser's message for a code."""
    text: bytes = ffi.string(lib.fathom_fen_strerror(int(status)))
    return text.decode("utf-8", "replace")
