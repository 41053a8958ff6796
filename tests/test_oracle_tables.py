"""pyfathom against python-chess, table by table, through the Python API.

For each of the 35 test tables, a deterministic sample of valid positions
(both sides to move, both colour orientations; for pawn tables a share
reached by a real double push, and for KPvKP a share with a legal en-passant
capture) is probed with ``probe_wdl``, ``probe_dtz`` and ``probe``; all
three must give python-chess's numbers.  python-chess 1.11.2's answers for
these fixed samples were computed once and are committed
(``tests/support/expected.py``); ``test_oracle_live.py`` asks python-chess live.

Sizes: 20,000 positions per 3-piece table, 2,000 per 4-piece table, WDL and
DTZ on all of them.  The C self-consistency test (tests/test_core_c.py)
covers every position of the 3-piece tables.
"""

from __future__ import annotations

from typing import Any

import chess
import pytest

from support.expected import TABLE_SAMPLE_3, TABLE_SAMPLE_4, expected_answers, fen, table_boards
from support.positions import TABLES_3, TABLES_4, compare_with_oracle, has_pawns_both_sides, mismatch_report


def _check_table(key: str, tablebase: Any) -> None:
    boards = table_boards(key)
    # The sample is large enough, has both sides to move, and (with pawns on
    # both sides) a tenth of positions where en passant is legal.
    assert len(boards) >= (TABLE_SAMPLE_3 if key in TABLES_3 else TABLE_SAMPLE_4)
    assert {b.turn for b in boards} == {chess.WHITE, chess.BLACK}
    if has_pawns_both_sides(key):
        with_ep = sum(b.has_legal_en_passant() for b in boards)
        assert with_ep >= 0.10 * len(boards)
    answers = expected_answers([fen(b) for b in boards])
    # Every sampled position lies in a loaded table: python-chess answered all.
    assert all(isinstance(w, int) and isinstance(d, int) for w, d in answers)
    bad = compare_with_oracle(tablebase, boards, answers)
    assert not bad, mismatch_report(key, len(boards), bad)


@pytest.mark.parametrize("key", TABLES_3)
def test_three_piece_table(key: str, tablebase: Any) -> None:
    _check_table(key, tablebase)


@pytest.mark.parametrize("key", TABLES_4)
def test_four_piece_table(key: str, tablebase: Any) -> None:
    _check_table(key, tablebase)
