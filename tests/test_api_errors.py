"""Every error path of the Python API: the exception type AND its message.

Contract (shared/spec/API.md, "Errors"): a missing table, castling rights and
too many pieces are KeyErrors (get_* return the default); an invalid board is
a ValueError; a damaged file is an OSError that get_* do not hide; a closed
tablebase is an empty one.  Every message names the position or the file.

Damaged files are probed in a child process, so that a crash in the C core
shows up as a failed test with the signal, not as a dead test run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import numpy as np
import pytest

import pyfathom
from support.table_cache import copy_tables

KRVK = "8/8/8/8/8/8/2R5/1K1k4 w - - 0 1"  # white to move, KRvK, wins


def _every_probe_refuses(tablebase: pyfathom.Tablebase, board: chess.Board,
                         error: type[pyfathom.UnsupportedPositionError], message: str) -> None:
    """Each probe of ``board`` raises ``error`` (a KeyError, as python-chess's),
    with ``message``."""
    for probe in (tablebase.probe_wdl, tablebase.probe_dtz, tablebase.probe,
                  tablebase.probe_root):
        with pytest.raises(error) as info:
            probe(board)
        e = info.value
        assert isinstance(e, KeyError) and isinstance(e, pyfathom.UnsupportedPositionError)
        assert str(e) == message


# ---- missing tables ----------------------------------------------------------

def test_missing_table_names_metric_table_and_fen(syzygy_dir: Path, tmp_path: Path) -> None:
    d = copy_tables(syzygy_dir, tmp_path / "t", "KQvK.rtbw", "KQvK.rtbz")
    board = chess.Board(KRVK)
    with pyfathom.open_tablebase(d) as tb:
        with pytest.raises(pyfathom.MissingTableError) as info:
            tb.probe_wdl(board)
    e = info.value
    assert isinstance(e, KeyError)
    assert isinstance(e, chess.syzygy.MissingTableError)
    assert isinstance(e, pyfathom.FathomError)
    assert str(e) == f"did not find wdl table KRvK: {board.fen()}"
    assert e.table == "KRvK" and e.metric == "wdl"


def test_missing_dtz_table(syzygy_dir: Path) -> None:
    board = chess.Board(KRVK)
    with pyfathom.open_tablebase(syzygy_dir, load_dtz=False) as tb:
        assert tb.probe_wdl(board) == pyfathom.WDL.WIN
        with pytest.raises(pyfathom.MissingTableError) as info:
            tb.probe_dtz(board)
        assert str(info.value) == f"did not find dtz table KRvK: {board.fen()}"
        with pytest.raises(pyfathom.MissingTableError, match="dtz table KRvK"):
            tb.probe(board)
        with pytest.raises(pyfathom.MissingTableError, match="dtz table KRvK"):
            tb.probe_root(board)
        assert tb.get_dtz(board) is None
        assert tb.get_dtz(board, default=-999) == -999


def test_missing_table_reached_by_capture(syzygy_dir: Path, tmp_path: Path) -> None:
    # KRvKN is loaded, but probing it needs the tables its captures reach.
    d = copy_tables(syzygy_dir, tmp_path / "t", "KRvKN.rtbw", "KRvKN.rtbz")
    board = chess.Board("8/8/8/8/8/2k5/8/KRn5 w - - 0 1")  # Rxc1 and Kxb1 exist
    assert board.is_valid()
    with pyfathom.open_tablebase(d) as tb:
        with pytest.raises(pyfathom.MissingTableError) as info:
            tb.probe_wdl(board)
    e = info.value
    assert e.table in ("KRvK", "KNvK", "KvK"), str(e)
    assert str(e).startswith(f"did not find wdl table {e.table}")
    assert board.fen() in str(e)


def test_empty_tablebase(syzygy_dir: Path) -> None:
    with pyfathom.Tablebase() as tb:
        assert tb.largest == 0
        # With no table at all, the position's own table is missing.
        with pytest.raises(pyfathom.MissingTableError, match="did not find wdl table KRvK"):
            tb.probe_wdl(chess.Board(KRVK))
        assert tb.get_wdl(chess.Board(KRVK)) is None


# ---- positions the tables cannot hold ---------------------------------------

@pytest.mark.parametrize("fen", [
    "r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
    chess.STARTING_FEN,  # castling is checked before the piece count
])
def test_castling_rights(tablebase: pyfathom.Tablebase, fen: str) -> None:
    board = chess.Board(fen)
    _every_probe_refuses(tablebase, board, pyfathom.CastlingRightsError,
                         f"syzygy tables do not contain positions with castling rights: {board.fen()}")
    assert tablebase.get_wdl(board) is None
    assert tablebase.get_dtz(board, 7) == 7


@pytest.mark.parametrize("fen, without_castling", [
    ("r3k3/8/8/8/8/8/8/4K3 b q - 0 1", pyfathom.Status.OK),
    (chess.STARTING_FEN, pyfathom.Status.TOO_MANY_PIECES),  # castling comes first
])
def test_c_probes_refuse_castling_rights(tablebase: pyfathom.Tablebase, fen: str,
                                         without_castling: pyfathom.Status) -> None:
    """fathom.h's probes take a whole fathom_board: the C core itself answers
    a board with castling rights FATHOM_ERR_CASTLING (Python checks them
    before it calls, so only a C caller meets this), a NULL one
    FATHOM_ERR_ARGUMENT."""
    from pyfathom._core import ffi, lib

    board = ffi.new("fathom_board *")
    text = fen.encode()
    assert lib.fathom_parse_fen(text, len(text), board) == 0 and board.castling != 0
    moves = ffi.new("fathom_root_move[]", 256)
    count, ints = ffi.new("unsigned *"), ffi.new("int[3]")

    def statuses(b: Any) -> list[int]:
        packed = [probe(tablebase._h, b, ffi.NULL) & 0xFF for probe in (
            lib.fathom_probe_wdl, lib.fathom_probe_dtz, lib.fathom_probe_dtz_as_stored)]
        root = lib.fathom_probe_root(tablebase._h, b, moves, count, ints, ints + 1, ints + 2,
                                     ffi.NULL)
        return packed + [root]

    assert statuses(board) == [pyfathom.Status.CASTLING] * 4
    board.castling = 0
    assert statuses(board) == [without_castling] * 4
    assert statuses(ffi.NULL) == [pyfathom.Status.ARGUMENT] * 4


@pytest.mark.parametrize("variant", ["AtomicBoard", "SuicideBoard", "ThreeCheckBoard",
                                     "CrazyhouseBoard", "RacingKingsBoard"])
def test_chess_variants(tablebase: pyfathom.Tablebase, oracle: chess.syzygy.Tablebase,
                        variant: str) -> None:
    """A variant board gets a KeyError, as from chess.syzygy, not the
    standard-chess answer of its pieces."""
    import chess.variant

    fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1"
    board = getattr(chess.variant, variant)(fen)
    # python-chess raises a KeyError here since 1.10; older ones (down to the
    # oldest allowed, run by test_oldest_chess.py) probe the pieces instead.
    if tuple(int(p) for p in chess.__version__.split(".")[:2]) >= (1, 10):
        with pytest.raises(KeyError):
            oracle.probe_wdl(board)
    for probe in (tablebase.probe_wdl, tablebase.probe_dtz, tablebase.probe,
                  tablebase.probe_root):
        with pytest.raises(pyfathom.UnsupportedPositionError) as info:
            probe(board)
        e = info.value
        assert isinstance(e, KeyError)
        assert str(e) == (f"syzygy tables for standard chess, probed with "
                          f"{board.uci_variant}: {board.fen()}")
    assert tablebase.get_wdl(board) is None
    assert tablebase.get_dtz(board, 7) == 7
    standard = chess.Board(fen)
    assert tablebase.probe_wdl(standard) == pyfathom.WDL.WIN
    assert list(tablebase.probe_wdl_many([standard, board, standard])) == [2, pyfathom.FAILED, 2]
    assert tablebase.probe_dtz_many([board])[0] == pyfathom.FAILED_DTZ


def test_board_subclass_plays_standard_chess(tablebase: pyfathom.Tablebase,
                                             oracle: chess.syzygy.Tablebase) -> None:
    """A user's subclass of chess.Board is standard chess: probed as such
    (and its castling rights still refused)."""
    class MyBoard(chess.Board):
        pass

    board = MyBoard("8/8/8/8/8/2k5/8/KR6 b - - 0 1")
    assert tablebase.probe_wdl(board) == oracle.probe_wdl(board)
    assert tablebase.probe_dtz(board) == oracle.probe_dtz(board)
    assert tablebase.probe(board).dtz == oracle.probe_dtz(board)
    assert tablebase.probe_root(board).dtz == oracle.probe_dtz(board)
    with pytest.raises(pyfathom.CastlingRightsError):
        tablebase.probe_wdl(MyBoard("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"))


@pytest.mark.parametrize("fen,pieces", [
    ("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1", 8),
    ("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1", 10),
])
def test_too_many_pieces(tablebase: pyfathom.Tablebase, fen: str, pieces: int) -> None:
    """Only past 7 pieces (more than any Syzygy table); fewer, but more than
    the loaded tables, is probed: see tests/test_dropin.py."""
    board = chess.Board(fen)
    assert tablebase.largest == 4
    _every_probe_refuses(tablebase, board, pyfathom.TooManyPiecesError,
                         f"syzygy tables support up to 7 pieces, not {pieces}: {board.fen()}")
    assert tablebase.get_wdl(board) is None
    assert tablebase.get_dtz(board) is None


# ---- invalid boards ------------------------------------------------------------

@pytest.mark.parametrize("fen,reason", [
    ("8/8/8/8/8/8/8/KQ6 w - - 0 1", "no black king"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawns on backrank"),
    ("8/8/8/8/8/8/8/KR2k3 w - - 0 1", "opposite check"),
    ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "invalid ep square"),
    ("4k3/8/8/8/3P4/8/8/4K3 w - e6 0 1", "invalid ep square"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "empty"),
    # Two queens checking from two diagonals: no last move gives that.  This
    # rule came with python-chess 1.3.2, pyfathom's oldest (before it,
    # is_valid() was true and the probe still refused the board).
    ("8/2Q5/1k6/Q4K2/8/8/8/8 b - - 0 1", "impossible check"),
])
def test_invalid_position(tablebase: pyfathom.Tablebase, fen: str, reason: str) -> None:
    board = chess.Board(fen)
    assert not board.is_valid()
    for probe in (tablebase.probe_wdl, tablebase.probe_dtz, tablebase.probe,
                  tablebase.probe_root, tablebase.get_wdl, tablebase.get_dtz):
        with pytest.raises(pyfathom.InvalidPositionError) as info:
            probe(board)
        e = info.value
        assert isinstance(e, ValueError) and isinstance(e, pyfathom.FathomError)
        assert str(e).startswith("invalid position (")
        assert reason in str(e)
        assert str(e).endswith(f": {board.fen()}")


def test_valid_ep_square_is_accepted(tablebase: pyfathom.Tablebase,
                                     oracle: chess.syzygy.Tablebase) -> None:
    board = chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    assert board.is_valid()
    assert tablebase.probe_wdl(board) == oracle.probe_wdl(board)
    assert tablebase.probe_dtz(board) == oracle.probe_dtz(board)


# ---- directories -----------------------------------------------------------------

def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        pyfathom.open_tablebase(tmp_path / "nope")
    assert info.value.filename == str(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pyfathom.Tablebase() as tb:
        with pytest.raises(NotADirectoryError):
            tb.add_directory(tmp_path / "file")


def test_directory_list_and_counts(syzygy_dir: Path, tmp_path: Path) -> None:
    a = copy_tables(syzygy_dir, tmp_path / "a", "KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw")
    b = copy_tables(syzygy_dir, tmp_path / "b", "KRvK.rtbz")
    (tmp_path / "a" / "README.txt").write_text("not a table")
    with pyfathom.Tablebase() as tb:
        assert tb.add_directory(a) == 3
        assert tb.add_directory(b, load_wdl=True, load_dtz=False) == 0
        assert tb.add_directory(b) == 1
        assert tb.probe_dtz(chess.Board(KRVK)) > 0
    with pyfathom.open_tablebase([a, str(b)]) as tb:
        assert tb.probe_dtz(chess.Board(KRVK)) > 0


# ---- damaged files (probed in a child process) -----------------------------------

_CHILD = textwrap.dedent("""
    import json, sys
    import chess, pyfathom
    tables, fen, method = sys.argv[1:4]
    tb = pyfathom.open_tablebase(tables)
    result = {}
    try:
        getattr(tb, method)(chess.Board(fen))
        result["raised"] = None
    except BaseException as e:
        result["raised"] = type(e).__name__
        result["classes"] = [c.__name__ for c in type(e).__mro__]
        result["message"] = str(e)
        result["filename"] = getattr(e, "filename", None)
    print(json.dumps(result))
""")


def _probe_in_child(tables: Path, fen: str, method: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(tables), fen, method],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        f"probing a damaged table crashed the process (exit {proc.returncode}):\n"
        f"{proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "magic":
        data[0] ^= 0xFF
    elif how == "size":
        data = data[:-1]  # no longer 16 mod 64
    elif how == "truncated":
        keep = max(64, (len(data) // 2) // 64 * 64) + 16  # still 16 mod 64
        data = data[:keep]
    elif how == "empty":
        data = bytearray()
    else:  # pragma: no cover
        raise AssertionError(how)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how,wording", [
    ("magic", "magic"),
    ("size", "size"),
    ("truncated", ""),
    ("empty", ""),
])
@pytest.mark.parametrize("kind,method", [
    ("rtbw", "probe_wdl"),
    ("rtbw", "get_wdl"),
    ("rtbz", "probe_dtz"),
    ("rtbz", "get_dtz"),
])
def test_corrupt_table(syzygy_dir: Path, tmp_path: Path, how: str, wording: str,
                       kind: str, method: str) -> None:
    d = copy_tables(syzygy_dir, tmp_path / "t", "KRvK.rtbw", "KRvK.rtbz")
    damaged = d / f"KRvK.{kind}"
    _damage(damaged, how)
    result = _probe_in_child(d, KRVK, method)
    assert result["raised"] == "CorruptTableError", result
    assert "OSError" in result["classes"] and "FathomError" in result["classes"]
    assert result["filename"] == str(damaged)
    assert repr(str(damaged)) in result["message"]
    assert wording in result["message"].lower()
    assert chess.Board(KRVK).fen() in result["message"]


def test_corrupt_table_in_process(syzygy_dir: Path, tmp_path: Path) -> None:
    # Same as above without the child, once the child has shown it is safe.
    d = copy_tables(syzygy_dir, tmp_path / "t", "KRvK.rtbw", "KRvK.rtbz")
    _damage(d / "KRvK.rtbw", "magic")
    assert _probe_in_child(d, KRVK, "probe_wdl")["raised"] == "CorruptTableError"
    with pyfathom.open_tablebase(d) as tb:
        with pytest.raises(pyfathom.CorruptTableError) as info:
            tb.probe_wdl(chess.Board(KRVK))
        assert isinstance(info.value, OSError)
        assert info.value.filename == str(d / "KRvK.rtbw")
        # The failure is not cached into a crash: probing again raises again.
        with pytest.raises(pyfathom.CorruptTableError):
            tb.get_wdl(chess.Board(KRVK))
        # A batch does not raise for the bad row.
        out = tb.probe_wdl_many([chess.Board(KRVK)])
        assert out.tolist() == [pyfathom.FAILED]


def test_vanished_table_file(syzygy_dir: Path, tmp_path: Path) -> None:
    # Registered, then deleted before its first probe: an OSError naming it.
    d = copy_tables(syzygy_dir, tmp_path / "t", "KRvK.rtbw", "KRvK.rtbz")
    board = chess.Board(KRVK)
    with pyfathom.open_tablebase(d) as tb:
        (d / "KRvK.rtbw").unlink()
        for probe in (tb.probe_wdl, tb.get_wdl, tb.probe_root):
            with pytest.raises(pyfathom.TableFileError) as info:
                probe(board)
            e = info.value
            assert isinstance(e, OSError) and not isinstance(e, KeyError)
            assert e.filename == str(d / "KRvK.rtbw")
            assert str(e).endswith(f"{str(d / 'KRvK.rtbw')!r} (wdl table KRvK), "
                                   f"while probing {board.fen()}")
        assert tb.probe_wdl_many([board]).tolist() == [pyfathom.FAILED]


# ---- closed tablebase -------------------------------------------------------------

def test_closed_tablebase_is_an_empty_one(syzygy_dir: Path) -> None:
    """As python-chess's close(): the object stays usable, as an empty
    tablebase (more in tests/test_dropin.py)."""
    tb = pyfathom.open_tablebase(syzygy_dir)
    board = chess.Board(KRVK)
    assert tb.probe_wdl(board) == pyfathom.WDL.WIN
    assert tb.mapped_count > 0
    tb.close()
    tb.close()  # twice is fine
    assert tb.closed
    assert "closed" in repr(tb)
    assert (tb.largest, tb.mapped_count) == (0, 0)
    for call in (tb.probe_wdl, tb.probe_dtz, tb.probe, tb.probe_root):
        with pytest.raises(pyfathom.MissingTableError, match="did not find wdl table KRvK"):
            call(board)
    assert (tb.get_wdl(board), tb.get_dtz(board)) == (None, None)
    castling = chess.Board("r3k3/8/8/8/8/8/8/4K3 b q - 0 1")
    with pytest.raises(pyfathom.CastlingRightsError):
        tb.probe_wdl(castling)
    assert tb.probe_wdl_many([board]).tolist() == [pyfathom.FAILED]
    assert tb.probe_dtz_many([board]).tolist() == [pyfathom.FAILED_DTZ]
    assert tb.add_directory(syzygy_dir) == 70
    assert not tb.closed
    assert tb.probe_wdl(board) == pyfathom.WDL.WIN
    tb.close()


def test_context_manager_closes(syzygy_dir: Path) -> None:
    with pyfathom.open_tablebase(syzygy_dir) as tb:
        assert not tb.closed
    assert tb.closed
    with pytest.raises(KeyError):
        tb.probe_wdl(chess.Board(KRVK))


# ---- get_* return the default only for KeyErrors --------------------------------

def test_get_default_only_for_key_errors(tablebase: pyfathom.Tablebase) -> None:
    sentinel = object()
    assert tablebase.get_wdl(chess.Board(KRVK), sentinel) == pyfathom.WDL.WIN
    assert tablebase.get_wdl(chess.Board(), sentinel) is sentinel
    assert tablebase.get_dtz(chess.Board("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1"),
                             sentinel) is sentinel
    with pytest.raises(pyfathom.InvalidPositionError):
        tablebase.get_wdl(chess.Board("8/8/8/8/8/8/8/KR2k3 w - - 0 1"), sentinel)


# ---- batch argument checking -------------------------------------------------------

def _cols(n: int = 3) -> list[Any]:
    b = chess.Board(KRVK)
    masks = [b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings,
             b.queens, b.rooks, b.bishops, b.knights, b.pawns]
    return [np.full(n, m, dtype=np.uint64) for m in masks] + [
        np.zeros(n, np.uint8), np.ones(n, np.uint8)]


def test_bitboards_arguments(tablebase: pyfathom.Tablebase) -> None:
    ok = _cols()
    assert tablebase.probe_wdl_bitboards(*ok).tolist() == [2, 2, 2]
    # Wrong dtype kind: TypeError naming the argument.
    bad = list(ok)
    bad[3] = ok[3].astype(np.float64)
    with pytest.raises(TypeError, match="^queens must be an array of uint64"):
        tablebase.probe_wdl_bitboards(*bad)
    bad = list(ok)
    bad[9] = np.array(["w"] * 3)
    with pytest.raises(TypeError, match="^turn must be an array of integers"):
        tablebase.probe_dtz_bitboards(*bad)
    # Wrong length, shape, range: ValueError naming the argument.
    bad = list(ok)
    bad[1] = ok[1][:2]
    with pytest.raises(ValueError, match="^black has 2 entries but white has 3$"):
        tablebase.probe_wdl_bitboards(*bad)
    bad = list(ok)
    bad[0] = ok[0].reshape(3, 1)
    with pytest.raises(ValueError, match="^white must be a 1-dimensional array"):
        tablebase.probe_wdl_bitboards(*bad)
    bad = list(ok)
    bad[8] = np.array([0, 64, 0])
    with pytest.raises(ValueError, match=r"^ep values must be in 0\.\.63, found 64$"):
        tablebase.probe_wdl_bitboards(*bad)
    bad = list(ok)
    bad[9] = np.array([1, 2, 1], dtype=np.int32)
    with pytest.raises(ValueError, match=r"^turn values must be in 0\.\.1, found 2$"):
        tablebase.probe_wdl_bitboards(*bad)
    bad = list(ok)
    bad[2] = ok[2].astype(np.int8)
    bad[2][0] = -1
    with pytest.raises(ValueError, match="^kings holds a negative int8"):
        tablebase.probe_wdl_bitboards(*bad)
    with pytest.raises(ValueError, match="threads must be >= 0"):
        tablebase.probe_wdl_bitboards(*ok, threads=-1)
    with pytest.raises(TypeError, match="threads must be an int"):
        tablebase.probe_wdl_bitboards(*ok, threads=1.5)  # type: ignore[arg-type]


def test_batch_rows_fail_without_raising(tablebase: pyfathom.Tablebase) -> None:
    boards = [
        chess.Board(KRVK),
        chess.Board(),  # castling rights
        chess.Board("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1"),  # too many pieces
        chess.Board("8/8/8/8/8/8/8/KR2k3 w - - 0 1"),  # invalid
        chess.Board("4k3/8/8/8/8/8/8/RNB1K3 w - - 0 1"),  # 5 pieces
    ]
    wdl = tablebase.probe_wdl_many(boards)
    dtz = tablebase.probe_dtz_many(boards)
    assert wdl.dtype == np.int8 and dtz.dtype == np.int16
    assert wdl.tolist() == [2] + [pyfathom.FAILED] * 4
    assert dtz.tolist()[1:] == [pyfathom.FAILED_DTZ] * 4
    assert dtz[0] == tablebase.probe_dtz(boards[0])
    assert tablebase.probe_wdl_many([]).shape == (0,)
    assert tablebase.probe_dtz_many(iter([])).dtype == np.int16


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc/self/maps (Linux)")
def test_close_unmaps_at_once(syzygy_dir: Path, tmp_path: Path) -> None:
    """close() frees the C instance (and so every mapping) right away when
    no probe is running, even though the instance is reference counted."""
    for name in ("KBNvK.rtbw", "KBNvK.rtbz", "KBvK.rtbw", "KNvK.rtbw"):
        shutil.copy(syzygy_dir / name, tmp_path / name)
    syzygy_dir = tmp_path  # a private copy: other tests map the shared one
    tb = pyfathom.open_tablebase(syzygy_dir)
    tb.probe_dtz(chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"))
    assert tb.mapped_count > 0

    def mapped_tables() -> int:
        with open("/proc/self/maps") as maps:
            return sum(str(syzygy_dir) in line for line in maps)

    assert mapped_tables() > 0
    tb.close()
    assert mapped_tables() == 0
