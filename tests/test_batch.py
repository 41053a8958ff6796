"""Batch probes: numpy bitboards and board lists in, one result
array out, equal to the per-board probes; FAILED rows instead of exceptions
for positions that cannot be probed; argument errors name the argument."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import chess
import chess.variant
import numpy as np
import pytest

from support.positions import ALL_TABLES, random_position, table_sample, to_arrays

from pyfathom import Status

NAMES = ["white", "black", "kings", "queens", "rooks", "bishops", "knights",
         "pawns", "ep", "turn"]
WDL_FAILED = -128
DTZ_FAILED = -32768


@pytest.fixture(scope="module")
def mixed_boards() -> list[chess.Board]:
    """10,500 positions: 300 of each of the 35 tables, shuffled."""
    boards = [b for key in ALL_TABLES
              for b in table_sample(key, 300, seed=40, ep_share=0.25, push_share=0.1)]
    random.Random(41).shuffle(boards)
    return boards


@pytest.fixture(scope="module")
def per_board(mixed_boards: list[chess.Board], tablebase: Any) -> tuple[np.ndarray, np.ndarray]:
    wdl = np.array([tablebase.probe_wdl(b) for b in mixed_boards], dtype=np.int8)
    dtz = np.array([tablebase.probe_dtz(b) for b in mixed_boards], dtype=np.int16)
    return wdl, dtz


def _args(arrays: dict[str, Any]) -> list[Any]:
    return [arrays[name] for name in NAMES]


def test_failed_constants() -> None:
    import pyfathom

    assert pyfathom.FAILED == WDL_FAILED
    assert np.int8(pyfathom.FAILED) == WDL_FAILED


@pytest.mark.parametrize("threads", [1, 2, None])
def test_bitboards_equal_per_board(threads: int | None, tablebase: Any,
                                   mixed_boards: list[chess.Board],
                                   per_board: tuple[np.ndarray, np.ndarray]) -> None:
    assert len(mixed_boards) >= 10_000
    arrays = to_arrays(mixed_boards)
    wdl = tablebase.probe_wdl_bitboards(*_args(arrays), threads=threads)
    dtz = tablebase.probe_dtz_bitboards(*_args(arrays), threads=threads)
    assert isinstance(wdl, np.ndarray) and wdl.dtype == np.int8 and wdl.shape == (len(mixed_boards),)
    assert isinstance(dtz, np.ndarray) and dtz.dtype == np.int16 and dtz.shape == (len(mixed_boards),)
    _assert_equal("wdl", wdl, per_board[0], mixed_boards)
    _assert_equal("dtz", dtz, per_board[1], mixed_boards)


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_row_counts_around_the_chunk_size(threads: int, tablebase: Any,
                                          mixed_boards: list[chess.Board],
                                          per_board: tuple[np.ndarray, np.ndarray]) -> None:
    """Threads claim rows 64 at a time: every row is probed exactly once
    whatever the count (1, a chunk minus one, a chunk, one more, more
    threads than chunks, an odd tail)."""
    for n in (1, 63, 64, 65, 129, 1000, 4097):
        arrays = to_arrays(mixed_boards[:n])
        out = tablebase.probe_wdl_bitboards(*_args(arrays), threads=threads)
        _assert_equal(f"wdl, {n} rows, {threads} threads", out, per_board[0][:n], mixed_boards[:n])
        out = tablebase.probe_dtz_bitboards(*_args(arrays), threads=threads)
        _assert_equal(f"dtz, {n} rows, {threads} threads", out, per_board[1][:n], mixed_boards[:n])


def test_many_equal_per_board(tablebase: Any, mixed_boards: list[chess.Board],
                              per_board: tuple[np.ndarray, np.ndarray]) -> None:
    wdl = tablebase.probe_wdl_many(iter(mixed_boards))  # any iterable
    dtz = tablebase.probe_dtz_many(mixed_boards)
    assert wdl.dtype == np.int8 and dtz.dtype == np.int16
    _assert_equal("wdl", wdl, per_board[0], mixed_boards)
    _assert_equal("dtz", dtz, per_board[1], mixed_boards)


@pytest.mark.parametrize("threads", [1, 2])
def test_precise_flags_equal_per_board(threads: int, tablebase: Any,
                                       mixed_boards: list[chess.Board],
                                       per_board: tuple[np.ndarray, np.ndarray]) -> None:
    """``precise=`` gets each row's Probe.dtz_precise from the same C call,
    and asking for it changes no DTZ; rows that fail get 0."""
    expected = np.array([tablebase.probe(b).dtz_precise for b in mixed_boards], dtype=np.uint8)
    assert 0 < expected.sum() < len(expected)  # both kinds of table present
    precise = np.full(len(mixed_boards), 255, dtype=np.uint8)
    dtz = tablebase.probe_dtz_bitboards(*_args(to_arrays(mixed_boards)), threads=threads,
                                        precise=precise)
    _assert_equal("dtz with precise", dtz, per_board[1], mixed_boards)
    _assert_equal("precise", precise, expected, mixed_boards)
    # Boards, with rows that fail before and in the C call mixed in.
    boards = mixed_boards[:200] + [chess.Board("4k3/8/8/8/8/8/8/R3K3 b Q - 0 1"),
                                   chess.Board("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1")]
    precise = np.full(len(boards), 255, dtype=np.uint8)
    status = np.full(len(boards), 255, dtype=np.uint8)
    dtz = tablebase.probe_dtz_many(boards, threads=threads, precise=precise, status=status)
    _assert_equal("dtz many with precise", dtz[:200], per_board[1][:200], boards)
    _assert_equal("precise many", precise[:200], expected[:200], boards)
    assert list(dtz[200:]) == [DTZ_FAILED, DTZ_FAILED] and list(precise[200:]) == [0, 0]
    assert list(status[200:]) == [Status.CASTLING, Status.TOO_MANY_PIECES]


def _assert_equal(what: str, got: np.ndarray, expected: np.ndarray,
                  boards: list[chess.Board]) -> None:
    diff = np.flatnonzero(got != expected)
    lines = [f"{boards[i].fen(en_passant='fen')}: per-board {expected[i]}, batch {got[i]}"
             for i in diff[:20]]
    assert diff.size == 0, f"{what}: {diff.size} of {len(boards)} rows differ\n" + "\n".join(lines)


def test_empty_batch(tablebase: Any) -> None:
    arrays = to_arrays([])
    assert tablebase.probe_wdl_bitboards(*_args(arrays)).shape == (0,)
    assert tablebase.probe_dtz_bitboards(*_args(arrays), threads=2).shape == (0,)


# ---------------------------------------------------------------------------
# FAILED rows mixed into good arrays.

def _good(n: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    return [random_position(rng, rng.choice(ALL_TABLES)) for _ in range(n)]


def _corrupt(row: list[int], kind: str, rng: random.Random) -> list[int]:
    """Make one bitboard row inconsistent in the way *kind* says."""
    white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn = row
    occupied = white | black
    empty = [s for s in range(64) if not occupied >> s & 1]
    if kind == "two piece masks":
        # The white king's square is also in the knight mask.
        knights |= kings & white
    elif kind == "no colour":
        # A piece in a piece mask but in neither colour.
        sq = rng.choice([s for s in empty if 8 <= s < 56])
        rooks |= 1 << sq
    elif kind == "both colours":
        black |= kings & white
    elif kind == "two white kings":
        sq = rng.choice(empty)
        kings |= 1 << sq
        white |= 1 << sq
    elif kind == "no black king":
        bk = kings & black
        kings &= ~bk
        black &= ~bk
    elif kind == "pawn on rank 1":
        sq = rng.choice([s for s in empty if s < 8])
        pawns |= 1 << sq
        white |= 1 << sq
    elif kind == "pawn on rank 8":
        sq = rng.choice([s for s in empty if s >= 56])
        pawns |= 1 << sq
        black |= 1 << sq
    elif kind == "colour without piece":
        sq = rng.choice(empty)
        white |= 1 << sq
    else:
        raise AssertionError(kind)
    return [white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn]


CORRUPTIONS = ["two piece masks", "no colour", "both colours", "two white kings",
               "no black king", "pawn on rank 1", "pawn on rank 8", "colour without piece"]


def _rows(boards: list[chess.Board]) -> list[list[int]]:
    arrays = to_arrays(boards)
    return [[int(arrays[name][i]) for name in NAMES] for i in range(len(boards))]


def _arrays(rows: list[list[int]]) -> list[np.ndarray]:
    return [np.array([r[i] for r in rows],
                     dtype=np.uint8 if name in ("ep", "turn") else np.uint64)
            for i, name in enumerate(NAMES)]


@pytest.mark.parametrize("threads", [1, 2])
def test_failed_rows_for_bad_masks_and_too_many_pieces(threads: int, tablebase: Any) -> None:
    rng = random.Random(50)
    boards = _good(400, 51)
    rows = _rows(boards)
    expected_wdl = [int(tablebase.probe_wdl(b)) for b in boards]
    expected_dtz = [int(tablebase.probe_dtz(b)) for b in boards]
    bad_rows: dict[int, str] = {}
    for i in range(0, len(rows), 7):
        kind = CORRUPTIONS[(i // 7) % len(CORRUPTIONS)]
        rows[i] = _corrupt(rows[i], kind, rng)
        bad_rows[i] = kind
    # Five-piece positions (valid boards): more pieces than the tables hold,
    # answered where a capture decides, as per board (MISSING_TABLE if not).
    fives: dict[int, chess.Board] = {}
    for i in range(3, len(rows), 29):
        five = random_position(rng, rng.choice(["KQRvKR", "KRPvKP", "KBNvKN"]))
        rows[i] = _rows([five])[0]
        fives[i] = five
    wdl_status = np.full(len(rows), 255, dtype=np.uint8)
    dtz_status = np.full(len(rows), 255, dtype=np.uint8)
    wdl = tablebase.probe_wdl_bitboards(*_arrays(rows), threads=threads, status=wdl_status)
    dtz = tablebase.probe_dtz_bitboards(*_arrays(rows), threads=threads, status=dtz_status)
    assert (tablebase.probe_wdl_bitboards(*_arrays(rows), threads=threads) == wdl).all()
    problems = []
    answered_fives = 0
    for i in range(len(rows)):
        if i in fives:
            per_board = (tablebase.get_wdl(fives[i], WDL_FAILED),
                         tablebase.get_dtz(fives[i], DTZ_FAILED))
            why = Status.MISSING_TABLE if per_board[0] == WDL_FAILED else Status.OK
            answered_fives += why == Status.OK
            if (wdl[i], dtz[i], wdl_status[i], dtz_status[i]) != (*per_board, why, why):
                problems.append(f"row {i} {fives[i].fen()}: batch ({wdl[i]}, {dtz[i]}), status "
                                f"{wdl_status[i]}/{dtz_status[i]}; per board {per_board}")
        elif i in bad_rows:
            why = Status.INVALID_POSITION
            if wdl[i] != WDL_FAILED or dtz[i] != DTZ_FAILED:
                problems.append(f"row {i} ({bad_rows[i]}): wdl {wdl[i]} dtz {dtz[i]}, expected FAILED")
            if (wdl_status[i], dtz_status[i]) != (why, why):
                problems.append(f"row {i} ({bad_rows[i]}): status {wdl_status[i]}/{dtz_status[i]},"
                                f" expected {why!r}")
        elif (wdl[i], dtz[i]) != (expected_wdl[i], expected_dtz[i]):
            problems.append(f"row {i} {boards[i].fen()}: batch ({wdl[i]}, {dtz[i]}) "
                            f"per-board ({expected_wdl[i]}, {expected_dtz[i]})")
        elif (wdl_status[i], dtz_status[i]) != (Status.OK, Status.OK):
            problems.append(f"row {i}: answered, status {wdl_status[i]}/{dtz_status[i]}")
    assert len({k for k in bad_rows.values()}) == len(CORRUPTIONS)
    assert 0 < answered_fives < len(fives), (answered_fives, len(fives))
    assert not problems, "\n".join(problems[:30])


def test_failed_rows_for_castling_and_too_many_pieces_many(tablebase: Any) -> None:
    boards = _good(60, 52)
    castling = [
        chess.Board("r3k3/8/8/8/8/8/8/4K3 w q - 0 1"),
        chess.Board("4k3/8/8/8/8/8/8/R3K3 b Q - 0 1"),
        chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
    ]
    assert all(b.is_valid() and b.castling_rights for b in castling)
    eight = chess.Board("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1")  # 8 pieces: past any table
    mixed = list(boards)
    failed_at = {5, 17, 33, 48}
    mixed.insert(5, castling[0])
    mixed.insert(17, castling[1])
    mixed.insert(33, castling[2])
    mixed.insert(48, eight)
    mixed.insert(55, chess.variant.AtomicBoard("8/8/8/8/8/2k5/8/KR6 w - - 0 1"))
    why = {5: Status.CASTLING, 17: Status.CASTLING, 33: Status.CASTLING,
           48: Status.TOO_MANY_PIECES, 55: Status.VARIANT}
    failed_at |= {55}
    wdl_status = np.full(len(mixed), 255, dtype=np.uint8)
    dtz_status = np.full(len(mixed), 255, dtype=np.uint8)
    wdl = tablebase.probe_wdl_many(mixed, status=wdl_status)
    dtz = tablebase.probe_dtz_many(mixed, status=dtz_status)
    for i, board in enumerate(mixed):
        if i in failed_at:
            assert (wdl[i], dtz[i]) == (WDL_FAILED, DTZ_FAILED), board.fen()
            assert (wdl_status[i], dtz_status[i]) == (why[i], why[i]), board.fen()
        else:
            assert (wdl[i], dtz[i]) == (tablebase.probe_wdl(board),
                                        tablebase.probe_dtz(board)), board.fen()
            assert (wdl_status[i], dtz_status[i]) == (Status.OK, Status.OK), board.fen()


def test_failed_rows_for_missing_table(tmp_path: Path, syzygy_dir: Path, tablebase: Any) -> None:
    """A tablebase with only KQvK and KRvK: other tables' rows are FAILED,
    and so are rows whose captures lead to a table that is not loaded."""
    import pyfathom

    for name in ("KQvK", "KRvK"):
        for ext in (".rtbw", ".rtbz"):
            shutil.copy(syzygy_dir / f"{name}{ext}", tmp_path / f"{name}{ext}")
    rng = random.Random(53)
    keys = ["KQvK", "KRvK", "KBvK", "KRvKP", "KQvKR", "KPvK"]
    boards = [random_position(rng, keys[i % len(keys)]) for i in range(300)]
    with pyfathom.open_tablebase(tmp_path) as subset:
        arrays = _arrays(_rows(boards))
        for threads in (1, 2):
            status = np.full(len(boards), 255, dtype=np.uint8)
            wdl = subset.probe_wdl_bitboards(*arrays, threads=threads, status=status)
            dtz = subset.probe_dtz_bitboards(*arrays, threads=threads)
            for i, board in enumerate(boards):
                key = keys[i % len(keys)]
                if key in ("KQvK", "KRvK"):
                    assert (wdl[i], dtz[i]) == (tablebase.probe_wdl(board),
                                                tablebase.probe_dtz(board)), board.fen()
                    assert status[i] == Status.OK
                elif key in ("KBvK", "KPvK"):
                    assert (wdl[i], dtz[i]) == (WDL_FAILED, DTZ_FAILED), board.fen()
                    assert status[i] == Status.MISSING_TABLE, board.fen()
                else:
                    # KRvKP, KQvKR: their own table is missing, but a capture
                    # into KQvK or KRvK may decide (as per board, and as
                    # python-chess: tests/test_dropin.py).
                    per_board = (subset.get_wdl(board, WDL_FAILED),
                                 subset.get_dtz(board, DTZ_FAILED))
                    assert (wdl[i], dtz[i]) == per_board, board.fen()
                    assert status[i] == (Status.MISSING_TABLE if per_board[0] == WDL_FAILED
                                         else Status.OK), board.fen()
        many = subset.probe_wdl_many(boards)
        assert (many == subset.probe_wdl_bitboards(*arrays)).all()


# ---------------------------------------------------------------------------
# Argument checking and memory layout.

def test_status_argument_is_checked(tablebase: Any) -> None:
    boards = _good(10, 56)
    args = _args(to_arrays(boards))
    cases: list[tuple[Any, type[Exception], str]] = [
        ([0] * 10, TypeError, "status must be a numpy uint8 array or None, not list"),
        (np.zeros(10, dtype=np.int8), TypeError, "status must be a uint8 array, not int8"),
        (np.zeros(9, dtype=np.uint8), ValueError, r"status must have shape \(10,\), not \(9,\)"),
        (np.zeros((10, 1), dtype=np.uint8), ValueError, "status must have shape"),
        (np.zeros(20, dtype=np.uint8)[::2], ValueError, "status must be a contiguous, writable array"),
    ]
    readonly = np.zeros(10, dtype=np.uint8)
    readonly.flags.writeable = False
    cases.append((readonly, ValueError, "status must be a contiguous, writable array"))
    for status, error, message in cases:
        with pytest.raises(error, match=message):
            tablebase.probe_wdl_bitboards(*args, status=status)
        with pytest.raises(error, match=message):
            tablebase.probe_dtz_many(boards, status=status)
        with pytest.raises(error, match=message.replace("status", "precise")):
            tablebase.probe_dtz_bitboards(*args, precise=status)


def test_wrong_dtype_names_the_argument(tablebase: Any) -> None:
    arrays = to_arrays(_good(10, 54))
    for name in ("white", "kings", "pawns"):
        bad = dict(arrays)
        bad[name] = arrays[name].astype(np.float64)
        for fn in (tablebase.probe_wdl_bitboards, tablebase.probe_dtz_bitboards):
            with pytest.raises((TypeError, ValueError)) as info:
                fn(*_args(bad))
            assert name in str(info.value)


def test_wrong_length_names_the_argument(tablebase: Any) -> None:
    arrays = to_arrays(_good(10, 55))
    for name in ("black", "ep", "turn"):
        bad = dict(arrays)
        bad[name] = arrays[name][:-1]
        for fn in (tablebase.probe_wdl_bitboards, tablebase.probe_dtz_bitboards):
            with pytest.raises((TypeError, ValueError)) as info:
                fn(*_args(bad))
            assert name in str(info.value)


def test_wrong_shape_names_the_argument(tablebase: Any) -> None:
    arrays = to_arrays(_good(10, 56))
    bad = dict(arrays)
    bad["queens"] = arrays["queens"].reshape(5, 2)
    with pytest.raises((TypeError, ValueError)) as info:
        tablebase.probe_wdl_bitboards(*_args(bad))
    assert "queens" in str(info.value)


def test_non_contiguous_inputs(tablebase: Any) -> None:
    boards = _good(500, 57)
    arrays = to_arrays(boards)
    expected = tablebase.probe_wdl_bitboards(*_args(arrays))
    expected_dtz = tablebase.probe_dtz_bitboards(*_args(arrays))
    # Every other element of a doubled array.
    strided = {}
    for name in NAMES:
        doubled = np.repeat(arrays[name], 2)
        doubled[1::2] = 0
        strided[name] = doubled[0::2]
        assert not strided[name].flags.c_contiguous
    assert (tablebase.probe_wdl_bitboards(*_args(strided), threads=2) == expected).all()
    assert (tablebase.probe_dtz_bitboards(*_args(strided), threads=1) == expected_dtz).all()
    # Columns of a row-major 2-D array.
    masks = np.stack([arrays[name] for name in NAMES[:8]], axis=1)
    small = np.stack([arrays["ep"], arrays["turn"]], axis=1)
    cols = [masks[:, i] for i in range(8)] + [small[:, 0], small[:, 1]]
    assert not cols[0].flags.c_contiguous
    assert (tablebase.probe_wdl_bitboards(*cols) == expected).all()
    # The inputs are not modified.
    for name in NAMES:
        assert (strided[name] == arrays[name]).all()
