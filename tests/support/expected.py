"""Expected answers, computed once with python-chess 1.11.2 and committed.

The routine oracle tests (``test_oracle_tables.py``, ``test_oracle_root.py``,
``test_oracle_epd.py``) compare pyfathom with python-chess on fixed,
seeded samples of positions.  python-chess's answers for those samples do
not change, so they are computed once and kept in
:data:`EXPECTED_FILE` (gzipped CSV lines ``fen,wdl,dtz``, as
shakmaty-syzygy keeps ``tests/chess.csv``) instead of being recomputed by
every cold CI run.  ``test_oracle_live.py`` keeps python-chess in the loop:
it probes fresh random positions live, and re-checks a random part of this
file against python-chess.

The samples are defined here, once, for the tests and for the generator.
After changing a sample or a generator in ``positions.py``, regenerate
(python-chess 1.11.2 and the test tables needed)::

    .venv/bin/python tests/support/expected.py

A FEN missing from the file fails the test that asks for it, with this
command in the message.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import sys
from collections.abc import Sequence
from pathlib import Path

import chess

TESTS = Path(__file__).resolve().parents[1]
if __name__ == "__main__" and str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))  # run as a script: `support` importable

from support.positions import ALL_TABLES, TABLES_3, table_sample  # noqa: E402

EXPECTED_FILE = TESTS / "data" / "expected_answers.csv.gz"
"""python-chess 1.11.2's ``(probe_wdl, probe_dtz)`` for every FEN of the samples
below; a ``KeyError`` python-chess raised is written as its class name."""

ORACLE_VERSION = "1.11.2"

Answer = tuple["int | str", "int | str"]

# ---- the samples -----------------------------------------------------------

TABLE_SAMPLE_3 = 20_000
"""Positions per 3-piece table in ``test_oracle_tables.py``."""
TABLE_SAMPLE_4 = 2_000
"""Positions per 4-piece table."""
EP_SHARE = 0.25
"""Of KPvKP positions: a legal en-passant capture."""
PUSH_SHARE = 0.10
"""Of pawn-table positions: reached by a double push."""


def table_boards(key: str) -> list[chess.Board]:
    """The sample of one table for ``test_oracle_tables.py``."""
    if key in TABLES_3:
        return table_sample(key, TABLE_SAMPLE_3, seed=3)
    return table_sample(key, TABLE_SAMPLE_4, seed=4, ep_share=EP_SHARE, push_share=PUSH_SHARE)


def root_boards() -> list[chess.Board]:
    """15 positions of each table for the root-move test."""
    return [b for key in ALL_TABLES
            for b in table_sample(key, 15, seed=30, ep_share=0.3, push_share=0.1)]


def children_fens(boards: Sequence[chess.Board]) -> list[str]:
    """Every position one legal move away from *boards*, sorted, once each."""
    fens = set()
    for board in boards:
        for move in board.legal_moves:
            after = board.copy(stack=False)
            after.push(move)
            fens.add(after.fen(en_passant="fen"))
    return sorted(fens)


def fathom_boards() -> list[chess.Board]:
    """200 positions of each table for the Fathom-compatible WDL call."""
    return [b for key in ALL_TABLES for b in table_sample(key, 200, seed=12)]


ENGINE_PER_TABLE = 145
"""Positions per table of the Fathom drop-in engine test (35 tables: 5,075)."""


def engine_boards() -> list[chess.Board]:
    """The positions ``test_engine_dropin.py`` gives the C engine program."""
    return [b for key in ALL_TABLES
            for b in table_sample(key, ENGINE_PER_TABLE, seed=19, ep_share=0.2, push_share=0.2)]


def clockless_fen(board: chess.Board) -> str:
    """The FEN with the clocks reset: the engine test varies the halfmove
    clock itself, and python-chess's probes do not read it."""
    b = board.copy(stack=False)
    b.halfmove_clock, b.fullmove_number = 0, 1
    return b.fen(en_passant="fen")


def engine_fens() -> list[str]:
    """Clockless FENs of the engine test's positions and of every position
    one legal move away, sorted, once each."""
    fens = set()
    for board in engine_boards():
        fens.add(clockless_fen(board))
        for move in board.legal_moves:
            after = board.copy(stack=False)
            after.push(move)
            fens.add(clockless_fen(after))
    return sorted(fens)


def fen(board: chess.Board) -> str:
    """The FEN the expected answers are keyed by."""
    return board.fen(en_passant="fen")


def all_fens() -> list[str]:
    """Every FEN of every sample, sorted, once each."""
    boards = [b for key in ALL_TABLES for b in table_boards(key)]
    roots = root_boards()
    fens = {fen(b) for b in boards + roots + fathom_boards()}
    fens.update(children_fens(roots))
    fens.update(engine_fens())
    return sorted(fens)


# ---- reading ------------------------------------------------------------------

def _value(text: str) -> int | str:
    return text if text.endswith("Error") else int(text)


@functools.lru_cache(maxsize=1)
def _load() -> dict[str, Answer]:
    with gzip.open(EXPECTED_FILE, "rt", encoding="ascii", newline="") as f:
        return {row[0]: (_value(row[1]), _value(row[2])) for row in csv.reader(f)}


def expected_answers(fens: Sequence[str]) -> list[Answer]:
    """python-chess's committed answers for *fens*, in order.

    :raises AssertionError: a FEN is not in the file (a sample or a generator
        changed since it was written), naming the command that rewrites it.
    """
    table = _load()
    missing = [f for f in fens if f not in table]
    assert not missing, (
        f"{len(missing)} of {len(fens)} positions are not in {EXPECTED_FILE.name} "
        f"(first: {missing[0]}); regenerate it: python tests/support/expected.py")
    return [table[f] for f in fens]


def committed_rows() -> list[tuple[str, Answer]]:
    """Every row of the file, in file order."""
    return sorted(_load().items())


# ---- writing ------------------------------------------------------------------

def main() -> None:
    """Recompute the file with python-chess (must be 1.11.2) in worker processes."""
    if chess.__version__ != ORACLE_VERSION:
        raise SystemExit(f"python-chess {ORACLE_VERSION} is the oracle, not {chess.__version__}")
    from support import table_cache
    from support.positions import oracle_answers

    fens = all_fens()
    # Rows already in the file are kept (python-chess 1.11.2 wrote them); only
    # new FENs are asked, so growing a sample costs only its new positions.
    known = _load() if EXPECTED_FILE.exists() else {}
    missing = [f for f in fens if f not in known]
    asked = dict(zip(missing, oracle_answers(table_cache.tables_dir(), missing), strict=True))
    answers = [known[f] if f in known else asked[f] for f in fens]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    for f, (wdl, dtz) in zip(fens, answers, strict=True):
        writer.writerow([f, wdl, dtz])
    EXPECTED_FILE.parent.mkdir(parents=True, exist_ok=True)
    # mtime=0 and no file name: the same answers give the same bytes.
    with open(EXPECTED_FILE, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(text.getvalue().encode("ascii"))
    print(f"wrote {len(fens)} positions to {EXPECTED_FILE}")


if __name__ == "__main__":
    main()
