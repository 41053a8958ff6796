"""A Huffman symbol may expand to at most 256 values.

The decoder keeps each symbol's expansion length in a byte (as Stockfish
does: the table generator never makes a symbol longer, and every stream of
the 3-, 4- and 5-piece and variant test tables stays within 256 values), so
a file whose symbol tree goes past that is damaged and must be refused with
CorruptTableError naming it, not decoded with lengths cut to a byte.
"""

from __future__ import annotations

import struct
from pathlib import Path

import chess
import pytest

import pyfathom

TABLE = "KBNvK.rtbw"
POSITION = "8/8/8/8/8/2k5/8/KBN5 w - - 0 1"


def first_pattern(data: bytearray, pieces: int) -> tuple[int, int]:
    """(offset, count) of the symbol tree of the first stream of a pawnless
    WDL file: after the magic, the flags byte, one order byte and a byte per
    piece (padded to even), the pairs header's fixed 10 bytes, the first
    symbol of each code length (2 bytes each) and the symbol count."""
    header = 5 + 1 + pieces
    header += header & 1
    assert not data[header] & 0x80, "the first stream holds a single value"
    max_len, min_len = data[header + 8], data[header + 9]
    lengths = max_len - min_len + 1
    count_at = header + 10 + 2 * lengths
    return count_at + 2, struct.unpack_from("<H", data, count_at)[0]


def set_symbol(data: bytearray, pattern: int, sym: int, left: int, right: int) -> None:
    """Write symbol sym's two 12-bit fields (a leaf has right == 0xfff and
    its value in left)."""
    at = pattern + 3 * sym
    data[at] = left & 0xff
    data[at + 1] = (left >> 8) | ((right & 0xf) << 4)
    data[at + 2] = right >> 4


def test_symbol_past_256_values_is_refused(syzygy_dir: Path) -> None:
    data = bytearray((syzygy_dir / TABLE).read_bytes())
    pattern, count = first_pattern(data, pieces=4)
    assert count >= 10
    # Symbol 0 a leaf (one value, a draw), symbol i the pair (i-1, i-1):
    # 2**i values, so symbol 8 expands to 256 (allowed), symbol 9 to 512.
    set_symbol(data, pattern, 0, 2, 0xfff)
    for sym in range(1, 10):
        set_symbol(data, pattern, sym, sym - 1, sym - 1)
    with pyfathom.open_tablebase(syzygy_dir) as tablebase:
        board = chess.Board(POSITION)
        tablebase.probe_wdl(board)  # the real file answers
        tablebase.add_table_bytes(TABLE, bytes(data))
        with pytest.raises(pyfathom.CorruptTableError) as raised:
            tablebase.probe_wdl(board)
    assert raised.value.filename == f"memory:{TABLE}"
