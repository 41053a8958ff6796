"""Opening a text input of ``batch`` and ``annotate``: compressed files read
transparently, binary files refused with a clear error.

A file compressed with gzip, bzip2 or xz (as EPD and PGN collections are
usually shipped) is recognised by its first bytes, whatever its name, so
``positions.epd.gz`` and a renamed ``positions.epd`` both work; standard
input is sniffed the same way.  After decompression the first block is
looked at: an archive (zip, tar, 7z, zstd) or a block where more than
:data:`BINARY_SHARE` of the bytes are control characters is not a text of
positions or games, and is refused (:class:`BinaryInputError`) before any
row is written.  A stray NUL in a text file is kept: that line is reported
as bad, as before.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from dataclasses import dataclass
from typing import IO

__all__ = ["BinaryInputError", "TextInput", "open_text_input", "BINARY_SHARE"]

BINARY_SHARE = 0.05
"""Share of control bytes (other than tab, newline, CR, FF, VT) in the first
block above which an input is taken for binary."""

_SNIFF = 1 << 16  # bytes looked at

_COMPRESSED = (  # (magic, name, opener of a binary stream)
    (b"\x1f\x8b", "gzip", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"BZh", "bzip2", lambda raw: bz2.BZ2File(raw, mode="rb")),
    (b"\xfd7zXZ\x00", "xz", lambda raw: lzma.LZMAFile(raw, mode="rb")),
)

_ARCHIVES = ((b"PK\x03\x04", "a zip archive"), (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
             (b"\x28\xb5\x2f\xfd", "a zstd-compressed file (not supported: use gzip, bzip2 or xz)"))

_TEXT_CONTROLS = frozenset(b"\t\n\r\x0b\x0c")


class BinaryInputError(ValueError):
    """The input is not text (an archive, a binary file); the message names
    the input once and says what it looks like."""


def _what_binary(head: bytes) -> str | None:
    """What a first block looks like when it is not text, else None."""
    for magic, name in _ARCHIVES:
        if head.startswith(magic):
            return name
    if len(head) > 262 and head[257:262] == b"ustar":
        return "a tar archive"
    if not head:
        return None
    controls = sum(1 for byte in head if byte < 32 and byte not in _TEXT_CONTROLS)
    if controls > BINARY_SHARE * len(head):
        return f"binary data ({controls} control bytes in its first {len(head)})"
    return None


@dataclass
class TextInput:
    """An opened input: :attr:`stream` gives the (decompressed) bytes."""

    stream: IO[bytes]
    raw: IO[bytes]  # the file as stored
    size: int  # bytes as stored, 0 if unknown (stdin)
    compression: str  # "gzip", "bzip2", "xz" or ""

    def position(self) -> int:
        """Bytes of the stored file read so far (progress over a compressed
        file follows these, as the size is the stored one), 0 if unknown."""
        try:
            return int(self.raw.tell())
        except (OSError, ValueError):
            return 0

    def close(self) -> None:
        """Close the streams (standard input stays open)."""
        if self.stream is not self.raw:
            self.stream.close()
        if self.raw is not sys.stdin.buffer:
            self.raw.close()


def open_text_input(path: str, what: str = "text") -> TextInput:
    """Open *path* ('-' is stdin) for reading text as bytes, decompressing
    gzip, bzip2 or xz (by their first bytes).

    Raises OSError when the file cannot be opened, BinaryInputError when it
    is not text (*what* names what was expected, for the message).
    """
    raw: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")
    try:
        size = 0 if path == "-" else os.fstat(raw.fileno()).st_size
        head = raw.peek(8)[:8] if hasattr(raw, "peek") else b""
        compression = ""
        stream: IO[bytes] = raw
        for magic, name, opener in _COMPRESSED:
            if head.startswith(magic):
                compression = name
                stream = io.BufferedReader(opener(raw), _SNIFF)
                break
        try:
            sniffed = stream.peek(_SNIFF)[:_SNIFF] if hasattr(stream, "peek") else b""
        except (OSError, EOFError, lzma.LZMAError) as e:
            raise BinaryInputError(f"{path}: damaged {compression} data ({e})") from None
        looks = _what_binary(sniffed)
        if looks is not None:
            inside = f" ({compression}-compressed)" if compression else ""
            raise BinaryInputError(f"{path}: not {what}: it holds {looks}{inside}")
        return TextInput(stream, raw, size, compression)
    except BaseException:
        if raw is not sys.stdin.buffer:
            raw.close()
        raise
