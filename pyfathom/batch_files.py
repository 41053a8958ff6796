"""Streaming batch probing of FEN / EPD files (``pyfathom batch``).

The input is read as bytes in blocks, cut into chunks of at most
:data:`CHUNK_LINES` lines, parsed in one C call per chunk by the core's FEN
parser (``fathom_parse_fen_batch``, EPD opcodes allowed) straight into numpy
bitboard arrays, and probed with :meth:`pyfathom.Tablebase.probe_wdl_bitboards`
(and ``probe_dtz_bitboards``).  Memory stays flat whatever the input size:
one block, one chunk of arrays and one chunk of output rows at a time.

Each input line gives exactly one result row, in order, with a status
(the row's code is a :class:`pyfathom.Status`, ``INVALID_FEN`` and
``LINE_TOO_LONG`` among them; the name written is from
:data:`STATUS_NAMES`; the parsing and probing of a chunk are
:mod:`pyfathom._files.batch_core`'s, shared with :mod:`pyfathom.columnar`):

====================  ======================================================
status                meaning
====================  ======================================================
``ok``                probed
``invalid_fen``       the line is not a FEN / EPD position (see the reason)
``castling``          the position has castling rights (tables hold none)
``too_many_pieces``   more than 7 pieces (more than any Syzygy table holds)
``missing_table``     a table the position needs (or a capture or promotion
                      from it leads to) is not loaded; the reason names it
``invalid_position``  a FEN of an illegal position (``board.is_valid()`` is
                      false: side not to move in check, no king...)
``corrupt_table``     a table file it needs is damaged
``failed``            any other failure (a table file that cannot be read,
                      out of memory); the reason says which
``line_too_long``     a line longer than :data:`MAX_LINE` bytes
====================  ======================================================

Blank lines and comment lines (first non-blank character ``#``) are not
positions: they give no row and are counted apart (``skipped``).  A UTF-8
byte-order mark at the start is not part of line 1.  The text of a bad line
is written as read, with bytes that are not UTF-8 replaced by U+FFFD; in
CSV control characters (NUL, CR, ...) become U+FFFD too, in JSON lines they
are escaped (``\u0000``).
"""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from ._files.batch_core import OK as OK  # for callers that test rows against it
from ._files.batch_core import MAX_LINE, BatchStats, Chunk, ProbedChunk, parse_chunk, probe_parsed
from ._files.line_chunks import CHUNK_LINES as CHUNK_LINES  # lines parsed and probed per C call
from ._files.line_chunks import read_chunks as read_chunks
from ._files.line_chunks import skipped_lines as skipped_lines
from ._types import FAILED, STATUS_NAME_OF_CODE, STATUS_NAMES

# MAX_LINE, OK, Chunk, parse_chunk, ProbedChunk, BatchStats and STATUS_NAMES
# are the batch core's (pyfathom._files.batch_core, pyfathom._types), CHUNK_LINES,
# read_chunks and skipped_lines the line reader's (pyfathom._files.line_chunks),
# named here too.
__all__ = [
    "CHUNK_LINES",
    "MAX_LINE",
    "Chunk",
    "read_chunks",
    "parse_chunk",
    "ProbedChunk",
    "probe_chunk",
    "BatchStats",
    "RowWriter",
    "STATUS_NAMES",
    "skipped_lines",
]

def probe_chunk(tb: Any, chunk: Chunk, *, dtz: bool = False, threads: int | None = None) -> ProbedChunk:
    """Parse and probe one chunk; bad rows never stop it."""
    return probe_parsed(tb, chunk, parse_chunk(chunk), dtz=dtz, threads=threads,
                        skipped=skipped_lines(chunk))


_WDL_TEXT = {v: str(v) for v in range(-2, 3)}
_WDL_TEXT[FAILED] = ""
_DTZ_TEXT: list[str] = []  # str(v) for every int16 v, index v + 32768; built on first use


def _dtz_texts(values: np.ndarray) -> list[str]:
    if not _DTZ_TEXT:
        _DTZ_TEXT.extend(str(v) for v in range(-32768, 32768))
        _DTZ_TEXT[0] = ""  # FAILED_DTZ
    table = _DTZ_TEXT
    return [table[v] for v in (values.astype(np.int32) + 32768).tolist()]


_CONTROLS = {c: "\ufffd" for c in [*range(0, 9), *range(10, 32), 127]}
"""Control characters (all but tab) -> U+FFFD, for CSV fields."""


def _csv_field(text: str) -> str:
    """A bad line's text as one CSV field: control characters (NUL, CR, ...)
    replaced by U+FFFD (the text is already valid UTF-8: undecodable bytes
    were replaced when it was read), quoted where CSV needs it."""
    text = text.translate(_CONTROLS)
    if any(c in text for c in ',"'):
        return '"' + text.replace('"', '""') + '"'
    return text


class RowWriter:
    """Writes result rows (fen, wdl, dtz, status) as CSV or JSON lines.

    Rows are formatted a chunk at a time; the FEN of a parsed row holds only
    FEN characters, so only the raw text of bad rows needs CSV quoting or
    JSON escaping.
    """

    def __init__(self, out: IO[str], fmt: str = "csv", carry: tuple[str, ...] = ()) -> None:
        if fmt not in ("csv", "jsonl"):
            raise ValueError(f"unknown format {fmt!r} (csv or jsonl)")
        self.out = out
        self.fmt = fmt
        self.carry = carry
        if fmt == "csv":
            out.write(",".join(("fen", "wdl", "dtz", "status") + carry) + "\n")

    def _fens(self, probed: ProbedChunk, upto: int) -> list[str]:
        chunk = probed.chunk
        data = chunk.data
        offsets = chunk.offsets[:upto]
        starts = (offsets + probed.parsed.begin[:upto]).tolist()
        ends = (offsets + probed.parsed.end[:upto]).tolist()
        if data.isascii():
            text = data.decode("ascii")
            fens = [text[a:b] for a, b in zip(starts, ends)]
        else:
            fens = [data[a:b].decode("utf-8", "replace") for a, b in zip(starts, ends)]
        json_lines = self.fmt == "jsonl"
        bad = np.flatnonzero(probed.parsed.status[:upto] != 0).tolist()
        for i in bad:
            raw = probed.line_text(i)
            fens[i] = json.dumps(raw) if json_lines else _csv_field(raw)
        if json_lines:
            # Parsed FENs need escaping only if written with tabs.
            good = np.ones(upto, dtype=bool)
            good[bad] = False
            if b"\t" in data:
                for i in np.flatnonzero(good).tolist():
                    fens[i] = json.dumps(fens[i])
            else:
                for i in np.flatnonzero(good).tolist():
                    fens[i] = '"' + fens[i] + '"'
        return fens

    def write(self, probed: ProbedChunk, upto: int | None = None) -> None:
        n = len(probed.chunk) if upto is None else upto
        if n == 0:
            return
        fens = self._fens(probed, n)
        jsonl = self.fmt == "jsonl"
        wdl_text = _WDL_TEXT if not jsonl else {k: (v or "null") for k, v in _WDL_TEXT.items()}
        wdl = [wdl_text[v] for v in probed.wdl[:n].tolist()]
        if probed.dtz is not None:
            dtz = _dtz_texts(probed.dtz[:n])
            if jsonl:
                dtz = [d or "null" for d in dtz]
        else:
            dtz = ["null" if jsonl else ""] * n
        names = [STATUS_NAME_OF_CODE[s] for s in probed.status[:n].tolist()]
        extra = carried_fields(probed, n, self.carry, jsonl) if self.carry else [""] * n
        if jsonl:
            rows = [f'{{"fen": {f}, "wdl": {w}, "dtz": {d}, "status": "{s}"{e}}}\n'
                    for f, w, d, s, e in zip(fens, wdl, dtz, names, extra) if s != "skipped"]
        else:
            rows = [f"{f},{w},{d},{s}{e}\n" for f, w, d, s, e in zip(fens, wdl, dtz, names, extra)
                    if s != "skipped"]
        self.out.write("".join(rows))


CARRY_LINE = "line"
"""The ``--carry`` name of the input line number; every other name is an
EPD opcode (``id``, ``c0``, ...)."""


def carried_fields(probed: ProbedChunk, n: int, carry: tuple[str, ...], jsonl: bool) -> list[str]:
    """The ``--carry`` columns of the first *n* rows, each row's text ready
    to append (``,v1,v2`` or ``, "line": 3, "id": "x"``): the line number,
    and the operands of the named EPD opcodes of the line (empty / null
    when the line has no such operation or cannot be read)."""
    from .fen import epd_operations

    chunk = probed.chunk
    out = []
    for i in range(n):
        operations: dict[str, str] = {}
        if any(name != CARRY_LINE for name in carry) and probed.parsed.status[i] == 0:
            off = int(chunk.offsets[i])
            rest = chunk.data[off + int(probed.parsed.end[i]):off + int(chunk.lengths[i])]
            try:
                operations = epd_operations(rest.decode("utf-8", "replace"))
            except ValueError:
                pass  # the position was read; operations the grammar refuses carry nothing
        values: list[object] = [chunk.first_line + i if name == CARRY_LINE else operations.get(name)
                                for name in carry]
        if jsonl:
            out.append("".join(f", {json.dumps(name)}: {json.dumps(v)}" for name, v in zip(carry, values)))
        else:
            out.append("".join("," + ("" if v is None else _csv_field(str(v))) for v in values))
    return out


def open_input(path: str) -> tuple[IO[bytes], int]:
    """Open a batch input ('-' is stdin); return the stream and its size (0 if unknown)."""
    import os
    import sys

    if path == "-":
        return sys.stdin.buffer, 0
    stream = open(path, "rb")
    try:
        size = os.fstat(stream.fileno()).st_size
    except OSError:
        size = 0
    return stream, size


def run_batch(
    tb: Any,
    stream: IO[bytes],
    out: IO[str],
    *,
    fmt: str = "csv",
    dtz: bool = False,
    threads: int | None = None,
    strict: bool = False,
    chunk_lines: int = CHUNK_LINES,
    on_bad: Callable[[int, str, str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    carry: tuple[str, ...] = (),
) -> BatchStats:
    """Probe every line of stream and write one row per line to out
    (``carry``: extra columns, :func:`carried_fields`).

    ``on_bad(line_number, text, reason)`` is called for each bad line,
    ``progress(lines_done, bytes_done)`` after each chunk.  With strict, the
    run stops at the first bad line (rows before it are written).
    """
    writer = RowWriter(out, fmt, carry)
    stats = BatchStats()
    done_bytes = 0
    # One chunk is read, parsed and probed (C calls, GIL released) in a
    # worker while the previous one is written: at most two chunks in memory.
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="pyfathom-batch") as pool:
        chunks = read_chunks(stream, chunk_lines)

        def next_probed() -> ProbedChunk | None:
            chunk = next(chunks, None)
            return None if chunk is None else probe_chunk(tb, chunk, dtz=dtz, threads=threads)

        pending = pool.submit(next_probed)
        while True:
            probed = pending.result()
            if probed is None:
                break
            pending = pool.submit(next_probed)
            chunk = probed.chunk
            bad = probed.bad_rows()
            if strict and len(bad):
                first = int(bad[0])
                writer.write(probed, first)
                stats.add(probed, first + 1)
                if on_bad is not None:
                    on_bad(chunk.first_line + first, probed.line_text(first), probed.reason(first))
                pending.cancel()
                break
            writer.write(probed)
            stats.add(probed)
            if on_bad is not None:
                for i in bad.tolist():
                    on_bad(chunk.first_line + i, probed.line_text(i), probed.reason(i))
            done_bytes += chunk.nbytes
            if progress is not None:
                progress(stats.lines, done_bytes)
    return stats
