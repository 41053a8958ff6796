"""The batch core shared by ``pyfathom batch`` (:mod:`pyfathom.batch_files`)
and :mod:`pyfathom.columnar`: a chunk of positions, parsed in one C call
into numpy bitboards, probed with the batch probes, each row with its
:class:`~pyfathom.Status` (the one list of row codes, whose names are
:data:`pyfathom._types.STATUS_NAME_OF_CODE`), and the counts of a run."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from pyfathom._bindings import lowlevel as _lowlevel
from pyfathom._files.output import raise_if_signalled
from pyfathom._signals import leave_signals_to_main_thread
from pyfathom._tablebase.batch_arrays import popcount
from pyfathom._types import FAILED, FAILED_DTZ, STATUS_NAME_OF_CODE, STATUS_NAMES, Status

#: The longest position line a batch reads (bytes); a longer one is a
#: ``line_too_long`` row.
MAX_LINE = 1 << 16
"""Longest line accepted, in bytes (a FEN is under 100; EPD opcodes add some)."""

OK = Status.OK

_MASKS = ("white", "black", "kings", "queens", "rooks", "bishops", "knights", "pawns")


@dataclass
class Chunk:
    """Up to CHUNK_LINES consecutive input lines."""

    first_line: int  # 1-based number of the first line
    data: bytes  # the lines' bytes (line i is data[offsets[i]:offsets[i]+lengths[i]])
    offsets: np.ndarray  # uintp
    lengths: np.ndarray  # uintp
    too_long: np.ndarray  # bool: line longer than MAX_LINE (its text is cut)
    nbytes: int  # input bytes this chunk stands for (for progress)

    def __len__(self) -> int:
        return len(self.offsets)


@dataclass
class Parsed:
    """The C parser's struct-of-arrays output for one chunk."""

    masks: dict[str, np.ndarray]  # uint64 each
    ep: np.ndarray  # uint8
    turn: np.ndarray  # uint8
    castling: np.ndarray  # uint8
    begin: np.ndarray  # uintp, relative to the line
    end: np.ndarray  # uintp
    status: np.ndarray  # int8 parser status (FATHOM_FEN_*)


def parse_chunk(chunk: Chunk) -> Parsed:
    """Parse every line of a chunk (FEN or EPD) with one C call; the few
    lines it does not settle alone (refused, or with EPD operations) get
    :mod:`pyfathom.fen`'s verdict."""
    n = len(chunk)
    masks = {name: np.empty(n, dtype=np.uint64) for name in _MASKS}
    ep = np.empty(n, dtype=np.uint8)
    turn = np.empty(n, dtype=np.uint8)
    castling = np.empty(n, dtype=np.uint8)
    begin = np.empty(n, dtype=np.uintp)
    end = np.empty(n, dtype=np.uintp)
    status = np.empty(n, dtype=np.int8)
    _lowlevel.parse_fen_batch(chunk.data, chunk.offsets, chunk.lengths, _lowlevel.FEN_EPD,
                              [masks[name] for name in _MASKS], ep, turn, castling,
                              begin, end, status)
    parsed = Parsed(masks, ep, turn, castling, begin, end, status)
    from pyfathom.fen import settle_by_grammar

    settle_by_grammar(chunk, parsed)  # EPD operations; 2, 3 or 5 fields, "_" for blanks
    return parsed


@dataclass
class ProbedChunk:
    """Results for one chunk: everything needed to write its rows."""

    chunk: Chunk
    parsed: Parsed
    status: np.ndarray  # uint8 row codes (Status)
    wdl: np.ndarray  # int8, pyfathom.FAILED where not probed
    dtz: np.ndarray | None  # int16, or None without --dtz
    tb: Any  # the tablebase, to explain failed probes
    core_status: np.ndarray  # uint8 core status of the failing probe (0: none)
    core_metric: np.ndarray  # bool: the failing probe was the DTZ one

    def bad_rows(self) -> np.ndarray:
        return np.flatnonzero((self.status != OK) & (self.status != Status.SKIPPED))

    def line_text(self, i: int) -> str:
        """Line i of the chunk as written (newline and surrounding blanks cut)."""
        off = int(self.chunk.offsets[i])
        raw = self.chunk.data[off:off + int(self.chunk.lengths[i])]
        return raw.decode("utf-8", errors="replace").strip()

    def reason(self, i: int) -> str:
        code = int(self.status[i])
        if code == Status.INVALID_FEN:
            if int(self.parsed.status[i]) == _lowlevel.FEN_ERR_FIELD_COUNT:
                # The C parser counts 4 or 6 fields; the grammar reads 2 to 6
                # and says what it refused (pyfathom.fen).
                from pyfathom.fen import FenError, split_position

                try:
                    split_position(self.line_text(i))
                except FenError as e:
                    return e.reason
            return _lowlevel.fen_strerror(int(self.parsed.status[i]))
        if code == Status.LINE_TOO_LONG:
            return f"line longer than {MAX_LINE} bytes"
        if code == Status.CASTLING:
            return "castling rights: Syzygy tables hold no castling positions"
        if code == Status.TOO_MANY_PIECES:
            return f"more than {_lowlevel.MAX_PIECES} pieces: no Syzygy table holds them"
        if code == Status.INVALID_POSITION:
            return "not a legal position"
        return self._explain(i)

    def _explain(self, i: int) -> str:
        """What went wrong in the probe of row i, from the core, naming the
        table or file (the tablebase repeats the probe alone for its detail)."""
        w, b, k, q, r, bi, n, p = (int(self.parsed.masks[name][i]) for name in _MASKS)
        error = self.tb._core_access().probe_error(
            bool(self.core_metric[i]), "this line", int(self.core_status[i]), w, b, k, q, r, bi,
            n, p, int(self.parsed.ep[i]), bool(self.parsed.turn[i]))
        table = getattr(error, "table", "")
        if table and isinstance(error, KeyError):  # a MissingTableError
            return f"did not find {getattr(error, 'metric', '')} table {table}"
        return str(error)


def probe_parsed(tb: Any, chunk: Chunk, parsed: Parsed, *, dtz: bool = False,
                 threads: int | None = None, skipped: np.ndarray | None = None) -> ProbedChunk:
    """Probe the rows of a parsed chunk; rows flagged in ``skipped`` (blank
    and comment lines) get the ``SKIPPED`` code.  Also used by
    :mod:`pyfathom.columnar`, whose rows are never skipped (a row of a
    table stays a row) and may arrive as bitboards instead of text."""
    n = len(chunk)
    status = np.full(n, OK, dtype=np.uint8)
    status[parsed.status != 0] = Status.INVALID_FEN
    status[chunk.too_long] = Status.LINE_TOO_LONG
    if skipped is not None:
        status[skipped] = Status.SKIPPED
    has_castling = (parsed.castling != 0) & (status == OK)
    status[has_castling] = Status.CASTLING
    pieces = popcount(parsed.masks["white"] | parsed.masks["black"])
    status[(pieces > tb._core_access().piece_limit) & (status == OK)] = Status.TOO_MANY_PIECES
    skip = status != OK
    masks = parsed.masks
    if skip.any():
        # Rows not to probe get empty masks, which the core refuses cheaply.
        masks = {name: np.where(skip, np.uint64(0), a) for name, a in masks.items()}
    args = [masks[name] for name in _MASKS] + [parsed.ep, parsed.turn]
    core_status = np.zeros(n, dtype=np.uint8)
    wdl = np.asarray(tb.probe_wdl_bitboards(*args, threads=threads, status=core_status),
                     dtype=np.int8)
    wdl = np.where(skip, np.int8(FAILED), wdl).astype(np.int8)
    core_status[skip] = 0
    core_metric = np.zeros(n, dtype=bool)
    dtz_values = None
    if dtz:
        dtz_status = np.zeros(n, dtype=np.uint8)
        dtz_values = np.asarray(tb.probe_dtz_bitboards(*args, threads=threads, status=dtz_status),
                                dtype=np.int16)
        dtz_values = np.where(skip, np.int16(FAILED_DTZ), dtz_values).astype(np.int16)
        dtz_status[skip] = 0
        # A row whose WDL probe worked can still miss its DTZ table.
        only_dtz = (core_status == 0) & (dtz_status != 0)
        core_status[only_dtz] = dtz_status[only_dtz]
        core_metric[only_dtz] = True
    failed = (core_status != 0) & (status == OK)
    status[failed] = core_status[failed]
    return ProbedChunk(chunk, parsed, status, wdl, dtz_values, tb, core_status, core_metric)


@dataclass
class BatchStats:
    """The counts of a batch run (``pyfathom batch`` prints them in its
    summary; :func:`pyfathom.columnar.run_columnar_batch` returns them):
    every input line or row is counted once, as probed, bad or skipped."""

    lines: int = 0
    """Input lines read: probed + bad + skipped."""
    probed: int = 0
    """Lines whose position was probed (status ``ok``)."""
    bad: int = 0
    """Lines with an output row but no answer (any status but ``ok``)."""
    skipped: int = 0
    """Blank and comment lines (no output row)."""
    by_status: dict[str, int] | None = None
    """Output rows per status name (``ok``, ``invalid_fen``, ...: the
    names ``pyfathom batch`` writes); None until the first chunk is added."""

    def add(self, probed: ProbedChunk, upto: int | None = None) -> None:
        """Count the rows of one probed chunk (its first ``upto`` rows)."""
        status = probed.status if upto is None else probed.status[:upto]
        counts = np.bincount(status, minlength=len(Status))
        if self.by_status is None:
            self.by_status = {name: 0 for name in STATUS_NAMES}
        for code, count in enumerate(counts.tolist()):
            if code != Status.SKIPPED:
                self.by_status[STATUS_NAME_OF_CODE[code]] += count
        self.lines += len(status)
        self.probed += int(counts[OK])
        self.skipped += int(counts[Status.SKIPPED])
        self.bad += len(status) - int(counts[OK]) - int(counts[Status.SKIPPED])


Item = TypeVar("Item")


@dataclass
class Pipeline(Generic[Item]):
    """How a batch run (``pyfathom.batch_files.run_batch``,
    :func:`pyfathom.columnar.run_columnar_batch`) reads, writes and reports
    its items (a probed chunk of lines, a probed slice of rows)."""

    next_item: Callable[[], Item | None]
    """Read and probe the next item (None: the input is done); runs in the
    worker thread."""
    probed: Callable[[Item], ProbedChunk]
    write: Callable[[Item, int], None]
    """Write the item's first n rows."""
    describe: Callable[[Item, int], tuple[int, str, str]]
    """Row i's (line or row number, text, reason), for ``on_bad``."""
    after: Callable[[Item, BatchStats], None]
    """Called after an item is written and counted (progress)."""


def run_pipeline(pipeline: Pipeline[Item], *, strict: bool,
                 on_bad: Callable[[int, str, str], None] | None,
                 thread_name: str) -> BatchStats:
    """The one loop of a batch run: the next item is read and probed (C
    calls, GIL released) in a worker while this one is written, so at most
    two items are in memory; each item's rows are counted; with strict, the
    run stops at the first bad row, the rows before it written.  Ctrl-C
    (or SIGTERM under the command line) stops the run at the next item:
    the worker leaves those signals to this thread, which also looks for
    one whose exception was lost after each item (output.py says how)."""
    stats = BatchStats()
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=thread_name,
                                               initializer=leave_signals_to_main_thread) as pool:
        pending = pool.submit(pipeline.next_item)
        while True:
            item = pending.result()
            raise_if_signalled()
            if item is None:
                break
            pending = pool.submit(pipeline.next_item)
            probed = pipeline.probed(item)
            bad = probed.bad_rows()
            if strict and len(bad):
                first = int(bad[0])
                pipeline.write(item, first)
                stats.add(probed, first + 1)
                if on_bad is not None:
                    on_bad(*pipeline.describe(item, first))
                pending.cancel()
                break
            pipeline.write(item, len(probed.status))
            stats.add(probed)
            if on_bad is not None:
                for i in bad.tolist():
                    on_bad(*pipeline.describe(item, i))
            pipeline.after(item, stats)
    return stats
