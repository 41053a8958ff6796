"""python-chess 1.11.2 asked live, on positions no committed file holds.

The routine oracle tests compare pyfathom with python-chess's answers
committed in ``tests/data`` (see ``tests/support/expected.py``).  These tests keep
python-chess itself in the loop:

* fresh random positions of every table, from a new seed each run, probed
  with ``probe_wdl``, ``probe_dtz`` and ``probe``: over many CI runs they
  reach far more positions than any fixed sample.  The seed is in every
  failure message; ``PYFATHOM_TEST_SEED=<seed>`` replays a run.
* a random part of the committed answers, asked again, so that a wrong
  answer file cannot hide a bug.
"""

from __future__ import annotations

import os
import random
from typing import Any

import chess
import chess.syzygy

from support.expected import committed_rows
from support.positions import (ALL_TABLES, compare_with_oracle, mismatch_report, oracle_answer,
                               table_sample)

PER_TABLE = 40
"""Fresh positions per table (1,400 in all)."""
COMMITTED_RECHECKED = 1_000
"""Rows of the committed answers asked again."""


def _seed() -> int:
    env = os.environ.get("PYFATHOM_TEST_SEED")
    return int(env) if env else random.SystemRandom().randrange(2**32)


def test_fresh_random_positions(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    """WDL, DTZ and probe() of fresh positions of all 35 tables (a share
    after a double push, and with legal en passant) equal python-chess's."""
    seed = _seed()
    boards = [b for index, key in enumerate(ALL_TABLES)
              for b in table_sample(key, PER_TABLE, seed=seed + index,
                                    ep_share=0.25, push_share=0.1)]
    assert len(boards) >= PER_TABLE * len(ALL_TABLES)
    answers = [oracle_answer(oracle, b) for b in boards]
    bad = compare_with_oracle(tablebase, boards, answers)
    assert not bad, mismatch_report(f"fresh positions, PYFATHOM_TEST_SEED={seed}", len(boards), bad)


def test_committed_answers_are_python_chess_answers(oracle: chess.syzygy.Tablebase,
                                                     tablebase: Any) -> None:
    """A random part of tests/data/expected_answers.csv.gz is what
    python-chess answers now, and pyfathom agrees with both."""
    seed = _seed()
    rows = random.Random(seed).sample(committed_rows(), COMMITTED_RECHECKED)
    wrong = []
    for fen, answer in rows:
        board = chess.Board(fen)
        live = oracle_answer(oracle, board)
        if live != answer:
            wrong.append(f"{fen}: committed {answer}, python-chess {live}")
    assert not wrong, (f"PYFATHOM_TEST_SEED={seed}: {len(wrong)} committed answers differ:\n"
                       + "\n".join(wrong[:20]))
    boards = [chess.Board(fen) for fen, _ in rows]
    bad = compare_with_oracle(tablebase, boards, [answer for _, answer in rows])
    assert not bad, mismatch_report(f"committed rows, PYFATHOM_TEST_SEED={seed}", len(rows), bad)
