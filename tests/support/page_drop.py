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
