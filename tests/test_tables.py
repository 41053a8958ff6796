"""pyfathom.tables: path lists, table folders one level down, and the
damage check behind ``pyfathom info --check`` (the C core's
fathom_check_table).  The CLI side is in test_cli.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

import chess
import chess.syzygy
import pytest

import pyfathom
from pyfathom import tables
from support import table_cache
from support.table_cache import copy_tables

KRVK = "8/8/8/8/8/8/2R5/1K1k4 w - - 0 1"


# ---- path lists ------------------------------------------------------------------

def test_open_tablebase_takes_a_path_list(syzygy_dir: Path, tmp_path: Path) -> None:
    wdl = copy_tables(syzygy_dir, tmp_path / "wdl", "KRvK.rtbw")
    dtz = copy_tables(syzygy_dir, tmp_path / "dtz", "KRvK.rtbz")
    board = chess.Board(KRVK)
    with pyfathom.open_tablebase(f"{wdl}{os.pathsep}{os.pathsep}{dtz}") as tb:
        assert tb.probe_wdl(board) == pyfathom.WDL.WIN
        assert tb.probe_dtz(board) > 0
    with pyfathom.open_tablebase(str(wdl)) as tb:  # one directory: DTZ missing
        with pytest.raises(pyfathom.MissingTableError):
            tb.probe_dtz(board)
    with pytest.raises(FileNotFoundError):
        pyfathom.open_tablebase(f"{wdl}{os.pathsep}{tmp_path / 'nope'}")


def test_a_folder_named_with_the_separator_stays_whole(syzygy_dir: Path, tmp_path: Path) -> None:
    odd = copy_tables(syzygy_dir, tmp_path / f"odd{os.pathsep}name", "KRvK.rtbw", "KRvK.rtbz")
    assert tables.split_path_list(str(odd)) == [str(odd)]
    with pyfathom.open_tablebase(str(odd)) as tb:
        assert tb.probe_dtz(chess.Board(KRVK)) > 0


def test_table_dirs_order_and_splitting(syzygy_dir: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """--tables wins over $SYZYGY_PATH, which wins over the download
    directory; both lists are split as split_path_list splits them."""
    odd = copy_tables(syzygy_dir, tmp_path / f"odd{os.pathsep}name", "KRvK.rtbw")
    other = tmp_path / "other"
    monkeypatch.setenv("PYFATHOM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SYZYGY_PATH", f"{other}{os.pathsep}{os.pathsep}{tmp_path}")
    assert tables.table_dirs([str(odd), f"{other}{os.pathsep}"]) == ([odd, other], "--tables")
    assert tables.table_dirs() == ([other, tmp_path], "SYZYGY_PATH")
    monkeypatch.setenv("SYZYGY_PATH", str(odd))  # one folder whose name holds the separator
    assert tables.table_dirs() == ([odd], "SYZYGY_PATH")
    assert tables.find_table_files(tables.table_dirs()[0]) == {"KRvK.rtbw": [odd / "KRvK.rtbw"]}
    monkeypatch.setenv("SYZYGY_PATH", os.pathsep)
    assert tables.table_dirs() == ([tmp_path / "home" / "syzygy"], "default")
    assert tables.default_dir() == tmp_path / "home" / "syzygy"


# ---- folders one level down --------------------------------------------------------

def test_table_folders_one_level_down(syzygy_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "syzygy"
    copy_tables(syzygy_dir, root / "3-4-dtz", "KRvK.rtbz")
    copy_tables(syzygy_dir, root / "3-4-wdl", "KRvK.rtbw")
    (root / "docs").mkdir()
    (root / "docs" / "README").write_text("no tables here")
    copy_tables(syzygy_dir, root / ".trash", "KQvK.rtbw")          # hidden: not a set
    copy_tables(syzygy_dir, root / "a" / "deeper", "KQvK.rtbz")    # two levels: not searched
    assert tables.table_folders([root]) == [root / "3-4-dtz", root / "3-4-wdl"]
    copy_tables(syzygy_dir, root, "KQvK.rtbw")                     # the folder itself first
    assert tables.table_folders([root, root / "3-4-wdl"]) == [
        root, root / "3-4-dtz", root / "3-4-wdl"]
    assert tables.table_folders([tmp_path / "nope"]) == []


def test_table_folders_of_each_variant(tmp_path: Path) -> None:
    """The one lookup knows each game's suffixes (only names are read)."""
    root = tmp_path / "sets"
    for folder, name in (("std", "KRvK.rtbw"), ("atomic", "KBNvK.atbw"),
                         ("suicide", "BBvN.stbz"), ("giveaway", "BBvN.gtbw")):
        (root / folder).mkdir(parents=True)
        (root / folder / name).write_bytes(b"")
    (root / "atomic" / "KRvK.rtbw").mkdir()  # a directory named as a table: not a table
    assert tables.table_folders([root]) == [root / "std"]
    assert tables.table_folders([root], "atomic") == [root / "atomic"]
    # The antichess family reads its sibling's (pawnless) tables too.
    assert tables.table_folders([root], "suicide") == [root / "giveaway", root / "suicide"]
    assert tables.table_folders([root], "antichess") == [root / "giveaway", root / "suicide"]
    assert tables.table_folders([root], "crazyhouse") == []


def test_open_tablebase_loads_the_sets_one_level_down(syzygy_dir: Path, tmp_path: Path) -> None:
    """As the command line: ``open_tablebase("syzygy")`` finds
    ``syzygy/3-4-wdl`` and ``syzygy/3-4-dtz``, and still the folder's own."""
    root = tmp_path / "syzygy"
    copy_tables(syzygy_dir, root / "3-4-wdl", "KRvK.rtbw")
    copy_tables(syzygy_dir, root / "3-4-dtz", "KRvK.rtbz")
    copy_tables(syzygy_dir, root, "KQvK.rtbw")
    board, queen = chess.Board(KRVK), chess.Board("8/8/8/8/8/2Q5/8/1K1k4 w - - 0 1")
    with chess.syzygy.open_tablebase(str(syzygy_dir)) as oracle:
        expected = [oracle.probe_wdl(board), oracle.probe_dtz(board), oracle.probe_wdl(queen)]
    with pyfathom.open_tablebase(root) as tb:
        assert [tb.probe_wdl(board), tb.probe_dtz(board), tb.probe_wdl(queen)] == expected
    with pyfathom.open_tablebase([root / "3-4-wdl"]) as tb:  # a set alone: no DTZ table
        with pytest.raises(pyfathom.MissingTableError):
            tb.probe_dtz(board)


def test_variant_tables_one_level_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The drop-in and the command line find a variant's set one level
    down, as they find standard sets."""
    import json

    import chess.variant

    from pyfathom.cli import main
    from support.variant_positions import variant_dir

    root = tmp_path / "variants"
    root.mkdir()
    (root / "atomic").symlink_to(variant_dir("atomic"))
    board = chess.variant.AtomicBoard("8/8/8/8/8/8/1Q6/K2k4 w - - 0 1")
    with chess.syzygy.open_tablebase(str(root / "atomic"),
                                     VariantBoard=chess.variant.AtomicBoard) as oracle:
        expected = oracle.probe_dtz(board)
        expected_wdl = oracle.probe_wdl(board)
    with pyfathom.open_tablebase(root, VariantBoard=chess.variant.AtomicBoard) as tb:
        assert tb.largest >= 3
        assert (tb.probe_wdl(board), tb.probe_dtz(board)) == (expected_wdl, expected)
    assert main(["probe", "--json", "--variant", "atomic", "--tables", str(root),
                 board.fen()]) == 0
    assert json.loads(capsys.readouterr().out)[0]["dtz"] == expected
    assert main(["probe", "--variant", "suicide", "--tables", str(root), board.fen()]) != 0
    assert "no suicide Syzygy tables found" in capsys.readouterr().err


# ---- the damage check ----------------------------------------------------------------

def test_good_tables_pass(syzygy_dir: Path) -> None:
    files = sorted(syzygy_dir.glob("*.rtb?"))
    assert len(files) == 70
    assert tables.check_tables(files, checksums=tables.published_checksums()) == []
    if table_cache.SYZYGY5.is_dir():  # the 5-piece files: bigger streams, more blocks
        assert tables.check_tables(sorted(table_cache.SYZYGY5.glob("*.rtb?"))) == []


def test_an_interrupted_check_reads_no_more_files(syzygy_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C (here raised by the progress callback after the first file)
    stops check_tables: it propagates, and the files still queued are
    never read (without cancelling them, the pool's exit read all 70
    before the interrupt took effect: hours on a 7-piece set)."""
    files = sorted(syzygy_dir.glob("*.rtb?"))
    read: list[str] = []
    real = tables._check_one
    slow = True

    def counting(path: Path, sha256: str | None, stop: object) -> tables.TableDamage | None:
        read.append(Path(path).name)
        if len(read) > 1 and slow:  # the others as slow as big files: the interrupt comes first
            time.sleep(1.0)
        return real(path, sha256, stop)

    def interrupt(path: Path, done: int, total: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tables, "_check_one", counting)
    with pytest.raises(KeyboardInterrupt):
        tables.check_tables(files, threads=2, progress=interrupt)
    # The first file, and at most the two the threads had begun meanwhile.
    assert 1 <= len(read) <= 3, read
    read.clear()
    slow = False
    assert tables.check_tables(files, threads=2) == [] and len(read) == len(files) == 70


def _flip(path: Path, offset: int, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def test_damaged_tables_are_found_among_good_ones(syzygy_dir: Path, tmp_path: Path) -> None:
    names = ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz", "KBNvK.rtbw", "KBNvK.rtbz",
             "KPvK.rtbw", "KPvK.rtbz", "KRvKN.rtbw", "KRvKN.rtbz"]
    d = copy_tables(syzygy_dir, tmp_path / "t", *names)
    size = (d / "KBNvK.rtbz").stat().st_size
    with open(d / "KBNvK.rtbz", "r+b") as f:            # truncated
        f.truncate(size // 2)
    (d / "KPvK.rtbw").write_bytes(b"")                   # zero length
    _flip(d / "KRvKN.rtbw", 4, 1)                        # header: "has pawns" set
    _flip(d / "KRvKN.rtbz", (d / "KRvKN.rtbz").stat().st_size // 2, 3)  # inside the data
    files = sorted(d.iterdir())

    found = {damage.path.name: damage for damage in tables.check_tables(files)}
    assert set(found) == {"KBNvK.rtbz", "KPvK.rtbw", "KRvKN.rtbw"} | (
        {"KRvKN.rtbz"} if "KRvKN.rtbz" in found else set())
    assert found["KBNvK.rtbz"].reason == f"{size // 2} bytes: not a whole table (truncated or padded)"
    assert found["KPvK.rtbw"].reason == "empty file"
    assert "corrupt" in found["KRvKN.rtbw"].reason

    # With the published checksums, a flipped bit anywhere shows.
    found = {damage.path.name: damage
             for damage in tables.check_tables(files, checksums=tables.published_checksums())}
    assert set(found) == {"KBNvK.rtbz", "KPvK.rtbw", "KRvKN.rtbw", "KRvKN.rtbz"}
    assert "is not the published" in found["KRvKN.rtbz"].reason or "decode" in found["KRvKN.rtbz"].reason
    assert str(found["KPvK.rtbw"]) == f"{d / 'KPvK.rtbw'}: empty file"


def test_structure_catches_most_bit_flips(syzygy_dir: Path, tmp_path: Path) -> None:
    """Without a checksum, bit flips spread over a whole file are mostly
    found: the index and block sizes are pinned exactly, and a flip in
    compressed data usually moves where a block's codes end; a code turned
    into another of the same length is not visible (measured here: 164 of
    201 flips found)."""
    source = syzygy_dir / "KRvKP.rtbw"
    data = source.read_bytes()
    target = tmp_path / "KRvKP.rtbw"
    found = 0
    offsets = range(64, len(data) - 16, max(1, (len(data) - 80) // 200))
    for offset in offsets:
        damaged = bytearray(data)
        damaged[offset] ^= 0x10
        target.write_bytes(bytes(damaged))
        found += tables.check_table(target) is not None
    # Measured: most single-bit flips change where a block's codes end.
    assert found >= len(offsets) // 2, f"{found} of {len(offsets)} flips found"


def test_not_a_table(tmp_path: Path) -> None:
    (tmp_path / "notes.rtbw").write_bytes(b"x" * 80)
    damage = tables.check_table(tmp_path / "notes.rtbw")
    assert damage is not None and "not a Syzygy table name" in damage.reason
    damage = tables.check_table(tmp_path / "KQvK.rtbw")
    assert damage is not None and damage.reason.startswith("cannot read the file")
