"""python-chess's own tablebase tests, run against pyfathom.

``SyzygyTestCase`` of ``test.py`` in the chess 1.11.2 sdist (the archive the
fixtures already download and verify) runs here unedited, with
``chess.syzygy.open_tablebase`` and ``chess.syzygy.Tablebase`` replaced by
pyfathom's, in a working directory laid out as the sdist's (``data/syzygy/
regular`` holds the 3-4-piece tables, plus the 5-piece ones of
``../shared/syzygy5/`` where that folder is there, so that the tests
python-chess skips for a missing table run with them where they can).

Every test of the class is in exactly one group (checked below):

* ``RUN``: must pass as written (or skip itself, as python-chess does, for a
  table that no folder here has; the skip names the table).
* ``VARIANTS``: open a variant tablebase (``VariantBoard=SuicideBoard`` ...)
  over ``data/syzygy/suicide``, here ``../shared/syzygy-variants/suicide``
  (every 2-4-piece table python-chess's test data names and the 5-piece
  ones ``test_suicide_dtz`` needs): ``test_suicide_dtz`` and
  ``test_antichess_kvk`` pass whole; ``test_suicide_dtm`` and
  ``test_suicide_stats`` stop at their first 5- or 6-piece position of a
  table the folder lacks, as python-chess's own run does
  (tests/test_variants.py checks their positions one by one).
* ``MODULE_HELPERS``: test python-chess's own functions (``calc_key``,
  ``tablenames`` ...), which pass whatever the tablebase class is: they run,
  and each has a twin below checking the same names through pyfathom.
* ``INTERNALS``: call python-chess internals pyfathom does not have
  (``probe_wdl_table``, ``probe_dtz_no_ep``) or its table classes
  (``WdlTable``, ``DtzTable``): they run too, and may fail only with an
  AttributeError for one of those internals; each has a twin below with the
  same positions and expected values through pyfathom's public API.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tarfile
import unittest
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import chess
import chess.syzygy
import pytest

from support import positions as P
from support import table_cache

SYZYGY5 = table_cache.SYZYGY5
SUICIDE = table_cache.VARIANTS / "suicide"

RUN = {"test_get_wdl_get_dtz", "test_stockfish_dtz_bug", "test_issue_93"}
VARIANTS = {"test_suicide_dtm", "test_suicide_dtz", "test_suicide_stats", "test_antichess_kvk"}
STOP_AT_FIVE_PIECES = {"test_suicide_dtm", "test_suicide_stats"}
MODULE_HELPERS = {"test_calc_key", "test_tablenames", "test_suicide_tablenames",
                  "test_normalize_tablename", "test_normalize_nnvbb", "test_dependencies"}
INTERNALS = {"test_probe_pawnless_wdl_table", "test_probe_wdl_table",
             "test_probe_dtz_table_piece", "test_probe_dtz_table_pawn",
             "test_probe_wdl_tablebase", "test_wdl_ep", "test_dtz_ep", "test_testsuite"}
PYTHON_CHESS_INTERNALS = ("probe_wdl_table", "probe_dtz_no_ep")
ALL = RUN | VARIANTS | MODULE_HELPERS | INTERNALS


# ---- the sdist's test.py and its data layout ---------------------------------

@pytest.fixture(scope="module")
def sdist_workdir(tmp_path_factory: pytest.TempPathFactory, test_cache: Path,
                  syzygy_dir: Path) -> Path:
    """A directory laid out as the sdist's root: test.py and data/."""
    from pyfathom._disk import default_tables as _default_tables

    archive = _default_tables.fetch_python_chess_sdist(test_cache)  # verified sha256
    work = tmp_path_factory.mktemp("python-chess-1.11.2")
    top = "chess-1.11.2/"
    wanted = {top + "test.py"} | {f"{top}data/suicide-{k}.epd" for k in ("dtm", "dtz", "stats")}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if member.name in wanted and member.isfile():
                source = tar.extractfile(member)
                assert source is not None
                target = work / member.name[len(top):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read())
    assert (work / "test.py").is_file(), f"no test.py in {archive}"
    regular = work / "data" / "syzygy" / "regular"
    regular.mkdir(parents=True)
    shutil.copy(syzygy_dir / "endgame.epd", work / "data" / "endgame.epd")
    sources = [syzygy_dir] + ([SYZYGY5] if SYZYGY5.is_dir() else [])
    for source in sources:
        for table in sorted(source.glob("*.rtb[wz]")):
            os.symlink(table, regular / table.name)
    suicide = work / "data" / "syzygy" / "suicide"
    if SUICIDE.is_dir():
        os.symlink(SUICIDE, suicide)
    else:
        suicide.mkdir()
    return work


@pytest.fixture(scope="module")
def syzygy_test_case(sdist_workdir: Path) -> type[unittest.TestCase]:
    spec = importlib.util.spec_from_file_location("python_chess_1_11_2_test",
                                                  sdist_workdir / "test.py")
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    case: type[unittest.TestCase] = module.SyzygyTestCase
    return case


def _run(case: type[unittest.TestCase], name: str, workdir: Path,
         monkeypatch: pytest.MonkeyPatch) -> unittest.TestResult:
    """Run one test of the class with pyfathom in place of chess.syzygy's
    tablebase, in the sdist layout."""
    import pyfathom

    monkeypatch.setattr(chess.syzygy, "open_tablebase", pyfathom.open_tablebase)
    monkeypatch.setattr(chess.syzygy, "Tablebase", pyfathom.Tablebase)
    monkeypatch.chdir(workdir)
    result = unittest.TestResult()
    case(name).run(result)
    return result


def _problems(result: unittest.TestResult) -> list[str]:
    return [text for _, text in result.errors + result.failures]


def test_every_test_of_the_class_is_in_one_group(
        syzygy_test_case: type[unittest.TestCase]) -> None:
    names = set(unittest.TestLoader().getTestCaseNames(syzygy_test_case))
    assert len(names) == 21
    assert names == ALL
    assert len(ALL) == len(RUN) + len(VARIANTS) + len(MODULE_HELPERS) + len(INTERNALS)


@pytest.mark.parametrize("name", sorted(RUN | MODULE_HELPERS))
def test_python_chess_test_passes(name: str, syzygy_test_case: type[unittest.TestCase],
                                  sdist_workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(syzygy_test_case, name, sdist_workdir, monkeypatch)
    problems = _problems(result)
    assert not problems, "\n".join(problems)
    if result.skipped:
        # python-chess's own catchAndSkip(MissingTableError): the table is in
        # no folder here.  Our MissingTableError named it, as python-chess's.
        reason = result.skipped[0][1]
        assert reason.startswith("did not find wdl table "), reason
        pytest.skip(f"python-chess's test skips itself: {reason}")
    assert result.testsRun == 1


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_python_chess_variant_test(name: str, syzygy_test_case: type[unittest.TestCase],
                                   sdist_workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ../shared/syzygy-variants/suicide: the tests that need only its
    tables pass whole; the two whose files also hold 5- and 6-piece
    positions of tables it lacks stop at the first of them, skipping
    themselves as python-chess's run does (tests/test_variants.py then
    checks their positions one by one)."""
    if not SUICIDE.is_dir():
        pytest.skip(f"suicide tables not found: {SUICIDE} (../shared/syzygy-variants)")
    result = _run(syzygy_test_case, name, sdist_workdir, monkeypatch)
    problems = _problems(result)
    assert not problems, "\n".join(problems)
    assert result.testsRun == 1
    if name in STOP_AT_FIVE_PIECES:
        assert len(result.skipped) == 1, f"{name} ran whole: expected a missing 5-6-piece table"
        reason = str(result.skipped[0][1])
        assert reason.startswith(("did not find wdl table ", "did not find dtz table ")), reason
        table = reason.split()[5].rstrip(":")
        assert len(table) - 1 in (5, 6), reason  # pieces: the name less its "v"
    else:
        assert not result.skipped, result.skipped


@pytest.mark.parametrize("name", sorted(INTERNALS))
def test_python_chess_internals_test(name: str, syzygy_test_case: type[unittest.TestCase],
                                     sdist_workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Passes (WdlTable/DtzTable are python-chess's own classes) or fails
    only for calling an internal of chess.syzygy.Tablebase; the twin test
    below checks the same positions through pyfathom's public API."""
    result = _run(syzygy_test_case, name, sdist_workdir, monkeypatch)
    for text in _problems(result):
        last = text.strip().splitlines()[-1]
        assert any(last == f"AttributeError: 'Tablebase' object has no attribute '{attr}'"
                   for attr in PYTHON_CHESS_INTERNALS), text
    assert not result.skipped


# ---- twins through pyfathom's public API ---------------------------------------

@pytest.fixture
def empty_tablebase() -> Iterator[Any]:
    import pyfathom

    with pyfathom.Tablebase() as tb:
        yield tb


def _missing_table(tb: Any, board: chess.Board) -> str:
    import pyfathom

    with pytest.raises(pyfathom.MissingTableError) as info:
        tb.probe_wdl(board)
    table: str = info.value.table
    assert str(info.value).startswith(f"did not find wdl table {table}: ")
    return table


def test_twin_calc_key(empty_tablebase: Any) -> None:
    board = chess.Board("8/8/8/5N2/5K2/2kB4/8/8 b - - 0 1")
    # The table an empty tablebase misses first is the position's own
    # (captures lead to KBvK / KNvK only after it is found): its key.
    board_without_captures = chess.Board("8/8/8/5N2/5K2/8/8/k2B4 b - - 0 1")
    assert not any(board_without_captures.generate_legal_captures())
    assert _missing_table(empty_tablebase, board_without_captures) == \
        chess.syzygy.normalize_tablename("KBNvK")
    assert _missing_table(empty_tablebase, board) in {"KBNvK", "KBvK", "KNvK"}


def _add_file_answers(tmp_path: Path, names: list[str]) -> tuple[list[int], list[int]]:
    """add_file's answers, pyfathom's and python-chess's, for empty files of
    these names (both suffixes)."""
    import pyfathom

    files = []
    for name in names:
        for suffix in (".rtbw", ".rtbz"):
            path = tmp_path / (name + suffix)
            path.touch()
            files.append(str(path))
    with pyfathom.Tablebase() as ours, chess.syzygy.Tablebase() as theirs:
        return [ours.add_file(f) for f in files], [theirs.add_file(f) for f in files]


def test_twin_tablenames_and_normalize_tablename(tmp_path: Path) -> None:
    """test_tablenames and test_normalize_tablename: pyfathom registers a
    table file by exactly the names python-chess does (every normalised name
    up to 7 pieces, none of the swapped ones that are not normalised)."""
    names = set(chess.syzygy.tablenames(piece_count=7))
    for name in ("KPPvKN", "KNNPvKN", "KQRNvKR", "KRRRvKR", "KRRvKRR", "KRNvKRP", "KRPvKP"):
        assert name in names
    swapped = {b + "v" + a for a, b in (n.split("v", 1) for n in names)}
    everything = sorted(names | swapped)
    ours, theirs = _add_file_answers(tmp_path, everything)
    assert ours == theirs
    assert sum(ours) == 2 * len(names)


def test_twin_normalize_nnvbb(tmp_path: Path, empty_tablebase: Any) -> None:
    ours, theirs = _add_file_answers(tmp_path, ["KNNvKBB", "KBBvKNN"])
    assert ours == theirs == [0, 0, 1, 1]
    board = chess.Board("8/8/8/8/8/1nn5/k7/2K1BB2 w - - 0 1")
    assert not any(board.generate_legal_captures())
    assert _missing_table(empty_tablebase, board) == "KBBvKNN"


def test_twin_dependencies(tmp_path: Path, syzygy_dir: Path, oracle: Any) -> None:
    """test_dependencies: KBNvK needs KBvK and KNvK.  With KBNvK alone,
    the probes that miss a table miss those two (captures of the bishop or
    the knight); with them added, every probe answers as python-chess."""
    import pyfathom

    for name in ("KBNvK.rtbw", "KBNvK.rtbz"):
        shutil.copy(syzygy_dir / name, tmp_path / name)
    boards = [P.random_position(seed, "KBNvK") for seed in range(300)]
    missing = set()
    with pyfathom.open_tablebase(tmp_path) as tb:
        for board in boards:
            try:
                tb.probe_wdl(board)
            except pyfathom.MissingTableError as exc:
                missing.add(exc.table)
        assert missing == set(chess.syzygy.dependencies("KBNvK")) == {"KBvK", "KNvK"}
        for name in ("KBvK", "KNvK"):
            assert tb.add_file(syzygy_dir / f"{name}.rtbw") == 1
            assert tb.add_file(syzygy_dir / f"{name}.rtbz") == 1
        for board in boards:
            assert tb.probe_wdl(board) == oracle.probe_wdl(board), board.fen()
            assert tb.probe_dtz(board) == oracle.probe_dtz(board), board.fen()


# (fen, the raw table value test.py expects): pyfathom has no raw-table call,
# so its probe_wdl must equal python-chess's probe_wdl, and the expected
# value itself wherever no capture can change it (no legal capture, no en
# passant): then the table's value is the position's.
WDL_TABLE_CASES = {
    "test_probe_pawnless_wdl_table": [
        ("8/8/8/5N2/5K2/2kB4/8/8 b - - 0 1", -2),  # Kxd3 draws: probe_wdl 0
        ("7B/5kNK/8/8/8/8/8/8 w - - 0 1", 2),
        ("N7/8/2k5/8/7K/8/8/B7 w - - 0 1", 2),
        ("8/8/1NkB4/8/7K/8/8/8 w - - 1 1", 0),
        ("8/8/8/2n5/2b1K3/2k5/8/8 w - - 0 1", -2),
    ],
    "test_probe_wdl_table": [
        ("8/8/2K5/4P3/8/8/8/3r3k b - - 1 1", 0),
        ("8/8/2K5/8/4P3/8/8/3r3k b - - 1 1", 2),
    ],
    "test_probe_wdl_tablebase": [
        ("7k/6b1/6K1/8/8/8/8/3R4 b - - 12 7", -2),
        ("7k/8/8/4K3/3B4/4B3/8/8 b - - 12 7", 0),
        ("7k/8/8/4K2B/8/4B3/8/8 w - - 12 7", 2),
    ],
}


@pytest.mark.parametrize("name", sorted(WDL_TABLE_CASES))
def test_twin_wdl_tables(name: str, tablebase: Any, oracle: Any) -> None:
    checked_directly = 0
    for fen, expected in WDL_TABLE_CASES[name]:
        board = chess.Board(fen)
        assert tablebase.probe_wdl(board) == oracle.probe_wdl(board), fen
        if not any(board.generate_legal_captures()) and not board.ep_square:
            assert tablebase.probe_wdl(board) == expected, fen
            checked_directly += 1
    assert checked_directly >= len(WDL_TABLE_CASES[name]) - 1


# (fen, wdl passed to the table, expected (value, success)): success 1 means
# the table stores this side; where the wdl given is the position's own, the
# DTZ is python-chess's formula dtz_before_zeroing(wdl) + value (away from
# zero).  success -1: the table holds the other side to move, and probe_dtz
# searches one ply (compared with python-chess).
DTZ_TABLE_CASES = {
    "test_probe_dtz_table_piece": [
        ("7n/6k1/4R3/4K3/8/8/8/8 w - - 0 1", 2, (0, -1)),
        ("7n/6k1/4R3/4K3/8/8/8/8 b - - 1 1", -2, (8, 1)),
    ],
    "test_probe_dtz_table_pawn": [
        ("8/1K6/1P6/8/8/8/6n1/7k w - - 0 1", 2, (2, 1)),
    ],
}


@pytest.mark.parametrize("name", sorted(DTZ_TABLE_CASES))
def test_twin_dtz_tables(name: str, tablebase: Any, oracle: Any) -> None:
    for fen, wdl, (value, success) in DTZ_TABLE_CASES[name]:
        board = chess.Board(fen)
        dtz = tablebase.probe_dtz(board)
        assert dtz == oracle.probe_dtz(board), fen
        if success == 1 and tablebase.probe_wdl(board) == wdl:
            sign = 1 if wdl > 0 else -1
            assert dtz == chess.syzygy.dtz_before_zeroing(wdl) + sign * value, fen
    # The pawn case is the one where the formula applies: 1 + 2 = 3.
    if name == "test_probe_dtz_table_pawn":
        assert tablebase.probe_dtz(chess.Board(DTZ_TABLE_CASES[name][0][0])) == 3


def test_twin_wdl_ep(tablebase: Any) -> None:
    board = chess.Board("8/8/8/k2Pp3/8/8/8/4K3 w - e6 0 2")
    assert tablebase.probe_wdl(board) == 2
    # Without the en-passant right the position is what the table holds: 0.
    board.ep_square = None
    assert tablebase.probe_wdl(board) == 0


def test_twin_dtz_ep(tablebase: Any) -> None:
    board = chess.Board("8/8/8/8/2pP4/2K5/4k3/8 b - d3 0 1")
    assert tablebase.probe_dtz(board) == 1
    board.ep_square = None  # probe_dtz_no_ep
    assert tablebase.probe_dtz(board) == -1


def test_twin_testsuite(tablebase: Any, endgame_epd: Path) -> None:
    """test_testsuite: every line of endgame.epd, its wdl and dtz opcodes
    (its wdl_table opcode is the raw table entry, which no public call
    returns: checked through probe_wdl where no capture or en passant can
    change it)."""
    board = chess.Board()
    lines = endgame_epd.read_text().splitlines()
    direct = 0
    for number, epd in enumerate(lines, 1):
        extra = board.set_epd(epd)
        where = f"{board.fen()} (line {number})"
        assert tablebase.probe_wdl(board) == extra["wdl"], where
        assert tablebase.probe_dtz(board) == extra["dtz"], where
        if not any(board.generate_legal_captures()) and not board.ep_square:
            assert tablebase.probe_wdl(board) == extra["wdl_table"], where
            direct += 1
    assert len(lines) == 200 and direct > 50
