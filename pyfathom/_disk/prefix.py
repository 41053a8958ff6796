"""Prefix files: a table's head kept on faster storage (lila-tablebase's
``--hot-prefix``).

lila-tablebase's ``syzygy-prefix.py`` writes ``NAME.prefix`` for a table
file ``NAME`` (``KRvK.rtbw.prefix``): the table's first bytes, up to the
end of its sparse indexes (``--sparse-index``) or up to its first data
block (``--block-lengths``, header, sparse indexes and block-length
tables), copied in 16 KiB reads, so the length is rounded up to a
multiple of 16 KiB (or is the whole file when that is shorter).
:func:`write_prefix` writes the same bytes under the same name.
"""
from __future__ import annotations

import os
from typing import Union

from pyfathom._disk.page_cache import layout

StrPath = Union[str, "os.PathLike[str]"]

UPTO_CHOICES = ("block-lengths", "sparse-index")
"""Where a prefix ends: before the first data block, or before the first
block-length table (lila's script's ``--block-lengths``, ``--sparse-index``)."""

COPY_CHUNK = 16 * 1024
"""lila's script copies in reads of this size, and stops after the read
that reaches the wanted length."""


def prefix_length(path: StrPath, upto: str = "block-lengths") -> int:
    """How many bytes of the table file a prefix file holds (0: none)."""
    if upto not in UPTO_CHOICES:
        raise ValueError(f"upto must be one of {UPTO_CHOICES}, not {upto!r}")
    parts = layout(path)
    wanted_kind = "data" if upto == "block-lengths" else "block lengths"
    wanted = next((p.offset for p in parts if p.kind == wanted_kind), 0)
    if wanted == 0:
        return 0
    rounded = -(-wanted // COPY_CHUNK) * COPY_CHUNK
    return min(rounded, os.path.getsize(path))


def prefix_name(path: StrPath) -> str:
    """The prefix file's name for a table file: its own name + ``.prefix``."""
    return os.path.basename(os.fspath(path)) + ".prefix"


def write_prefix(path: StrPath, out_dir: StrPath, upto: str = "block-lengths") -> int:
    """Write the prefix file of table ``path`` into ``out_dir``; returns its
    length (0: nothing written, the table has no index parts)."""
    length = prefix_length(path, upto)
    if length == 0:
        return 0
    dest = os.path.join(os.fspath(out_dir), prefix_name(path))
    with open(path, "rb") as src, open(dest + ".part", "wb") as out:
        left = length
        while left:
            chunk = src.read(min(COPY_CHUNK, left))
            if not chunk:
                raise OSError(f"{os.fspath(path)!r} shrank while copying its prefix")
            out.write(chunk)
            left -= len(chunk)
    os.replace(dest + ".part", dest)
    return length


def prefix_matches(prefix: StrPath, table: StrPath) -> bool:
    """Are the prefix file's bytes the table file's first bytes?  (Reads both.)"""
    size = os.path.getsize(prefix)
    if size > os.path.getsize(table):
        return False
    with open(prefix, "rb") as a, open(table, "rb") as b:
        while True:
            x = a.read(1 << 20)
            if not x:
                return True
            if b.read(len(x)) != x:
                return False
