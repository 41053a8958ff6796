"""Python-level fuzzing of the public API with hypothesis.

Random FEN text goes through the batch reader (the C FEN parser), random
bitboard arrays through the batch probes, and random boards through the
per-board probes.  The only acceptable outcomes are answers, FAILED rows and
the documented exceptions: never a crash, a hang, an out-of-range value or
another exception.  (Native crashes would kill the test process and fail
the suite; the sanitized C fuzzers in test_hostile_fuzz.py look deeper.)
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyfathom
from pyfathom import batch_files

MASKS = ("white", "black", "kings", "queens", "rooks", "bishops", "knights", "pawns")
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# Bitboards that are mostly sparse (a few squares), as positions are, but
# sometimes dense garbage.
sparse_bitboard = st.lists(st.integers(0, 63), max_size=4).map(
    lambda squares: sum(1 << s for s in set(squares)))
bitboard = st.one_of(sparse_bitboard, st.integers(0, 2**64 - 1))

FEN_PIECES = "pnbrqkPNBRQK12345678/"
fen_like = st.one_of(
    st.text(alphabet=FEN_PIECES + " wb-KQkqabcdefgh0123456789;\t", max_size=90),
    st.text(max_size=60),
    st.builds(lambda placement, side, rest: f"{placement} {side} {rest}",
              st.text(alphabet=FEN_PIECES, min_size=1, max_size=40),
              st.sampled_from(["w", "b", "x", ""]),
              st.text(alphabet="-KQkqa1b2c3d4e5f6g7h8 0123456789", max_size=20)),
)


@pytest.fixture(scope="module")
def tb(syzygy_dir: Path) -> Any:
    with pyfathom.open_tablebase(syzygy_dir) as tablebase:
        yield tablebase


@SETTINGS
@given(lines=st.lists(fen_like, min_size=1, max_size=40))
def test_random_fen_text_through_the_batch_reader(tb: Any, lines: list[str]) -> None:
    data = "\n".join(lines).encode("utf-8", errors="replace") + b"\n"
    rows = 0
    for chunk in batch_files.read_chunks(io.BytesIO(data), chunk_lines=16):
        probed = batch_files.probe_chunk(tb, chunk, dtz=True, threads=2)
        assert probed.dtz is not None
        assert len(probed.wdl) == len(probed.dtz) == len(chunk)
        ok = probed.status == batch_files.OK
        assert set(probed.wdl[ok].tolist()) <= {-2, -1, 0, 1, 2}
        assert (probed.wdl[~ok] == pyfathom.FAILED).all()
        for i in probed.bad_rows():
            assert probed.reason(int(i))  # every bad row says why
        rows += len(chunk)
    assert rows == data.count(b"\n")


@pytest.fixture(scope="module")
def valid_rows(endgame_epd: Path) -> list[tuple[int, ...]]:
    """Bitboard rows of real positions (the 3-4-piece lines of endgame.epd),
    mixed into the random arrays so that answered rows are checked too."""
    rows = []
    for line in endgame_epd.read_text().splitlines():
        board, _ = chess.Board.from_epd(line)
        if chess.popcount(board.occupied) <= 4:
            rows.append((board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                         board.kings, board.queens, board.rooks, board.bishops,
                         board.knights, board.pawns, board.ep_square or 0, int(board.turn)))
    assert len(rows) >= 20
    return rows


def _board_of(row: tuple[int, ...]) -> chess.Board:
    board = chess.Board(None)
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = row[0], row[1]
    board.kings, board.queens, board.rooks = row[2], row[3], row[4]
    board.bishops, board.knights, board.pawns = row[5], row[6], row[7]
    board.occupied = row[0] | row[1]
    board.ep_square = row[8] or None
    board.turn = bool(row[9])
    board.castling_rights = 0
    return board


@settings(SETTINGS, max_examples=120)
@given(data=st.data(), n=st.integers(1, 48))
def test_random_bitboard_arrays(tb: Any, valid_rows: list[tuple[int, ...]],
                                data: st.DataObject, n: int) -> None:
    rows = [tuple(data.draw(st.lists(bitboard, min_size=8, max_size=8)))
            + (data.draw(st.integers(0, 63)), data.draw(st.integers(0, 1)))
            for _ in range(n)]
    for _ in range(data.draw(st.integers(1, 4))):
        rows.insert(data.draw(st.integers(0, len(rows))),
                    valid_rows[data.draw(st.integers(0, len(valid_rows) - 1))])
    cols = [np.array([r[k] for r in rows], dtype=np.uint64) for k in range(8)]
    ep = np.array([r[8] for r in rows], dtype=np.uint8)
    turn = np.array([r[9] for r in rows], dtype=np.uint8)
    wdl = tb.probe_wdl_bitboards(*cols, ep, turn, threads=2)
    dtz = tb.probe_dtz_bitboards(*cols, ep, turn, threads=1)
    assert wdl.dtype == np.int8 and dtz.dtype == np.int16 and len(wdl) == len(dtz) == len(rows)
    answered = 0
    for i, row in enumerate(rows):
        board = _board_of(row)
        if not board.is_valid() or chess.popcount(board.occupied) > tb.largest:
            assert wdl[i] == pyfathom.FAILED and dtz[i] == pyfathom.FAILED_DTZ, board.fen()
            continue
        # Valid: the per-board answers (all 3-4-piece tables are loaded).
        assert int(wdl[i]) == tb.probe_wdl(board), board.fen()
        assert int(dtz[i]) == tb.probe_dtz(board), board.fen()
        answered += 1
    assert answered >= 1


def test_a_large_array_of_garbage_gives_only_failed_rows(tb: Any) -> None:
    rng = np.random.default_rng(20261129)
    n = 200_000
    cols = [rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
            for _ in MASKS]
    ep = rng.integers(0, 256, size=n, dtype=np.uint8)
    turn = rng.integers(0, 256, size=n, dtype=np.uint8)
    # ep beyond 63 or turn beyond 1 is refused as an argument error, naming it.
    with pytest.raises(ValueError, match="ep"):
        tb.probe_wdl_bitboards(*cols, ep, turn)
    ep %= 64
    turn %= 2
    wdl = tb.probe_wdl_bitboards(*cols, ep, turn)
    assert (wdl == pyfathom.FAILED).all()


@SETTINGS
@given(squares=st.lists(st.tuples(st.integers(0, 63), st.sampled_from("KQRBNPkqrbnp")),
                        min_size=0, max_size=9),
       white_to_move=st.booleans(), ep=st.integers(0, 63))
def test_random_boards_per_board(tb: Any, squares: list[tuple[int, str]],
                                 white_to_move: bool, ep: int) -> None:
    board = chess.Board(None)
    for square, symbol in squares:
        board.set_piece_at(square, chess.Piece.from_symbol(symbol))
    board.turn = white_to_move
    board.ep_square = ep if ep else None
    too_many = chess.popcount(board.occupied) > 7
    beyond_tables = chess.popcount(board.occupied) > tb.largest
    for probe in (tb.probe_wdl, tb.probe_dtz, tb.probe, tb.probe_root):
        try:
            probe(board)
        except pyfathom.TooManyPiecesError:
            assert too_many, board.fen()
        except KeyError as exc:
            # Every 3-4-piece table is loaded: only a bigger board misses one
            # (unless a capture into the loaded tables decides).
            assert isinstance(exc, pyfathom.MissingTableError), board.fen()
            assert beyond_tables and not too_many and board.is_valid(), board.fen()
        except ValueError:
            assert not too_many and not board.is_valid(), board.fen()
        else:
            assert board.is_valid() and not too_many, board.fen()
