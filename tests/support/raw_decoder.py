"""The tests' raw decoder (tests/c/raw_read.c: one table file's stored
values, straight from the core's decoder), which no shipped module holds:
build_ffi.build_test_decoder compiles it with the core, once per test
process, into a temporary folder removed at exit."""

from __future__ import annotations

import atexit
import functools
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence, Tuple

import chess
import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent


@functools.cache
def decoder() -> Any:
    """The built module's ``lib`` (``pyfathom_test_raw_read``)."""
    sys.path.insert(0, str(ROOT))
    try:
        import build_ffi
    finally:
        sys.path.remove(str(ROOT))
    folder = tempfile.mkdtemp(prefix="pyfathom-test-decoder-")
    atexit.register(shutil.rmtree, folder, True)
    path = build_ffi.build_test_decoder(folder)
    spec = importlib.util.spec_from_file_location("_pyfathom_test_decoder", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.lib


def board_arrays(boards: Sequence[chess.Board]) -> Tuple[np.ndarray, np.ndarray]:
    """The decoder's positions: per board white, black, then pawns .. kings
    (python-chess's piece types 1..6), and the side to move (1 white)."""
    rows = np.zeros((len(boards), 8), dtype=np.uint64)
    turns = np.zeros(len(boards), dtype=np.uint8)
    for i, b in enumerate(boards):
        rows[i, 0] = b.occupied_co[chess.WHITE]
        rows[i, 1] = b.occupied_co[chess.BLACK]
        for t in range(1, 7):
            rows[i, 1 + t] = b.pieces_mask(t, chess.WHITE) | b.pieces_mask(t, chess.BLACK)
        turns[i] = b.turn
    return rows, turns
