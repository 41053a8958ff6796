"""What the damaged-disk tests share (``tests/test_disk_survival.py``: a
table file cut short; ``tests/test_disk_errors.py``: reads that fail with
EIO): the positions, the victim process (``tests/support/disk_victim.py``)
and the checks of what it printed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest

from support import positions

VICTIM = Path(__file__).resolve().parent / "disk_victim.py"
DAMAGED = "KPvKP"
OTHERS = ("KRvK", "KQvKR", "KBNvK", "KPvK", "KRvKP")
IO_STATUS = 8  # Status.IO, FATHOM_ERR_IO


@pytest.fixture(scope="module")
def boards() -> dict[str, list[chess.Board]]:
    """Positions of the damaged material and of five others, interleaved
    in the order they are probed."""
    damaged = positions.table_sample(DAMAGED, 60, seed=41)
    others = [b for i, key in enumerate(OTHERS) for b in positions.table_sample(key, 24, seed=i)]
    mixed = [b for pair in zip(damaged, others) for b in pair] + others[len(damaged):]
    return {"damaged": damaged, "others": others, "mixed": mixed}


def oracle_values(syzygy_dir: Path, boards: list[chess.Board], dtz: bool) -> list[int]:
    with chess.syzygy.open_tablebase(str(syzygy_dir)) as oracle:
        return [int(oracle.probe_dtz(b) if dtz else oracle.probe_wdl(b)) for b in boards]


def run_victim(case: str, tables: Path, victim: Path, spec: dict[str, Any] | None = None,
               args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(VICTIM), case, str(tables), str(victim), *args],
                          input=json.dumps(spec or {}), capture_output=True, text=True,
                          timeout=120)


def rows_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The victim's printed objects, merged; fails unless it lived to the end."""
    assert proc.returncode == 0, (
        f"victim exited {proc.returncode}"
        f"{' (SIGBUS)' if proc.returncode in (-signal.SIGBUS, 128 + signal.SIGBUS) else ''}:"
        f" {proc.stderr[-3000:]}")
    merged: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        merged.update(json.loads(line))
    assert merged.get("done"), proc.stdout[-2000:]
    return merged


def spec_for(boards: list[chess.Board], dtz: bool, **extra: Any) -> dict[str, Any]:
    warm = positions.table_sample(DAMAGED, 1, seed=7)[0]
    return {"fens": [b.fen() for b in boards], "dtz": dtz, "warm_fen": warm.fen(), **extra}


def check_outcomes(outcomes: list[Any], expected: list[int], boards: list[chess.Board],
                   victim: Path) -> None:
    """Rows of the damaged material: the right value (read before the cut
    was met) or a TableFileError naming the file, at least one of those;
    every other row: python-chess's value."""
    failures = 0
    for outcome, want, board in zip(outcomes, expected, boards, strict=True):
        damaged = board_key(board) == DAMAGED
        if outcome[0] == "error" and damaged:
            assert outcome[1] == "TableFileError" and outcome[2] == str(victim), outcome
            assert str(victim) in outcome[3], outcome
            failures += 1
        else:
            assert outcome == ["value", want], (board.fen(), outcome, want)
    assert failures, "no probe met the cut"


def board_key(board: chess.Board) -> str:
    white = "".join(sorted((p.symbol().upper() for p in board.piece_map().values()
                            if p.color), key="KQRBNP".index))
    black = "".join(sorted((p.symbol().upper() for p in board.piece_map().values()
                            if not p.color), key="KQRBNP".index))
    return f"{white}v{black}" if len(white) >= len(black) else f"{black}v{white}"


def check_batch_rows(out: dict[str, Any], expected: list[int], boards: list[chess.Board],
                     victim: Path) -> None:
    """A batch's rows after the damage: the failed ones are Status.IO and of
    the damaged material (at least one), every other row python-chess's
    value; the first failed row probed alone raised TableFileError naming
    the file."""
    failed = 0
    for board, value, status, want in zip(boards, out["values"], out["status"], expected,
                                          strict=True):
        if status:
            assert status == IO_STATUS and board_key(board) == DAMAGED, (board.fen(), status)
            failed += 1
        else:
            assert value == want, board.fen()
    assert failed, "no row met the damage"
    assert out["error"][:3] == ["error", "TableFileError", str(victim)], out["error"]
