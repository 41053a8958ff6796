"""C test programs (tests/c/) compiled against the core and run.

* movegen: the tests' own move generator (tests/c/tchess.h, independent of
  the core) equals python-chess's legal moves, so the checks below stand on
  tested chess rules;
* selfcheck: every position of the five 3-piece tables and 2,000 random
  positions of each 4-piece table are consistent with their children (WDL
  and DTZ within the rounding the precise flag reports), and with their
  colour-flipped twins;
* threads: two threads on a cold instance equal a serial run, and so do the
  two-thread batch calls;
* facade: code written against Fathom's tbprobe.h compiles and answers as
  the instance API does.

Compiled with ``cc -std=c99 -O2 -Wall -Wextra -Werror -pthread`` ($CC
overrides cc), so a warning in the core fails these tests too.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import chess
import pytest

from support.c_programs import FATHOM_BUILD, core_files
from support.positions import ALL_TABLES, table_sample

pytestmark = pytest.mark.plain_pass_only("C programs of its own, built with the core's sources")

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "fathom"
CDIR = Path(__file__).resolve().parent / "c"
FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"]


def _cc() -> list[str]:
    return shlex.split(os.environ.get("CC", "cc"))


def _check(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


@pytest.fixture(scope="module")
def core_objects(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The core's sources compiled once, with the strict flags."""
    out = tmp_path_factory.mktemp("core-obj")
    objects = []
    for source in core_files(*FATHOM_BUILD):
        obj = out / (source.stem + ".o")
        _check([*_cc(), *FLAGS, f"-I{CORE}", "-c", str(source), "-o", str(obj)])
        objects.append(str(obj))
    return objects


@pytest.fixture(scope="module")
def bindir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cbin")


def compile_program(name: str, out_dir: Path, objects: list[str] | None = None) -> Path:
    exe = out_dir / name
    _check([*_cc(), *FLAGS, f"-I{CORE}", f"-I{CDIR}", str(CDIR / f"{name}.c"),
            *(objects or []), "-o", str(exe), "-lm"])
    return exe


def run(cmd: list[str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def test_movegen_matches_python_chess(bindir: Path) -> None:
    exe = compile_program("movegen", bindir)
    boards = []
    for key in ALL_TABLES + ["KQRvKR", "KRPvKP", "KPPvKP", "KQQvKQ"]:
        boards += table_sample(key, 150, seed=60,
                               ep_share=0.3 if key.count("P") >= 2 else 0.0,
                               push_share=0.2 if "P" in key else 0.0)
    boards += [chess.Board(),
               chess.Board("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w - - 0 1"),
               chess.Board("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")]
    proc = subprocess.run([str(exe)], input="".join(b.fen(en_passant="fen") + "\n" for b in boards),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(boards)
    bad = []
    for board, line in zip(boards, lines):
        fields = line.split()
        got = (sorted(fields[3:]), int(fields[1]), int(fields[2]))
        want = (sorted(m.uci() for m in board.legal_moves), int(board.is_check()),
                len(board.checkers()))
        if got != want:
            bad.append(f"{board.fen()}: tchess {got} python-chess {want}")
    assert not bad, f"{len(bad)} of {len(boards)}:\n" + "\n".join(bad[:20])


def _table_lines(out: str) -> dict[str, dict[str, int]]:
    rows = {}
    for line in out.splitlines():
        m = re.match(r"table (\S+) (.*)", line)
        if m:
            nums = m.group(2).split()
            rows[m.group(1)] = {nums[i]: int(nums[i + 1]) for i in range(0, len(nums), 2)}
    return rows


@pytest.fixture(scope="module")
def selfcheck(bindir: Path, core_objects: list[str], syzygy_dir: Path) -> subprocess.CompletedProcess[str]:
    exe = compile_program("selfcheck", bindir, core_objects)
    return run([str(exe), str(syzygy_dir), "2000"])


def test_self_consistency(selfcheck: subprocess.CompletedProcess[str]) -> None:
    out = selfcheck.stdout + selfcheck.stderr
    rows = _table_lines(selfcheck.stdout)
    assert set(rows) == set(ALL_TABLES), out
    for key in ALL_TABLES[:5]:
        # Every valid position, both sides to move (see the count test).
        assert rows[key]["positions"] > 300_000, rows[key]
        assert rows[key]["skipped"] == 0, rows[key]
    for key in ALL_TABLES[5:]:
        assert rows[key]["positions"] >= 2000, rows[key]
        # Skipped: impossible double checks, DTZ at the 50-move boundary.
        assert rows[key]["skipped"] <= 0.02 * rows[key]["positions"], rows[key]
    assert re.search(r"\((\d+) positions with an en-passant capture\)", out)
    # Every probe above was repeated through the lean forms.
    assert "lean probes: 0 mismatches" in selfcheck.stdout, out
    assert "TOTAL failures 0" in selfcheck.stdout, out
    assert selfcheck.returncode == 0, out


def test_three_piece_enumeration_matches_python_chess(
        selfcheck: subprocess.CompletedProcess[str]) -> None:
    """The C enumeration of KPvK covers exactly python-chess's valid positions
    (white pawn, both sides to move)."""
    from support.positions import enumerate_positions

    rows = _table_lines(selfcheck.stdout)
    assert rows["KPvK"]["positions"] == sum(1 for _ in enumerate_positions("KPvK"))


def test_two_threads_on_a_cold_instance(bindir: Path, core_objects: list[str],
                                       syzygy_dir: Path) -> None:
    exe = compile_program("threads", bindir, core_objects)
    proc = run([str(exe), str(syzygy_dir), "400", "10"])
    assert "TOTAL mismatches 0" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 0
    assert re.search(r"positions (\d+)", proc.stdout)
    assert int(re.search(r"positions (\d+)", proc.stdout).group(1)) > 13_000  # type: ignore[union-attr]


def test_fathom_facade(bindir: Path, core_objects: list[str], syzygy_dir: Path) -> None:
    exe = compile_program("facade", bindir, core_objects)
    proc = run([str(exe), str(syzygy_dir), "100"])
    assert "TOTAL mismatches 0" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
