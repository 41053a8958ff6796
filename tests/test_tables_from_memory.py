"""Tables from memory: ``Tablebase.add_table_bytes`` (C:
``fathom_add_table_memory``) probes table bytes the caller holds, with the
same answers and the same checks as the files they came from."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest

import pyfathom
from support.positions import ALL_TABLES, compare_with_oracle, mismatch_report, table_sample


@pytest.fixture(scope="module")
def memory_tablebase(syzygy_dir: Path) -> Any:
    """All 70 test tables registered from bytes; no directory at all."""
    tb = pyfathom.Tablebase()
    for path in sorted(syzygy_dir.glob("*.rtb[wz]")):
        tb.add_table_bytes(path.name, path.read_bytes())
    gc.collect()  # only the tablebase holds the bytes now
    yield tb
    tb.close()


def test_answers_equal_python_chess(memory_tablebase: Any,
                                    oracle: chess.syzygy.Tablebase) -> None:
    """WDL, DTZ and probe() of 20 positions of each of the 35 tables, read
    from memory, equal python-chess's answers from the files."""
    assert memory_tablebase.largest == 4
    boards = [b for key in ALL_TABLES
              for b in table_sample(key, 20, seed=77, ep_share=0.25, push_share=0.1)]
    answers = [(oracle.probe_wdl(b), oracle.probe_dtz(b)) for b in boards]
    bad = compare_with_oracle(memory_tablebase, boards, answers)
    assert not bad, mismatch_report("tables from memory", len(boards), bad)


def test_root_probe_equals_the_files(memory_tablebase: Any, tablebase: Any) -> None:
    """probe_root reads the same moves, outcomes and ranks from memory."""
    for board in table_sample("KRPvK", 10, seed=78) + table_sample("KPvKP", 10, seed=78):
        assert memory_tablebase.probe_root(board) == tablebase.probe_root(board), board.fen()


def test_memory_table_replaces_a_file(syzygy_dir: Path) -> None:
    """Bytes registered after a directory replace its file of that table:
    damaged bytes then fail the probes that read them, naming the bytes."""
    board = chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")
    with pyfathom.open_tablebase(syzygy_dir) as tb:
        assert tb.probe_wdl(board) == 2
        good = (syzygy_dir / "KQvK.rtbw").read_bytes()
        tb.add_table_bytes("KQvK.rtbw", good[:-64])  # truncated: size check
        with pytest.raises(pyfathom.CorruptTableError) as info:
            tb.probe_wdl(board)
        assert info.value.filename == "memory:KQvK.rtbw"
        assert "memory:KQvK.rtbw" in str(info.value)
    with pyfathom.Tablebase() as tb:
        tb.add_table_bytes("KQvK.rtbw", b"")
        with pytest.raises(pyfathom.CorruptTableError, match="memory:KQvK.rtbw"):
            tb.probe_wdl(board)
        bad_magic = bytearray(good)
        bad_magic[0] ^= 1
        tb.add_table_bytes("KQvK.rtbw", bad_magic)
        with pytest.raises(pyfathom.CorruptTableError, match="magic"):
            tb.probe_wdl(board)


@pytest.mark.parametrize("name", ["KQvK", "KQvK.txt", "KQvK.RTBW", "QKvK.rtbw", "KQvK.rtbwx",
                                  "", "KQvKé.rtbw", "../KQvK.rtbw"])
def test_bad_names_are_refused(name: str) -> None:
    with pyfathom.Tablebase() as tb:
        with pytest.raises(ValueError, match="not the file name of a Syzygy table"):
            tb.add_table_bytes(name, b"\0" * 80)


def test_c_arguments_checked() -> None:
    """NULL data with a size, or a NULL name, is FATHOM_ERR_ARGUMENT."""
    from pyfathom._bindings import lowlevel as ll

    h = ll.open_handle()
    assert ll.lib.fathom_add_table_memory(h, b"KQvK.rtbw", ll.NULL, 16) == pyfathom.Status.ARGUMENT
    assert ll.lib.fathom_add_table_memory(h, ll.NULL, b"x", 1) == pyfathom.Status.ARGUMENT
    assert ll.lib.fathom_add_table_memory(ll.NULL, b"KQvK.rtbw", b"x", 1) == pyfathom.Status.ARGUMENT


def test_closed_tablebase_takes_bytes_again(syzygy_dir: Path) -> None:
    """After close(), adding bytes opens a fresh instance, as add_directory
    does (python-chess's tablebase stays usable after close)."""
    tb = pyfathom.Tablebase()
    tb.close()
    tb.add_table_bytes("KQvK.rtbw", (syzygy_dir / "KQvK.rtbw").read_bytes())
    assert not tb.closed
    assert tb.probe_wdl(chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")) == 2
    tb.close()
