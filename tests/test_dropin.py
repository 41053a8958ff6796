"""pyfathom as a drop-in for chess.syzygy, point by point, against python-chess.

Signatures and keywords, ``add_file``, directories kept as absolute paths,
positions with more pieces than the loaded tables (captures first, as
python-chess; per board, in batches and through the Fathom facade), close()
then reuse, and ``str``/``format``/``csv`` of :class:`pyfathom.WDL` on
Python 3.10 and the newest Python found.  python-chess 1.11.2 is the oracle
throughout: each test runs the same calls on both.
"""

from __future__ import annotations

import csv
import functools
import glob
import inspect
import io
import os
import random
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import chess.variant
import numpy as np
import pytest

from support import positions as P
import pyfathom
from pyfathom import Status

ROOT = Path(__file__).resolve().parents[1]


# ---- 1. signatures and keywords -------------------------------------------------

def _shape(fn: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    """Parameter names, kinds and defaults (annotations aside)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", ["__init__", "add_directory", "add_file", "probe_wdl",
                                  "probe_dtz", "get_wdl", "get_dtz", "close"])
def test_tablebase_methods_have_python_chess_signatures(name: str) -> None:
    assert _shape(getattr(pyfathom.Tablebase, name)) == \
        _shape(getattr(chess.syzygy.Tablebase, name))


def test_open_tablebase_has_python_chess_signature() -> None:
    assert _shape(pyfathom.open_tablebase) == _shape(chess.syzygy.open_tablebase)


def test_every_keyword_of_python_chess(syzygy_dir: Path) -> None:
    board = chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1")
    with pyfathom.open_tablebase(directory=str(syzygy_dir), load_wdl=True, load_dtz=False,
                                 max_fds=2, VariantBoard=chess.Board) as tb, \
            chess.syzygy.open_tablebase(directory=str(syzygy_dir), load_wdl=True,
                                        load_dtz=False, max_fds=2,
                                        VariantBoard=chess.Board) as theirs:
        assert (tb.max_fds, tb.variant) == (theirs.max_fds, theirs.variant) == (2, chess.Board)
        assert tb.probe_wdl(board) == theirs.probe_wdl(board) == -2
        for probe in (tb.probe_dtz, theirs.probe_dtz):
            with pytest.raises(chess.syzygy.MissingTableError, match="did not find dtz table KRvK"):
                probe(board)
    for max_fds in (None, 0, 128):
        with pyfathom.Tablebase(max_fds=max_fds, VariantBoard=chess.Board) as tb:
            assert tb.max_fds == max_fds
            assert tb.add_directory(directory=syzygy_dir, load_wdl=False, load_dtz=True) == 35
            assert tb.largest == 0  # no WDL table: as python-chess, DTZ needs WDL
            assert tb.get_dtz(board, default=-999) == -999
    with pytest.raises(TypeError):
        pyfathom.Tablebase(128)  # type: ignore[misc]  # keyword-only, as python-chess


class StandardSubclass(chess.Board):
    pass


def test_variant_board_other_than_chess_is_a_clear_error(syzygy_dir: Path) -> None:
    with pyfathom.Tablebase(VariantBoard=StandardSubclass) as tb:
        assert tb.variant is StandardSubclass
    # Atomic and the antichess family have tables (tests/test_variants.py);
    # the other variants have none.
    for variant in (chess.variant.CrazyhouseBoard, chess.variant.ThreeCheckBoard,
                    chess.variant.KingOfTheHillBoard, chess.variant.HordeBoard,
                    chess.variant.RacingKingsBoard):
        for make in (lambda: pyfathom.Tablebase(VariantBoard=variant),
                     lambda: pyfathom.open_tablebase(syzygy_dir, VariantBoard=variant)):
            with pytest.raises(pyfathom.UnsupportedVariantError) as info:
                make()
            assert isinstance(info.value, ValueError)
            assert variant.uci_variant in str(info.value)
            assert variant.__name__ in str(info.value)
    for wrong in ("atomic", chess.Board(), int):
        with pytest.raises(TypeError, match="VariantBoard must be chess.Board or a subclass"):
            pyfathom.Tablebase(VariantBoard=wrong)  # type: ignore[arg-type]


def test_directory_lists_are_an_extra(syzygy_dir: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    for name in ("KRvK.rtbw", "KRvK.rtbz"):
        shutil.copy(syzygy_dir / name, first / name)
    for name in ("KQvK.rtbw", "KQvK.rtbz"):
        shutil.copy(syzygy_dir / name, second / name)
    krk, kqk = chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"), chess.Board("8/8/8/8/8/8/2Qk4/1K6 b - - 0 1")
    for directory in ([first, second], (str(first), second),
                      f"{first}{os.pathsep}{os.pathsep}{second}{os.pathsep}"):
        with pyfathom.open_tablebase(directory) as tb:  # type: ignore[arg-type]
            assert (tb.probe_wdl(krk), tb.probe_wdl(kqk)) == (-2, -2), directory


# ---- 2. add_file ----------------------------------------------------------------

def test_add_file_as_python_chess(syzygy_dir: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KRvK.rtbw", "KRvK.rtbz", "KQvK.rtbw"):
        shutil.copy(syzygy_dir / name, tmp_path / name)
    (tmp_path / "KBvK.rtbw").mkdir()          # a directory named like a table
    (tmp_path / "notes.rtbw").touch()         # not a table name
    (tmp_path / "KvKR.rtbw").touch()          # not the normalised name
    monkeypatch.chdir(tmp_path)
    calls: list[tuple[str, dict[str, bool]]] = [
        ("KRvK.rtbw", {}), ("KRvK.rtbz", {}), ("KQvK.rtbw", {"load_wdl": False}),
        ("KQvK.rtbw", {"load_dtz": False}), ("KRvK.rtbz", {"load_dtz": False}),
        ("KBvK.rtbw", {}), ("notes.rtbw", {}), ("KvKR.rtbw", {}), ("missing/KNvK.rtbw", {}),
        (str(tmp_path / "KRvK.rtbw"), {}),
    ]
    ours = pyfathom.Tablebase()
    theirs = chess.syzygy.Tablebase()
    got = [ours.add_file(path, **kw) for path, kw in calls]
    assert got == [theirs.add_file(path, **kw) for path, kw in calls]
    assert got == [1, 1, 0, 1, 0, 0, 0, 0, 0, 1]
    assert ours.add_file(Path("KRvK.rtbw")) == 1  # a PathLike too
    boards = [chess.Board(f) for f in ("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",
                                       "8/8/8/8/8/8/2Qk4/1K6 b - - 0 1")]
    for board in boards:
        assert ours.probe_wdl(board) == theirs.probe_wdl(board)
    assert ours.probe_dtz(boards[0]) == theirs.probe_dtz(boards[0])
    for probe in (ours.probe_dtz, theirs.probe_dtz):
        with pytest.raises(chess.syzygy.MissingTableError, match="dtz table KQvK"):
            probe(boards[1])
    ours.close()
    theirs.close()


# ---- 3. relative paths, then chdir ----------------------------------------------

def test_relative_directory_and_file_survive_chdir(syzygy_dir: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    tables = tmp_path / "tables"
    shutil.copytree(syzygy_dir, tables)  # a private copy: nothing mapped yet
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    ours = pyfathom.open_tablebase("tables")
    theirs = chess.syzygy.open_tablebase("tables")
    one_file = pyfathom.Tablebase()
    theirs_one_file = chess.syzygy.Tablebase()
    for tb in (one_file, theirs_one_file):
        assert tb.add_file(os.path.join("tables", "KRvK.rtbw")) == 1
        assert tb.add_file(os.path.join("tables", "KRvK.rtbz")) == 1
    monkeypatch.chdir(elsewhere)
    assert ours.mapped_count == 0
    for fen in ("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1", "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",
                "5BrN/8/8/8/8/2k5/8/2K5 b - - 0 1"):
        board = chess.Board(fen)
        assert ours.probe_wdl(board) == theirs.probe_wdl(board), fen
        assert ours.probe_dtz(board) == theirs.probe_dtz(board), fen
    krk = chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1")
    assert one_file.probe_dtz(krk) == theirs.probe_dtz(krk)
    # The one difference (README): python-chess keeps add_file's path as given.
    with pytest.raises(FileNotFoundError):
        theirs_one_file.probe_wdl(krk)
    for tb in (ours, theirs, one_file, theirs_one_file):
        tb.close()


# ---- 4. more pieces than the loaded tables ----------------------------------------

def _outcome(tb: Any, board: chess.Board, metric: str) -> tuple[Any, ...]:
    """("ok", value) or ("missing", metric, normalised table name).

    python-chess names the material white first (``KvKQQ``); pyfathom names
    the table file (``KQQvK``, README "Differences from chess.syzygy"), so
    names are compared normalised."""
    try:
        return ("ok", int(tb.probe_dtz(board) if metric == "dtz" else tb.probe_wdl(board)))
    except chess.syzygy.MissingTableError as exc:
        words = str(exc.args[0]).split(":")[0].split()
        assert words[:3] == ["did", "not", "find"], exc
        if isinstance(exc, pyfathom.MissingTableError):
            assert (exc.metric, exc.table) == (words[3], words[5])
        return ("missing", words[3], chess.syzygy.normalize_tablename(words[5]))


@pytest.fixture(scope="module")
def three_piece_dir(tmp_path_factory: pytest.TempPathFactory, syzygy_dir: Path) -> Path:
    """Only the five 3-piece tables."""
    d = tmp_path_factory.mktemp("three-piece")
    for key in P.TABLES_3:
        for ext in (".rtbw", ".rtbz"):
            os.symlink(syzygy_dir / (key + ext), d / (key + ext))
    return d


def _four_piece_boards() -> list[chess.Board]:
    """2,010 positions: 67 of each 4-piece material, a fifth of those with
    pawns on both sides having an en-passant capture, a tenth after a
    double push."""
    boards = []
    for key in P.TABLES_4:
        boards += P.table_sample(key, 67, seed=12, ep_share=0.2, push_share=0.1)
    return boards


def _clustered(rng: random.Random, key: str) -> chess.Board:
    """A valid position of ``key`` with every piece in one 4x4 square: many
    captures, checks and evasions, where python-chess's move order decides
    which missing table it meets first."""
    pieces = P.parse_material(key, swap=rng.random() < 0.5)
    while True:
        f0, r0 = rng.randrange(5), rng.randrange(5)
        squares = rng.sample([chess.square(f0 + f, r0 + r) for f in range(4) for r in range(4)],
                             len(pieces))
        board = chess.Board(None)
        for square, piece in zip(squares, pieces):
            board.set_piece_at(square, piece)
        board.turn = rng.random() < 0.5
        if board.is_valid():
            return board


def _compare(ours: Any, theirs: Any, boards: list[chess.Board]) -> dict[str, Any]:
    """Per-board outcomes of both; a mismatch report; the counts."""
    bad, answered = [], 0
    outcomes = {}
    for board in boards:
        for metric in ("wdl", "dtz"):
            expected, got = _outcome(theirs, board, metric), _outcome(ours, board, metric)
            outcomes[(board.fen(), metric)] = got
            if expected != got:
                bad.append(f"{board.fen()} {metric}: python-chess {expected}, pyfathom {got}")
        answered += outcomes[(board.fen(), "wdl")][0] == "ok"
    assert not bad, P.mismatch_report("capture resolution", 2 * len(boards), bad)
    return {"answered": answered, "outcomes": outcomes}


def test_capture_resolution_per_board_and_batch(three_piece_dir: Path) -> None:
    """The issue's case: only the 3-piece tables, 2,010 4-piece positions.
    python-chess answers those where a capture decides, and raises
    MissingTableError naming the table for the rest; so does pyfathom, per
    board, and batch rows hold the same value or FAILED with MISSING_TABLE."""
    boards = _four_piece_boards()
    assert len(boards) >= 2000
    assert any(b.ep_square for b in boards)
    with pyfathom.open_tablebase(three_piece_dir) as ours, \
            chess.syzygy.open_tablebase(str(three_piece_dir)) as theirs:
        assert ours.largest == 3
        result = _compare(ours, theirs, boards)
        assert 50 < result["answered"] < len(boards) - 500, result["answered"]
        outcomes = result["outcomes"]
        for metric, failed in (("wdl", pyfathom.FAILED), ("dtz", pyfathom.FAILED_DTZ)):
            expected = np.array([o[1] if o[0] == "ok" else failed for o in
                                 (outcomes[(b.fen(), metric)] for b in boards)])
            why = np.where(expected == failed, np.uint8(Status.MISSING_TABLE), np.uint8(Status.OK))
            cols = [v for v in P.to_arrays(boards).values()]
            for threads in (1, 2):
                status_many = np.full(len(boards), 255, dtype=np.uint8)
                status_arrays = np.full(len(boards), 255, dtype=np.uint8)
                many = getattr(ours, f"probe_{metric}_many")(boards, threads=threads,
                                                              status=status_many)
                arrays = getattr(ours, f"probe_{metric}_bitboards")(*cols, threads=threads,
                                                                     status=status_arrays)
                assert (many == expected).all() and (arrays == expected).all(), (metric, threads)
                assert (status_many == why).all() and (status_arrays == why).all()


def test_capture_resolution_follows_python_chess_move_order(three_piece_dir: Path,
                                                            syzygy_dir: Path) -> None:
    """5-7-piece positions with the pieces close together, on the 3-piece
    and the 3-4-piece tables: which table a probe misses first (or whether
    it answers) depends on the order captures are tried; pyfathom tries them
    in python-chess's order (with the core's own order, 52 of these 5-piece
    and 266 of these 6-piece probes named another table)."""
    rng = random.Random(5)
    fives = ["KQRvKR", "KRPvKP", "KBNvKN", "KQvKRN", "KRRvKQ", "KPPvKP", "KQBvKB", "KNPvKP",
             "KRvKPP", "KQPvKR"]
    sixes = ["KQRvKRP", "KRPvKPP", "KBNvKNP", "KQvKRNB", "KRRvKQN"]
    sevens = ["KQRvKRPP", "KRPPvKPP", "KBNvKNPP", "KQRvKRNB"]
    boards = ([_clustered(rng, rng.choice(fives)) for _ in range(600)]
              + [_clustered(rng, rng.choice(sixes)) for _ in range(300)]
              + [_clustered(rng, rng.choice(sevens)) for _ in range(100)])
    answered = 0
    for directory in (three_piece_dir, syzygy_dir):
        with pyfathom.open_tablebase(directory) as ours, \
                chess.syzygy.open_tablebase(str(directory)) as theirs:
            answered += _compare(ours, theirs, boards)["answered"]
    assert answered > 100


def test_the_issue_positions(syzygy_dir: Path) -> None:
    """With the 3-4-piece set a capture wins 5BrN/8/8/8/8/2k5/8/2K5 b (WDL 2,
    DTZ 1), as python-chess; a KQRvKR position where the queen takes the
    rook is a win for Fathom's tb_probe_wdl too (TB_WIN)."""
    from pyfathom import fathom

    five = chess.Board("5BrN/8/8/8/8/2k5/8/2K5 b - - 0 1")
    kqrkr = chess.Board("8/8/8/3k4/8/3r4/8/2KQR3 w - - 0 1")
    with pyfathom.open_tablebase(syzygy_dir) as tb, \
            chess.syzygy.open_tablebase(str(syzygy_dir)) as theirs:
        assert tb.largest == 4
        assert (tb.probe_wdl(five), tb.probe_dtz(five)) == (2, 1)
        assert tb.probe(five) == (2, 1, True)
        for board in (five, kqrkr):
            assert (tb.probe_wdl(board), tb.probe_dtz(board)) == \
                (theirs.probe_wdl(board), theirs.probe_dtz(board))
            assert tb.probe_wdl_many([board]).tolist() == [theirs.probe_wdl(board)]
    try:
        assert fathom.tb_init(str(syzygy_dir))
        assert fathom.TB_LARGEST == 4
        args = (*P.bitboards(kqrkr)[:8], 0, 0, 0, True)
        assert fathom.tb_probe_wdl(*args) == fathom.TB_WIN
    finally:
        fathom.tb_free()


def test_fathom_facade_follows(three_piece_dir: Path) -> None:
    """tb_probe_wdl on the 3-piece tables: python-chess's WDL + 2 where it
    answers, TB_RESULT_FAILED where it raises, on 2,010 4-piece positions."""
    from pyfathom import fathom

    boards = _four_piece_boards()
    theirs = chess.syzygy.open_tablebase(str(three_piece_dir))
    try:
        assert fathom.tb_init(str(three_piece_dir))
        assert fathom.TB_LARGEST == 3
        bad = []
        for board in boards:
            expected = theirs.get_wdl(board)
            want = fathom.TB_RESULT_FAILED if expected is None else expected + 2
            got = fathom.tb_probe_wdl(*P.bitboards(board)[:8], 0, 0, board.ep_square or 0,
                                      board.turn)
            if got != want:
                bad.append(f"{board.fen()}: tb_probe_wdl {got}, expected {want}")
        assert not bad, P.mismatch_report("tb_probe_wdl", len(boards), bad)
    finally:
        fathom.tb_free()
        theirs.close()


def test_too_many_pieces_only_past_seven(syzygy_dir: Path) -> None:
    """Eight pieces: TooManyPiecesError, with python-chess's message for a
    position it cannot answer either (no capture to resolve); seven: probed
    (a MissingTableError here, as python-chess)."""
    eight = chess.Board("4k3/8/8/8/8/8/PPPPPP2/4K3 w - - 0 1")
    seven = chess.Board("4k3/8/8/8/8/8/PPPPP3/4K3 w - - 0 1")
    with pyfathom.open_tablebase(syzygy_dir) as tb, \
            chess.syzygy.open_tablebase(str(syzygy_dir)) as theirs:
        with pytest.raises(KeyError) as expected:
            theirs.probe_wdl(eight)
        assert not isinstance(expected.value, chess.syzygy.MissingTableError)
        for probe in (tb.probe_wdl, tb.probe_dtz, tb.probe, tb.probe_root):
            with pytest.raises(pyfathom.TooManyPiecesError) as info:
                probe(eight)
            assert str(info.value) == expected.value.args[0]
        assert _outcome(tb, seven, "wdl") == _outcome(theirs, seven, "wdl") == \
            ("missing", "wdl", "KPPPPPvK")
        status = np.zeros(2, dtype=np.uint8)
        assert tb.probe_wdl_many([eight, seven], status=status).tolist() == [pyfathom.FAILED] * 2
        assert status.tolist() == [Status.TOO_MANY_PIECES, Status.MISSING_TABLE]


# ---- 5. close, then use again ---------------------------------------------------

def _mapped_paths(directory: Path) -> int:
    with open("/proc/self/maps") as f:
        return sum(1 for line in f if str(directory.resolve()) in line)


def test_close_then_reuse_as_python_chess(syzygy_dir: Path, tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    shutil.copytree(syzygy_dir, tables)  # python-chess maps the shared copy
    kvk = chess.Board("8/8/8/8/8/2k5/8/2K5 w - - 0 1")
    krk = chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1")
    ours = pyfathom.open_tablebase(tables)
    theirs = chess.syzygy.open_tablebase(str(syzygy_dir))
    assert ours.probe_dtz(krk) == theirs.probe_dtz(krk)
    if sys.platform.startswith("linux"):
        assert _mapped_paths(tables) > 0
    for tb in (ours, theirs):
        tb.close()
    assert ours.closed and ours.mapped_count == 0 and ours.largest == 0
    if sys.platform.startswith("linux"):
        assert _mapped_paths(tables) == 0  # memory released
    for tb in (ours, theirs):
        assert tb.probe_wdl(kvk) == 0 and tb.probe_dtz(kvk) == 0  # no table needed
        for probe in (tb.probe_wdl, tb.probe_dtz):
            with pytest.raises(chess.syzygy.MissingTableError):
                probe(krk)
        assert (tb.get_wdl(krk), tb.get_dtz(krk, "none")) == (None, "none")
        tb.close()  # again
    assert ours.probe_wdl_many([krk, kvk]).tolist() == [pyfathom.FAILED, 0]
    assert ours.add_directory(tables) == theirs.add_directory(str(syzygy_dir)) == 70
    assert not ours.closed
    assert ours.probe_dtz(krk) == theirs.probe_dtz(krk) == -32
    ours.close()
    theirs.close()
    # add_file works after close too.
    assert ours.add_file(tables / "KRvK.rtbw") == 1
    assert ours.probe_wdl(krk) == -2
    ours.close()


# ---- 6. str / format / csv of WDL on 3.10 and the newest Python ------------------

WDL_OUTPUT_CHECK = textwrap.dedent('''
    import csv, importlib.util, io, json, sys, types as modules
    # _types.py imports the binding of the core's clock rule (for
    # ClockResult.of); WDL's formatting, checked here, never calls it, and
    # this interpreter has no built pyfathom: a stand-in module answers it.
    clock_rule = modules.ModuleType("pyfathom._bindings.clock_rule")
    clock_rule.CLOCK_CEILING, clock_rule.fathom_clock_result = 0xFFFF, None
    sys.modules.setdefault("pyfathom", modules.ModuleType("pyfathom"))
    sys.modules["pyfathom._bindings.clock_rule"] = clock_rule
    spec = importlib.util.spec_from_file_location("pyfathom_types", sys.argv[1])
    types = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(types)
    WDL = types.WDL
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\\n").writerow([WDL.LOSS, WDL.CURSED_WIN])
    with_print = io.StringIO()
    print(WDL.BLESSED_LOSS, WDL.WIN, file=with_print, end="")
    print(json.dumps({
        "python": list(sys.version_info[:2]),
        "str": str(WDL.LOSS), "percent_s": "%s" % WDL.DRAW, "percent_d": "%d" % WDL.LOSS,
        "fstring": f"{WDL.LOSS}", "format_spec": format(WDL.WIN, "+03d"),
        "format_width": f"{WDL.LOSS:>4}", "print": with_print.getvalue(),
        "csv": buf.getvalue(), "repr": repr(WDL.LOSS), "json": json.dumps(WDL.WIN),
    }))
''')

WDL_OUTPUT_EXPECTED = {
    "str": "-2", "percent_s": "0", "percent_d": "-2", "fstring": "-2",
    "format_spec": "+02", "format_width": "  -2", "print": "-1 2", "csv": "-2,1\n",
    "repr": "WDL.LOSS", "json": "2",
}


@functools.lru_cache(maxsize=None)
def _interpreters() -> dict[str, str]:
    """Python 3.10 and the newest 3.x found (pyenv's versions, then PATH)."""
    found: dict[tuple[int, int], str] = {}
    candidates = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-9]*/bin/python3")))
    candidates += [p for p in (shutil.which(f"python3.{m}") for m in range(10, 20)) if p]
    for path in candidates:
        out = subprocess.run([path, "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True)
        if out.returncode == 0:
            major, minor = map(int, out.stdout.split())
            if (major, minor) >= (3, 10):
                found.setdefault((major, minor), path)
    picked = {}
    if (3, 10) in found:
        picked["3.10"] = found[(3, 10)]
    if found:
        newest = max(found)
        picked[f"{newest[0]}.{newest[1]}"] = found[newest]
    return picked


def test_wdl_prints_as_a_number_here() -> None:
    """The running Python, through the package."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([pyfathom.WDL.LOSS, pyfathom.WDL.WIN])
    assert buf.getvalue() == "-2,2\n"
    assert (str(pyfathom.WDL.LOSS), f"{pyfathom.WDL.CURSED_WIN}", "%s" % pyfathom.WDL.DRAW) \
        == ("-2", "1", "0")
    assert repr(pyfathom.WDL.LOSS) == "WDL.LOSS"


@pytest.mark.parametrize("version", ["3.10", "newest"])
def test_wdl_prints_as_a_number_on(version: str, tmp_path: Path) -> None:
    """pyfathom/_types.py (where WDL lives) loaded by Python 3.10 and by the
    newest Python here (python-chess, pure Python, from this environment)."""
    interpreters = _interpreters()
    if version == "newest":
        version = max(interpreters, key=lambda v: tuple(map(int, v.split("."))), default="")
    if version not in interpreters:
        pytest.skip(f"no Python {version} interpreter (looked in ~/.pyenv/versions and PATH)")
    link = tmp_path / "chess"
    os.symlink(Path(chess.__file__).parent, link)
    script = tmp_path / "check.py"
    script.write_text(WDL_OUTPUT_CHECK)
    proc = subprocess.run([interpreters[version], str(script), str(ROOT / "pyfathom" / "_types.py")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    import json

    got = json.loads(proc.stdout)
    assert ".".join(map(str, got.pop("python"))) == version
    assert got == WDL_OUTPUT_EXPECTED


def test_the_old_enum_str_would_fail_the_check(tmp_path: Path) -> None:
    """The check above can fail: an IntEnum without our __str__ prints its
    name on 3.10 (checked on 3.10 when it is here)."""
    interpreters = _interpreters()
    if "3.10" not in interpreters:
        pytest.skip("no Python 3.10 interpreter (looked in ~/.pyenv/versions and PATH)")
    proc = subprocess.run([interpreters["3.10"], "-c",
                           "import enum\nclass W(enum.IntEnum):\n    LOSS = -2\nprint(str(W.LOSS))"],
                          capture_output=True, text=True)
    assert proc.stdout.strip() == "W.LOSS"
