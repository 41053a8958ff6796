"""Table files and the page cache: where each part of a table file lies
(header, sparse index, block-length table, data blocks per stream), how
much of it is resident, and loading chosen parts ahead of the probes.

A cold probe of a large table reads up to three places of its file: the
sparse index entry, the block-length entry and the data block.  The index
parts are a small share of a file (0.4% of a 6-piece WDL file here), so
with them resident a cold probe costs about one read, of its block.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Optional, Union

from pyfathom._bindings import lowlevel as _lowlevel
from pyfathom._errors import TableFileError

StrPath = Union[str, "os.PathLike[str]"]

PART_NAMES = {0: "header", 1: "sparse index", 2: "block lengths", 3: "data"}
"""The C core's FATHOM_PART_* kinds by name."""

INDEX_KINDS = frozenset({0, 1, 2})

WHAT_CHOICES = ("index", "wdl", "all")
"""What :func:`warm` loads: the index parts of every file given, whole WDL
files (and the index parts of DTZ files), or every byte."""

CHUNK = 1 << 20


@dataclass(frozen=True)
class Part:
    """One region of a table file."""
    kind: str      # "header", "sparse index", "block lengths", "data"
    file: int      # pawn file 0..3 (a..d); 0 in pawnless tables
    side: int      # stored side 0..1
    offset: int
    length: int

    @property
    def is_index(self) -> bool:
        return self.kind != "data"


def layout(path: StrPath) -> list[Part]:
    """The parts of the table file at path, in file order (the C core's
    ``fathom_table_layout``; reads only the headers).  TableFileError when
    it is not a readable table file."""
    status, parts = _lowlevel.table_layout(os.fspath(path))
    if status:
        raise TableFileError(f"{os.fspath(path)}: {_lowlevel.strerror(status)}")
    return [Part(PART_NAMES[k], f, s, o, n) for k, f, s, o, n in parts]


@dataclass(frozen=True)
class Residency:
    """How much of one table file is in the page cache."""
    path: str
    size: int
    resident: int
    index_size: int
    index_resident: int
    by_part: tuple[tuple[Part, int], ...]

    @property
    def fraction(self) -> float:
        return self.resident / self.size if self.size else 0.0

    @property
    def index_fraction(self) -> float:
        return self.index_resident / self.index_size if self.index_size else 1.0


def residency(path: StrPath) -> Residency:
    """Resident bytes of the file at path, in all and per part (mincore,
    counted by pages as vmtouch counts them; reads nothing)."""
    name = os.fspath(path)
    parts = layout(name)
    size = os.stat(name).st_size
    status, counts = _lowlevel.file_resident(name, [(0, size)] + [(p.offset, p.length) for p in parts])
    if status:
        raise TableFileError(f"{name}: cannot count resident pages: {_lowlevel.strerror(status)}")
    by_part = tuple(zip(parts, counts[1:]))
    index = [(p, n) for p, n in by_part if p.is_index]
    return Residency(name, size, counts[0], sum(p.length for p, _ in index),
                     sum(n for _, n in index), by_part)


def ranges_to_warm(path: StrPath, what: str) -> list[tuple[int, int]]:
    """(offset, length) of the bytes :func:`warm` loads from path for `what`."""
    if what not in WHAT_CHOICES:
        raise ValueError(f"what must be one of {', '.join(WHAT_CHOICES)}, not {what!r}")
    name = os.fspath(path)
    if what == "all" or (what == "wdl" and name.endswith(".rtbw")):
        return [(0, os.stat(name).st_size)]
    return [(p.offset, p.length) for p in layout(name) if p.is_index]


def _read_ranges(fd: int, ranges: Iterable[tuple[int, int]], buffer: bytearray,
                 step: Callable[[int], None]) -> None:
    view = memoryview(buffer)
    for offset, length in ranges:
        end = offset + length
        while offset < end:
            got = os.preadv(fd, [view[:min(CHUNK, end - offset)]], offset)
            if got <= 0:
                break
            offset += got
            step(got)


def warm(paths: Iterable[StrPath], what: str = "index", method: str = "read",
         progress: Optional[Callable[[int, int], None]] = None) -> int:
    """Load parts of table files into the page cache: `what` is "index"
    (header, sparse indexes and block-length tables of every file), "wdl"
    (whole WDL files, index parts of DTZ files) or "all".  `method` "read"
    reads the ranges (1 MiB at a time: progress is exact, the call returns
    when they are resident); "advise" asks the kernel for them
    (POSIX_FADV_WILLNEED) and returns at once.  progress(done, total) is
    called in bytes.  RETURN: bytes asked for."""
    if method not in ("read", "advise"):
        raise ValueError(f"method must be 'read' or 'advise', not {method!r}")
    plan = [(os.fspath(p), ranges_to_warm(p, what)) for p in paths]
    total = sum(n for _, ranges in plan for _, n in ranges)
    done = 0
    buffer = bytearray(CHUNK)

    def step(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done, total)

    for name, ranges in plan:
        fd = os.open(name, os.O_RDONLY)
        try:
            if method == "advise":
                for offset, length in ranges:
                    os.posix_fadvise(fd, offset, length, os.POSIX_FADV_WILLNEED)
                    step(length)
            else:
                if what == "index":
                    # Without this the kernel's read-ahead pulls megabytes
                    # of data blocks in after the index parts (2.1 of 7.1 MB
                    # of KBBBBvK.rtbw's blocks when its 0.28 MB were read).
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
                _read_ranges(fd, ranges, buffer, step)
        finally:
            os.close(fd)
    return total
