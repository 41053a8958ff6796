"""A binary stream cut into chunks of whole lines, and which lines of a
chunk are blanks or comments: the reading side of ``pyfathom batch``
(:mod:`pyfathom.batch_files`, which names these too) and of the text
inputs of a Parquet/Arrow run (:mod:`pyfathom._files.format_bridge`),
below both."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

import numpy as np

from pyfathom._files.batch_core import MAX_LINE, Chunk

__all__ = ["CHUNK_LINES", "read_chunks", "skipped_lines"]

CHUNK_LINES = 65536
"""Lines parsed and probed per C call."""

_BLOCK = 1 << 22  # bytes read per read() call
_BOM = b"\xef\xbb\xbf"  # UTF-8 byte-order mark


def read_chunks(stream: IO[bytes], chunk_lines: int = CHUNK_LINES) -> Iterator[Chunk]:
    """Cut a binary stream into chunks of whole lines.

    A final line without a newline counts as a line; an empty input has no
    lines.  Lines longer than :data:`MAX_LINE` are kept as one row whose text
    is cut to MAX_LINE bytes and flagged ``too_long``, so memory stays
    bounded even for a file without newlines.
    """
    if chunk_lines < 1:
        raise ValueError("chunk_lines must be at least 1")
    line_no = 1
    pending = b""  # bytes of the current unfinished line(s)
    skipping = False  # inside an overlong line: discard until newline
    skipped = 0  # bytes discarded so far (counted for progress)
    overlong_head = b""
    eof = False
    first_block = True
    bom_bytes = 0  # a UTF-8 byte-order mark is not part of line 1 (counted for progress)
    while not eof:
        block = stream.read(_BLOCK)
        if first_block:
            first_block = False
            while len(block) < len(_BOM) and block and _BOM.startswith(block):
                more = stream.read(_BLOCK)  # a stream may hand out fewer bytes
                if not more:
                    break
                block += more
            if block.startswith(_BOM):
                block = block[len(_BOM):]
                bom_bytes = len(_BOM)
        if not block:
            eof = True
            block = b""
        if skipping:
            nl = block.find(b"\n")
            if nl < 0 and not eof:
                skipped += len(block)
                continue
            # The overlong line ends here (or at EOF).
            cut = len(block) if nl < 0 else nl + 1
            skipped += cut
            block = block[cut:]
            skipping = False
            chunk = _make_chunk(line_no, overlong_head, [0], [len(overlong_head)], [True], skipped)
            yield chunk
            line_no += 1
            overlong_head = b""
            skipped = 0
        data = pending + block
        pending = b""
        if not data:
            continue
        arr = np.frombuffer(data, dtype=np.uint8)
        newlines = np.flatnonzero(arr == 10)
        if len(newlines):
            end = int(newlines[-1]) + 1
        else:
            end = 0
        if eof and end < len(data):
            # A last line without a newline.
            newlines = np.append(newlines, len(data))
            end = len(data)
        rest = data[end:]
        if len(rest) > MAX_LINE:
            # An unfinished line already too long: keep its head, skip the rest.
            overlong_head = rest[:MAX_LINE]
            skipped = len(rest)
            skipping = True
            rest = b""
        pending = rest
        if not len(newlines):
            continue
        starts = np.empty(len(newlines), dtype=np.uintp)
        starts[0] = 0
        starts[1:] = newlines[:-1] + 1
        lengths = newlines.astype(np.uintp) - starts
        too_long = lengths > MAX_LINE
        if too_long.any():
            lengths = np.minimum(lengths, MAX_LINE).astype(np.uintp)
        for lo in range(0, len(starts), chunk_lines):
            hi = min(lo + chunk_lines, len(starts))
            base = int(starts[lo])
            stop = int(newlines[hi - 1]) + 1 if hi - 1 < len(newlines) else len(data)
            stop = min(stop, len(data))
            yield Chunk(
                first_line=line_no,
                data=data[base:stop],
                offsets=(starts[lo:hi] - base).astype(np.uintp),
                lengths=lengths[lo:hi].copy(),
                too_long=too_long[lo:hi].copy(),
                nbytes=stop - base + bom_bytes,
            )
            bom_bytes = 0
            line_no += hi - lo
    if skipping:
        yield _make_chunk(line_no, overlong_head, [0], [len(overlong_head)], [True], skipped)


def _make_chunk(first_line: int, data: bytes, offsets: list[int], lengths: list[int],
                too_long: list[bool], nbytes: int) -> Chunk:
    return Chunk(first_line, data, np.array(offsets, dtype=np.uintp),
                 np.array(lengths, dtype=np.uintp), np.array(too_long, dtype=bool), nbytes)


_BLANK = (9, 10, 11, 12, 13, 32)  # whitespace bytes


def skipped_lines(chunk: Chunk) -> np.ndarray:
    """Which lines of a chunk are blank or comments (first non-blank
    character ``#``): a bool array.  Decided on each line's first byte, and
    in Python only for the few lines that start with blanks."""
    n = len(chunk)
    data = np.frombuffer(chunk.data, dtype=np.uint8)
    nonempty = chunk.lengths > 0
    first = np.zeros(n, dtype=np.uint8)
    first[nonempty] = data[chunk.offsets[nonempty]]
    skip = ~nonempty | (first == ord("#"))
    for i in np.flatnonzero(nonempty & np.isin(first, _BLANK)).tolist():
        off = int(chunk.offsets[i])
        text = chunk.data[off:off + int(chunk.lengths[i])].strip()
        skip[i] = not text or text.startswith(b"#")
    result: np.ndarray = skip & ~chunk.too_long
    return result
