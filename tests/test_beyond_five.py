"""Index and decoding paths of 6- and 7-piece tables, against python-chess.

No 6- or 7-piece tables exist on the test machines, so tests/support/syzygy_writer.py
writes synthetic ones (format-valid files whose values follow a pattern in
which neighbouring indices differ) into a temporary folder, and both
readers read them:

* raw reads: the value pyfathom's decoder reads for a position
  (tests/c/raw_read.c's pyfathom_test_raw_read, built for the tests only:
  support/raw_decoder.py) against
  python-chess 1.11.2's own table reader (WdlTable.probe_wdl_table,
  DtzTable.probe_dtz_table) on random positions of materials covering every
  class of the index: pawnless with groups of 2-5 like pieces and with six
  unique pieces (an index past 2^32), pawns of one colour (1-5) and of both,
  leading pawn groups of 1-3, one and two stored sides, the table's colours
  swapped, and DTZ with 8- and 16-bit value maps and in plies;
* the writer itself: python-chess reads every stream it writes as the
  writer says (so the comparison above compares readers of valid files),
  and neighbouring indices store other values;
* whole probes on a synthetic 6-piece (KRPvKPP) and 7-piece (KPPPPPvK)
  table with their synthetic sub-tables (captures, promotions): probe_wdl,
  probe_dtz, the batch calls, probe_root and pyfathom.fathom against
  python-chess, 2,000 positions each;
* a folder with both files of every 3-7-piece material (3,022 files):
  registered, probed by class, pyfathom info, fds and mappings;
* the real 6-piece tables of ../shared/syzygy6/ (KBBBBvK, KNNNNvK): the
  raw comparison on them (required in CI, as ../shared/syzygy5).

Generation time and sizes are printed (pytest -s): about 77 MB in 3 s,
15 MB in 4 s and 0.24 MB in 5 s on the shared 2-core machine.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import chess
import chess.syzygy
import numpy as np
import pytest

from pyfathom._core import ffi, lib
from support import syzygy_writer as writer
from support import table_cache
from support.raw_decoder import board_arrays, decoder
from support.sanitizer import SANITIZED

ROOT = Path(__file__).resolve().parent.parent
SYZYGY6 = table_cache.SYZYGY6
# The sanitized run (tests/run_sanitized.py) repeats the suite to catch
# memory errors in C, which every path already shows on fewer positions;
# the 2,000 per material of the comparison are the plain run's.
POSITIONS = 500 if SANITIZED else 2000
W, M, WD, PL = writer.STORED_BLACK, writer.MAPPED, writer.WIDE, writer.WIN_PLIES | writer.LOSS_PLIES

# name, what the material's index exercises, writer options
MATERIALS: List[Tuple[str, str, Dict[str, object]]] = [
    ("KRRvKBN", "pawnless, a group of 2 like pieces", {"dtz_flags": (M | W,)}),
    ("KQQvKRR", "7 pieces, two groups of 2, kings lead", {"swap": True, "dtz_flags": (M | WD,)}),
    ("KRRRvKN", "a group of 3 like pieces", {"dtz_flags": (PL,)}),
    ("KNNNNvK", "a group of 4 like pieces", {"dtz_flags": (M | WD | PL | W,)}),
    ("KNNNNNvK", "7 pieces, a group of 5 like pieces", {"dtz_flags": (M | PL,)}),
    ("KRBNvKQ", "six unique pieces, index 6.8e9 > 2^32", {"swap": True, "dtz_flags": (M | WD | W,)}),
    ("KRNvKRN", "symmetric, one side stored, index > 2^32", {"one_side": True, "dtz_flags": (0,)}),
    ("KNNNvKP", "one pawn (black's), a group of 3", {"dtz_flags": (M, W, M | WD, PL | W)}),
    ("KRPPvKB", "two pawns of one colour", {"dtz_flags": (M | W, WD | M, PL, 0)}),
    ("KPPPvKN", "a leading group of 3 pawns", {}),
    ("KPPPPvK", "4 pawns of one colour", {"dtz_flags": (M | WD | PL, W, M, M | WD | W)}),
    ("KPPPPPvK", "7 pieces, 5 pawns of one colour", {}),
    ("KPPvKPP", "pawns of both colours, leading group of 2", {"swap": True}),
    ("KPPvKPP", "the same, one side stored", {"one_side": True, "seed": 9}),
    ("KRPvKPP", "both colours, the side with one pawn leads", {"dtz_flags": (M | WD | W, M, 0, PL)}),
    ("KPPPvKP", "both colours, black's single pawn leads", {}),
]


def random_position(name: str, rng: random.Random) -> chess.Board:
    """A placement of the material (colours swapped half the time), pawns
    on ranks 2-7, kings apart; either side to move."""
    white, black = writer.parse_material(name)
    if rng.random() < 0.5:
        white, black = black, white
    while True:
        board = chess.Board(None)
        free = list(range(64))
        rng.shuffle(free)
        ok = True
        for colour, types in ((chess.WHITE, white), (chess.BLACK, black)):
            for t in types:
                squares = [s for s in free if t != chess.PAWN or 8 <= s < 56]
                if not squares:
                    ok = False
                    break
                free.remove(squares[0])
                board.set_piece_at(squares[0], chess.Piece(t, colour))
        kings = [board.king(chess.WHITE), board.king(chess.BLACK)]
        if ok and chess.square_distance(kings[0], kings[1]) > 1:
            board.turn = rng.random() < 0.5
            return board


def raw_read(path: Path, name: str, is_dtz: bool, boards: Sequence[chess.Board],
             wdls: Sequence[int]) -> Tuple[List[int], List[int]]:
    """pyfathom's decoder: the stored value of each board (and, for DTZ,
    whether the file holds its side to move)."""
    rows, turns = board_arrays(boards)
    wdl = np.asarray(wdls, dtype=np.int8)
    values = np.zeros(len(boards), dtype=np.int32)
    stored = np.zeros(len(boards), dtype=np.int8)
    status = np.zeros(len(boards), dtype=np.int8)
    rc = decoder().pyfathom_test_raw_read(
        str(path).encode(), name.encode(), int(is_dtz), len(boards),
        ffi.from_buffer("uint64_t[]", rows), ffi.from_buffer("uint8_t[]", turns),
        ffi.from_buffer("int8_t[]", wdl), ffi.from_buffer("int32_t[]", values),
        ffi.from_buffer("int8_t[]", stored), ffi.from_buffer("int8_t[]", status))
    assert rc == lib.FATHOM_OK, f"{path.name}: {ffi.string(lib.fathom_strerror(rc)).decode()}"
    assert not status.any(), f"{path.name}: status {set(status.tolist())}"
    return values.tolist(), stored.tolist()


def compare_raw(folder: Path, name: str, count: int, seed: int, real: bool = False) -> Dict[str, int]:
    """Raw WDL and DTZ reads of `count` random positions by both readers;
    returns the positions compared, failing on the first difference.  DTZ
    reads take a random WDL class (every synthetic value map covers every
    stored value), or with `real` tables the one the WDL file gives."""
    rng = random.Random(seed)
    boards = [random_position(name, rng) for _ in range(count)]
    wdls = [rng.choice((-2, -1, 0, 1, 2)) for _ in boards]
    ours, _ = raw_read(folder / f"{name}.rtbw", name, False, boards, wdls)
    theirs = chess.syzygy.WdlTable(str(folder / f"{name}.rtbw"))
    with theirs:
        for b, v in zip(boards, ours):
            assert v == theirs.probe_wdl_table(b), f"WDL {name}: {b.fen()}"
    if real:
        wdls = ours
    ours, stored = raw_read(folder / f"{name}.rtbz", name, True, boards, wdls)
    dtz = chess.syzygy.DtzTable(str(folder / f"{name}.rtbz"))
    read = 0
    with dtz:
        for b, wdl, v, s in zip(boards, wdls, ours, stored):
            value, success = dtz.probe_dtz_table(b, wdl)
            assert (s == 1) == (success == 1), f"DTZ side stored {name}: {b.fen()}"
            if s:
                read += 1
                assert v == value, f"DTZ {name} wdl {wdl}: {b.fen()}: {v} != {value}"
                if not real:  # what the writer stores is what real tables hold
                    assert 0 <= value < writer.DTZ_PLIES_BOUND, f"DTZ {name}: {b.fen()} stores {value}"
    return {"wdl": count, "dtz": read}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, object]]:
    folders = {}
    started = time.perf_counter()
    total = 0
    for k, (name, _, options) in enumerate(MATERIALS):
        folder = tmp_path_factory.mktemp(f"m{k}")
        opts = dict(options)
        opts.setdefault("seed", k + 1)
        writer.write_tables(writer.Spec(name, **opts), str(folder))  # type: ignore[arg-type]
        total += sum(p.stat().st_size for p in folder.iterdir())
        folders[k] = folder
    seconds = time.perf_counter() - started
    print(f"\nsynthetic tables: {len(MATERIALS)} materials, {total / 1e6:.1f} MB in {seconds:.1f} s")
    yield {"folders": folders}
    for folder in folders.values():  # 77 MB: not left for pytest's last three runs
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("k", range(len(MATERIALS)), ids=[f"{m[0]}-{i}" for i, m in enumerate(MATERIALS)])
def test_raw_reads_match_python_chess(synthetic: Dict[str, object], k: int) -> None:
    name, _, _ = MATERIALS[k]
    folder = synthetic["folders"][k]  # type: ignore[index]
    counts = compare_raw(folder, name, POSITIONS, seed=1000 + k)
    # Both sides to move were read, and the DTZ side check let some through.
    assert counts["dtz"] > POSITIONS // 4, counts


def test_index_past_2_to_the_32(tmp_path: Path) -> None:
    """pyfathom's decoder reads positions whose index is past 2^32 (the six
    unique pieces of KRBNvKQ) as python-chess does: the indices are taken
    from python-chess's own encoder while it reads, so the comparison is
    known to cover them; a decoder that cut the index to 32 bits reads
    another position's value there (neighbouring indices store other
    values, test_neighbouring_indices_store_other_values)."""
    name = "KRBNvKQ"
    writer.write_tables(writer.Spec(name, seed=6, swap=True), str(tmp_path))
    rng = random.Random(32)
    boards = [random_position(name, rng) for _ in range(POSITIONS // 4)]
    ours, _ = raw_read(tmp_path / f"{name}.rtbw", name, False, boards, [0] * len(boards))
    theirs = chess.syzygy.WdlTable(str(tmp_path / f"{name}.rtbw"))
    indices: List[int] = []
    encode = theirs.encode_piece

    def recording_encode(*args: object) -> int:
        indices.append(encode(*args))  # type: ignore[arg-type]
        return indices[-1]

    theirs.encode_piece = recording_encode  # type: ignore[method-assign]
    with theirs:
        past = []
        for b, v in zip(boards, ours):
            want = theirs.probe_wdl_table(b)
            if indices[-1] >= 2**32:
                past.append((b.fen(), v, want))
    assert len(past) > len(boards) // 4, f"only {len(past)} of {len(boards)} indices past 2^32"
    bad = [row for row in past if row[1] != row[2]]
    assert not bad, f"{len(bad)} of {len(past)} reads past 2^32 differ: {bad[:3]}"


def test_writer_streams_read_back_by_python_chess(tmp_path: Path) -> None:
    """python-chess's reader finds the writer's index sizes and, at random
    indices of every stream, the value the writer says it stored."""
    rng = random.Random(5)
    for name, options in (("KRRvKBN", {"swap": True}), ("KPPvKPP", {}),
                          ("KRPvKPP", {"dtz_flags": (M | WD, M, PL, W)})):
        spec = writer.Spec(name, seed=2, **options)  # type: ignore[arg-type]
        info = writer.write_tables(spec, str(tmp_path))
        wdl = chess.syzygy.WdlTable(str(tmp_path / f"{name}.rtbw"))
        dtz = chess.syzygy.DtzTable(str(tmp_path / f"{name}.rtbz"))
        with wdl, dtz:
            wdl.init_table_wdl()
            dtz.init_table_dtz()
            if "P" in name:
                pairs = [wdl.files[f].precomp[s] for f in range(4) for s in range(2)]
                dpairs = [dtz.files[f].precomp for f in range(4)]
            else:
                pairs, dpairs = [wdl.precomp[0], wdl.precomp[1]], [dtz.precomp]
            streams, _, _ = info["dtz"]  # type: ignore[misc]
            for table, readers, written in ((wdl, pairs, info["wdl"]), (dtz, dpairs, streams)):
                assert [s.size for s in written] == table.tb_size[:len(written)]  # type: ignore[union-attr]
                for reader, stream in zip(readers, written):  # type: ignore[call-overload]
                    for _ in range(200):
                        i = rng.randrange(stream.size)
                        assert table.decompress_pairs(reader, i) == stream.value_at(i), (name, i)


def test_neighbouring_indices_store_other_values() -> None:
    """The pattern tells indices apart: the value at i differs from the
    value at i + 1, at i plus a group's step, and from the value at i of the
    next stream (another side or file) for most i."""
    for name in ("KRRvKBN", "KPPPPPvK", "KRBNvKQ"):
        spec = writer.Spec(name, seed=4)
        layouts = (writer.pawn_layouts(spec, 2)[0] if "P" in name
                   else writer.pawnless_layouts(spec, 2)[1])
        streams = [writer.Stream(lay.size, list(range(5)), seed) for seed, lay in enumerate(layouts)]
        rng = random.Random(name)
        for step in (1, 62, 462, 1891, 31332):
            same = 0
            for _ in range(400):
                i = rng.randrange(streams[0].size - step)
                same += streams[0].value_at(i) == streams[0].value_at(i + step)
            assert same < 400 * 0.5, (name, step, same)
        same = sum(streams[0].value_at(i) == streams[1].value_at(i)
                   for i in (rng.randrange(min(s.size for s in streams)) for _ in range(400)))
        assert same < 400 * 0.5, (name, same)


def test_writer_command_writes_the_sub_tables(tmp_path: Path) -> None:
    import subprocess

    script = str(Path(__file__).parent / "support" / "syzygy_writer.py")
    proc = subprocess.run([sys.executable, script, str(tmp_path), "KRPvKP"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    want = writer.needed_tables(["KRPvKP"])
    assert proc.stdout.split() == want and "KQvKR" in want and "KRvKP" in want
    # The sub-tables are there: probes that capture or promote into them
    # answer, and pyfathom's answers are python-chess's (any WDL of a
    # synthetic table is as good as another; the two readers agreeing is
    # what the files being complete shows).
    import pyfathom

    rng = random.Random(258)
    boards = [chess.Board("8/8/8/8/1k6/2p5/2P1R3/K7 w - - 0 1")]
    while len(boards) < 200:
        board = random_position("KRPvKP", rng)
        if board.is_valid():
            boards.append(board)
    with chess.syzygy.open_tablebase(str(tmp_path)) as tb, pyfathom.open_tablebase(str(tmp_path)) as ours:
        assert [ours.probe_wdl(b) for b in boards] == [tb.probe_wdl(b) for b in boards]
    bad = subprocess.run([sys.executable, script, str(tmp_path / "x"), "KQQQQQQvK"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "KQQQQQQvK" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "x").exists()


REAL_SIX = ("KBBBBvK", "KNNNNvK")  # the real 6-piece tables of ../shared/syzygy6


def test_real_six_piece_tables_match_python_chess() -> None:
    """Raw reads of the real 6-piece tables (required by .ci/run, as the
    5-piece set: a missing file fails there, and only skips elsewhere)."""
    folder = table_cache.shared_folder(SYZYGY6, *(f"{n}.{ext}" for n in REAL_SIX
                                                  for ext in ("rtbw", "rtbz")))
    for k, name in enumerate(REAL_SIX):
        counts = compare_raw(folder, name, 500, seed=k, real=True)
        assert counts["dtz"] > 0, (name, counts)


# ---------------------------------------------------------------- whole probes

# A 6-piece and a 7-piece target with pawns of both or one colour: captures
# and promotions take the probes into 5-, 6- and 7-piece sub-tables.
WHOLE = {"6": "KRPvKPP", "7": "KPPPPPvK"}
SUB_PATTERNED = 1 << 20  # sub-table streams past this store one value each
ROOT_CHILD_CHECKS = 40  # roots whose every move is checked child by child


def _oracle(tb: chess.syzygy.Tablebase, board: chess.Board) -> Tuple[object, object]:
    """python-chess's (wdl, dtz) of a board, or the error it raises."""
    answers: List[object] = []
    for probe in (tb.probe_wdl, tb.probe_dtz):
        try:
            answers.append(probe(board))
        except (KeyError, ValueError) as exc:
            answers.append(type(exc).__name__)
    return answers[0], answers[1]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, object]:
    folder = tmp_path_factory.mktemp("whole")
    started = time.perf_counter()
    names = writer.needed_tables(list(WHOLE.values()))
    for k, name in enumerate(names):
        limit = None if name in WHOLE.values() else SUB_PATTERNED
        writer.write_tables(writer.Spec(name, seed=k + 1, max_patterned=limit), str(folder))
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"\nwhole-probe tables: {2 * len(names)} files, {size / 1e6:.1f} MB "
          f"in {time.perf_counter() - started:.1f} s")
    boards: Dict[str, List[chess.Board]] = {}
    answers: Dict[str, List[Tuple[object, object]]] = {}
    with chess.syzygy.open_tablebase(str(folder)) as oracle:
        for key, name in WHOLE.items():
            rng = random.Random(hash(name) & 0xFFFF)
            boards[key] = []
            while len(boards[key]) < POSITIONS:
                b = random_position(name, rng)
                if b.is_valid():
                    boards[key].append(b)
            answers[key] = [_oracle(oracle, b) for b in boards[key]]
    return {"folder": folder, "boards": boards, "answers": answers}


def _ours(tb: object, board: chess.Board) -> Tuple[object, object]:
    answers: List[object] = []
    for probe in (tb.probe_wdl, tb.probe_dtz):  # type: ignore[attr-defined]
        try:
            answers.append(int(probe(board)))
        except (KeyError, ValueError) as exc:
            answers.append("KeyError" if isinstance(exc, KeyError) else "ValueError")
    return answers[0], answers[1]


@pytest.mark.parametrize("key", sorted(WHOLE))
def test_whole_probes_match_python_chess(whole: Dict[str, object], key: str) -> None:
    import pyfathom

    boards, answers = whole["boards"][key], whole["answers"][key]  # type: ignore[index]
    with pyfathom.open_tablebase(whole["folder"]) as tb:  # type: ignore[arg-type]
        bad = [(b.fen(), a, _ours(tb, b)) for b, a in zip(boards, answers) if _ours(tb, b) != a]
        decided = sum(isinstance(a[1], int) for a in answers)
        assert not bad, f"{len(bad)} of {len(boards)} differ: {bad[:5]}"
        assert decided > POSITIONS // 2, f"only {decided} probes answered"
        wdl = tb.probe_wdl_many(boards)
        dtz = tb.probe_dtz_many(boards)
    want_wdl = [a[0] if isinstance(a[0], int) else -128 for a in answers]
    # Every value the synthetic DTZ files store fits the batch calls' int16
    # (test_synthetic_dtz_values_stay_within_real_tables).  What does not is a DTZ that
    # no table stores: where the synthetic WDL says "win" and no move's
    # DTZ leads on to one (synthetic WDL and DTZ values are not made to
    # agree; real ones do), both readers answer 65,535, "no winning move
    # found".  Those rows (about 1 in 20 here) check that a DTZ past int16
    # fails its row of the batch array (-32,768), never wraps; the others
    # are the comparison.
    beyond = [a[1] for a in answers if isinstance(a[1], int) and abs(a[1]) >= 32768]
    assert set(beyond) <= {65535}, set(beyond)
    assert 0 < len(beyond) < len(answers) // 10, len(beyond)
    want_dtz = [a[1] if isinstance(a[1], int) and abs(a[1]) < 32768 else -32768 for a in answers]
    assert wdl.tolist() == want_wdl
    assert dtz.tolist() == want_dtz


@pytest.mark.parametrize("flags", [writer.MAPPED, writer.MAPPED | writer.WIDE])
def test_synthetic_dtz_values_stay_within_real_tables(flags: int) -> None:
    """The writer's promise: every DTZ value it maps or stores unmapped is
    one a real table could hold once read in plies (doubled for a value
    stored in moves, plus one for a win counted from the zeroing move), so
    within the batch calls' int16 too.  compare_raw checks the values
    read back from every synthetic file against the same bound."""
    for seed in range(400):
        for values in writer.dtz_maps(flags, seed, writer.MAP_ENTRIES):
            assert all(0 < 2 * v + 1 < writer.DTZ_PLIES_BOUND for v in values), (flags, seed, max(values))
    assert all(0 < 2 * v + 1 < writer.DTZ_PLIES_BOUND for v in writer.DTZ_LEAVES)  # the unmapped values
    assert writer.DTZ_PLIES_BOUND < 32768


def _bitboards(b: chess.Board) -> Tuple[int, ...]:
    return (b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings, b.queens,
            b.rooks, b.bishops, b.knights, b.pawns)


def _root_wdl(dtz: int) -> Optional[int]:
    """The root's WDL under the 50-move rule at clock 0 from python-chess's
    DTZ (None where DTZ rounding leaves it open).  Synthetic values make
    python-chess's WDL and DTZ disagree here and there (a "win" 300 plies
    from zeroing), and a root probe ranks by DTZ, so the DTZ decides."""
    if dtz == 0:
        return 0
    if 99 <= abs(dtz) <= 102:
        return None
    return (2 if abs(dtz) <= 100 else 1) * (1 if dtz > 0 else -1)


@pytest.mark.parametrize("key", sorted(WHOLE))
def test_fathom_facade_matches_python_chess(whole: Dict[str, object], key: str) -> None:
    """tb_probe_wdl on every board; tb_probe_root's outcome and DTZ (its
    12-bit field: DTZ up to 4,095) where python-chess's DTZ settles them."""
    from pyfathom import fathom as f

    boards, answers = whole["boards"][key], whole["answers"][key]  # type: ignore[index]
    assert f.tb_init(str(whole["folder"]))
    roots = 0
    try:
        assert f.TB_LARGEST == 7
        for b, (wdl, dtz) in zip(boards, answers):
            got = f.tb_probe_wdl(*_bitboards(b), 0, 0, 0, b.turn)
            assert got == (wdl + 2 if isinstance(wdl, int) else f.TB_RESULT_FAILED), b.fen()
            res, _ = f.tb_probe_root(*_bitboards(b), 0, 0, 0, b.turn)
            if not isinstance(dtz, int):
                assert res == f.TB_RESULT_FAILED, b.fen()
            elif not any(b.generate_legal_moves()):
                # Which of the two is told by the stored DTZ's sign (right
                # for real tables, which store mates as lost and stalemates
                # as drawn; synthetic ones store anything there).
                assert res in (f.TB_RESULT_CHECKMATE, f.TB_RESULT_STALEMATE), b.fen()
            elif _root_wdl(dtz) is not None and abs(dtz) < 4096:
                roots += 1
                assert (f.TB_GET_WDL(res), f.TB_GET_DTZ(res)) == (_root_wdl(dtz) + 2, abs(dtz)), b.fen()
    finally:
        f.tb_free()
    assert roots > POSITIONS // 2, roots


@pytest.mark.parametrize("key", sorted(WHOLE))
def test_probe_root_matches_python_chess(whole: Dict[str, object], key: str) -> None:
    """Root DTZ and WDL of every board; for the first ROOT_CHILD_CHECKS,
    every move against python-chess's probe of the position it leads to
    (tests/support/root_checks.py's checks)."""
    import pyfathom
    from support.root_checks import check_root, position_key

    boards, answers = whole["boards"][key], whole["answers"][key]  # type: ignore[index]
    problems: List[str] = []
    skipped = 0
    with pyfathom.open_tablebase(whole["folder"]) as tb, \
            chess.syzygy.open_tablebase(str(whole["folder"])) as oracle:  # type: ignore[arg-type]
        for n, (b, (_, dtz)) in enumerate(zip(boards, answers)):
            if not isinstance(dtz, int) or _root_wdl(dtz) is None:
                continue
            children: Dict[str, Tuple[object, object]] = {}
            contradicted = False
            if n < ROOT_CHILD_CHECKS:
                for move in b.legal_moves:
                    after = b.copy(stack=False)
                    after.push(move)
                    answer = _oracle(oracle, after)
                    if after.is_checkmate():
                        # A real table stores a mated side's loss; where a
                        # synthetic one stores something else for it, chess
                        # and the file disagree and neither answer for that
                        # move is the right one: the root is checked whole
                        # only (a few roots of the sample).
                        contradicted |= answer[0] != -2
                        answer = (-2, -1)
                    children[position_key(after)] = answer
            if n >= ROOT_CHILD_CHECKS or contradicted:
                skipped += contradicted
                rp = tb.probe_root(b)
                if (int(rp.wdl), rp.dtz) != (_root_wdl(dtz), dtz):
                    problems.append(f"{b.fen()}: root {rp.wdl!r} {rp.dtz} != {dtz}")
                continue
            problems += check_root(tb, b, (_root_wdl(dtz), dtz), children, 0)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])
    assert skipped <= ROOT_CHILD_CHECKS // 4, f"{skipped} roots with a contradicted mate"


# ---------------------------------------------------------------- every table name


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="module")
def every_table(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Path, List[str]]:
    """Both files of all 1,511 3-7-piece materials, each stream one value
    (seeded: tables, sides and files differ), 3,022 files."""
    folder = tmp_path_factory.mktemp("every")
    names = list(chess.syzygy.tablenames(piece_count=7))
    started = time.perf_counter()
    for k, name in enumerate(names):
        writer.write_tables(writer.Spec(name, seed=k + 1, max_patterned=0), str(folder))
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"\nevery table name: {2 * len(names)} files, {size / 1e3:.0f} kB "
          f"in {time.perf_counter() - started:.1f} s")
    return folder, names


def _sample(names: Sequence[str], rng: random.Random, per_class: int) -> List[chess.Board]:
    """Valid positions of `per_class` random materials of every piece count
    (3-7), with and without pawns."""
    boards = []
    for count in range(3, 8):
        for pawns in (False, True):
            pool = [n for n in names if len(n) - 1 == count and ("P" in n) == pawns]
            for name in rng.sample(pool, min(per_class, len(pool))):
                while True:
                    b = random_position(name, rng)
                    if b.is_valid():
                        boards.append(b)
                        break
    return boards


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd to count open files")
def test_every_table_name_registers_and_probes(every_table: Tuple[Path, List[str]]) -> None:
    import pyfathom
    from pyfathom import fathom as f

    folder, names = every_table
    boards = _sample(names, random.Random(26), per_class=8)
    fds = _open_fds()
    with chess.syzygy.open_tablebase(str(folder), max_fds=None) as oracle:
        answers = [_oracle(oracle, b) for b in boards]
        oracle_mapped = sum(t.data is not None for t in (*oracle.wdl.values(), *oracle.dtz.values()))
    assert _open_fds() == fds
    with pyfathom.open_tablebase(folder) as tb:
        assert tb.largest == 7
        assert tb.mapped_count == 0, "opening maps nothing"
        assert _open_fds() == fds, "no file stays open after registering"
        assert [_ours(tb, b) for b in boards] == answers
        assert _open_fds() == fds, "no file stays open after mapping"
        # Only probed files are mapped: at most those python-chess mapped
        # for the same probes (its DTZ search reads some more tables).
        assert 0 < tb.mapped_count <= oracle_mapped
    assert chess.syzygy.Tablebase().add_directory(str(folder)) == pyfathom.Tablebase().add_directory(folder) \
        == 2 * len(names)
    assert f.tb_init(str(folder))
    try:
        assert f.TB_LARGEST == 7
        got = [f.tb_probe_wdl(*_bitboards(b), 0, 0, 0, b.turn) for b in boards]
        assert got == [a[0] + 2 if isinstance(a[0], int) else f.TB_RESULT_FAILED for a in answers]
    finally:
        f.tb_free()
    assert _open_fds() == fds


def test_info_lists_every_table(every_table: Tuple[Path, List[str]]) -> None:
    import subprocess

    folder, names = every_table
    out = subprocess.run([sys.executable, "-m", "pyfathom", "info", "--tables", str(folder)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    for count in range(3, 8):
        n = sum(len(name) - 1 == count for name in names)
        assert f"{count}-piece tables: {n} WDL, {n} DTZ" in out, out
    assert "largest: 7 pieces" in out, out
