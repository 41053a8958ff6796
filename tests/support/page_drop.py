"""Dropping a file's pages from the page cache, for the cold-table tests
(``tests/test_warm.py``, ``test_prefix.py``, ``test_read_ahead.py``).

``posix_fadvise(POSIX_FADV_DONTNEED)`` drops a file's clean pages that
nothing maps: the next read of them goes to the disk, as on a machine
that never read the file.  Linux (other systems may ignore the advice).
"""

from __future__ import annotations

import os
from pathlib import Path


def drop(path: Path) -> None:
    """Drop ``path``'s cached pages.  Written back first: the advice leaves
    dirty pages (a table written just before) in the cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def drop_tables(folder: Path) -> None:
    """Drop the pages of every table file (``*.rtbw``, ``*.rtbz``) of ``folder``."""
    for path in folder.iterdir():
        if path.suffix in (".rtbw", ".rtbz"):
            drop(path)


def page_out_mappings(folder: Path) -> int:
    """Page out (``madvise(MADV_PAGEOUT)``, Linux 5.4) every page of this
    process's mappings of files under ``folder``: the pages a process has
    mapped, which ``drop`` leaves, leave the page cache too (clean pages
    that no other process maps), the mappings stay.  RETURN how many
    mappings; raises OSError where the kernel refuses."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madv_pageout = 21
    prefix = str(folder.resolve()) + os.sep
    count = 0
    with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            if len(fields) < 6 or not fields[5].strip().startswith(prefix):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if libc.madvise(start, end - start, madv_pageout) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"madvise(MADV_PAGEOUT) {fields[5].strip()}: {os.strerror(err)}")
            count += 1
    return count
