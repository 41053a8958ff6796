"""The one copy loop and the one sha256 helper of the download code.

:mod:`pyfathom.download` (mirrors) and :mod:`pyfathom._disk.default_tables`
(the pinned 3-4-piece set) both copy bytes from a source to a file while
hashing them or counting them for a progress bar; they do it here.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import IO, Any, Optional

__all__ = ["BLOCK", "copy_stream", "sha256_file"]

BLOCK = 1 << 16
"""Bytes per read: small enough for a smooth progress bar over HTTP."""


def copy_stream(source: Any, out: Optional[IO[bytes]], *, digest: Any = None,
                progress: Optional[Callable[[int], None]] = None, done: int = 0) -> int:
    """Copy everything ``source.read()`` gives into ``out`` (None: read only),
    feeding ``digest`` (a :mod:`hashlib` object) on the way and calling
    ``progress(bytes so far)`` after each block.  ``done`` is where the count
    starts (the bytes of a resumed file).  Returns the final count."""
    while True:
        block = source.read(BLOCK)
        if not block:
            return done
        if digest is not None:
            digest.update(block)
        if out is not None:
            out.write(block)
        done += len(block)
        if progress is not None:
            progress(done)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The hex sha256 of the file at *path*."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        copy_stream(f, None, digest=digest)
    return digest.hexdigest()
