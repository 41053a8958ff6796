"""python-chess's data/endgame.epd, known hard positions, and the
Fathom-compatible low-level call, all checked against python-chess."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest

from support.expected import expected_answers, fathom_boards, fen
from support.positions import bitboards, compare_with_oracle, mismatch_report


def _epd_lines(path: Path) -> list[tuple[int, str]]:
    return [
        (number, line.strip())
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if line.strip() and not line.startswith("#")
    ]


def test_endgame_epd(endgame_epd: Path, tablebase: Any,
                     oracle: chess.syzygy.Tablebase) -> None:
    """Every line of endgame.epd: its wdl and dtz opcodes, and python-chess."""
    lines = _epd_lines(endgame_epd)
    assert len(lines) == 200
    bad = []
    for number, line in lines:
        board, ops = chess.Board.from_epd(line)
        expected = (ops["wdl"], ops["dtz"])
        # The EPD file and python-chess agree (guards the oracle itself).
        assert (oracle.probe_wdl(board), oracle.probe_dtz(board)) == expected, line
        problems = compare_with_oracle(tablebase, [board], [expected])
        bad += [f"line {number}: {p}" for p in problems]
    assert not bad, mismatch_report("endgame.epd", len(lines), bad)


HARD_CASES = [
    # Known hard cases.  The first and third have 5 pieces: with the
    # 3-4-piece test tables python-chess raises MissingTableError, and
    # pyfathom must raise a KeyError too (more pieces than tb.largest).
    "3K4/8/3k4/8/4p3/4B3/5P2/8 w - - 0 5",
    "8/8/8/8/2pP4/2K5/4k3/8 b - d3 0 1",  # en passant saves black: DTZ 1
    "4r1K1/6PP/3k4/8/8/8/8/8 w - - 1 64",
    # Checkmated and stalemated side to move.
    "7k/7Q/6K1/8/8/8/8/8 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    # A double push that gives check; en passant removes the checker.
    "5K2/8/8/4k3/3Pp3/8/8/8 b - d3 0 1",
    "8/6k1/8/3Pp3/5K2/8/8/8 w - e6 0 2",
    # Double push with no pawn to take en passant: the square is irrelevant.
    "8/8/7K/8/6Pk/4r3/8/8 b - g3 0 1",
]


@pytest.mark.parametrize("fen", HARD_CASES)
def test_hard_case(fen: str, tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    board = chess.Board(fen)
    if not board.is_valid():
        pytest.fail(f"test position is not valid: {fen}")
    expected: tuple[object, object]
    try:
        expected = (oracle.probe_wdl(board), oracle.probe_dtz(board))
    except chess.syzygy.MissingTableError as exc:
        # Only the 5-piece cases: python-chess has no table, pyfathom must
        # raise a KeyError (checked by compare_with_oracle) as well.
        assert chess.popcount(board.occupied) > 4, f"{fen}: {exc}"
        expected = ("MissingTableError", "MissingTableError")
    bad = compare_with_oracle(tablebase, [board], [expected])
    assert not bad, mismatch_report(fen, 1, bad)


def test_hard_case_en_passant_dtz(oracle: chess.syzygy.Tablebase, tablebase: Any) -> None:
    """python-chess's own test: DTZ 1 only because of the en-passant capture."""
    board = chess.Board("8/8/8/8/2pP4/2K5/4k3/8 b - d3 0 1")
    assert oracle.probe_dtz_no_ep(board) == -1 and oracle.probe_dtz(board) == 1
    assert tablebase.probe_dtz(board) == oracle.probe_dtz(board)
    assert tablebase.probe_wdl(board) == oracle.probe_wdl(board)


def test_fathom_compatible_wdl(syzygy_dir: Path) -> None:
    """pyfathom.fathom.tb_probe_wdl(12 args) - 2 == python-chess's WDL, on
    200 positions of each of the 35 tables; plus its failure conditions."""
    import pyfathom.fathom as fathom

    boards = fathom_boards()
    answers = expected_answers([fen(b) for b in boards])
    assert fathom.tb_init(str(syzygy_dir))
    try:
        assert fathom.TB_LARGEST == 4
        bad = []
        for board, (o_wdl, _) in zip(boards, answers):
            w, b, k, q, r, bi, n, p, ep, turn = bitboards(board)
            v = fathom.tb_probe_wdl(w, b, k, q, r, bi, n, p, 0, 0, ep, turn)
            if v == fathom.TB_RESULT_FAILED or v - 2 != o_wdl:
                bad.append(f"{board.fen(en_passant='fen')}: python-chess={o_wdl} "
                           f"tb_probe_wdl={v}")
        assert not bad, mismatch_report("tb_probe_wdl", len(boards), bad)
        # Fathom's failure conditions: a nonzero rule50 or castling rights.
        w, b, k, q, r, bi, n, p, ep, turn = bitboards(boards[0])
        assert fathom.tb_probe_wdl(w, b, k, q, r, bi, n, p, 1, 0, ep, turn) \
            == fathom.TB_RESULT_FAILED
        assert fathom.tb_probe_wdl(w, b, k, q, r, bi, n, p, 0, 1, ep, turn) \
            == fathom.TB_RESULT_FAILED
    finally:
        fathom.tb_free()
