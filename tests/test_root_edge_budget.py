"""The root probe's 50-move-edge search keeps to its budget of work.

``tests/c/root_edge_work.c`` is built against the core compiled with
``-DEDGE_WORK_REPORT=edge_work_report``, a hook through which the core
reports the work (table reads + nodes searched) each settling search took
and its budget (EDGE_WORK_BUDGET, tb_probe.c).  Over the issue's two
stalling roots (they need some 10,000 and 175,000 units unbounded), the
KBBBvK edge starts of the 5-piece set and random 3-4-piece roots with the
clock at their edge:

* no search passes its budget by more than one probe's reads (the budget
  is checked before every probe; the most bench_root.py's 20,000 positions
  show is 57 units);
* a search that stopped under its budget left no move open;
* some search does hit the budget and says so (a move marked open).

About 5 s of CPU (the build is most of it; the plain pass only).
"""

from __future__ import annotations

import os
import random
import shlex
import subprocess
from pathlib import Path

import chess
import pytest

from support.c_programs import FATHOM_BUILD, core_files
from support.positions import bitboards, random_position
from support.table_cache import SYZYGY5

pytestmark = pytest.mark.plain_pass_only("a C program of its own, built with the core's sources")

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "fathom"
PROGRAM = Path(__file__).resolve().parent / "c" / "root_edge_work.c"
# One DTZ probe's reads at most past the budget; 57 is the most measured.
OVERSHOOT = 256
STALLS = ["8/8/8/2Q5/4K3/8/1r1k4/8 w - - 61 1", "8/K7/6b1/8/6kq/8/8/8 w - - 90 1",
          "3b4/8/6k1/8/1K6/8/2b5/8 b - - 70 900"]
TABLES_34 = ["KQvKR", "KRvKB", "KBNvK", "KQvKB", "KRvKN", "KBBvK"]


def edge_roots(tb, keys: list[str], per_table: int, seed: str) -> list[chess.Board]:
    """Random roots of *keys* with the clock leaving exactly their DTZ."""
    rng = random.Random(seed)
    boards = []
    for key in keys:
        found = 0
        for _ in range(50 * per_table):
            board = random_position(rng, key)
            dtz = abs(tb.probe_dtz(board))
            if 2 <= dtz <= 40:
                board.halfmove_clock = 100 - dtz
                boards.append(board)
                found += 1
                if found == per_table:
                    break
    return boards


def test_search_keeps_to_its_budget(syzygy_dir: Path, tmp_path: Path) -> None:
    import pyfathom

    dirs = [syzygy_dir]
    five = SYZYGY5
    if (five / "KBBBvK.rtbz").exists() and (five / "KBBBvK.rtbw").exists():
        dirs.append(five)
    exe = tmp_path / "root_edge_work"
    cc = shlex.split(os.environ.get("CC", "cc"))
    build = subprocess.run([*cc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread",
                            "-DEDGE_WORK_REPORT=edge_work_report", f"-I{CORE}", str(PROGRAM),
                            *map(str, core_files(*FATHOM_BUILD)), "-o", str(exe), "-lm"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    with pyfathom.open_tablebase([str(d) for d in dirs]) as tb:
        boards = [chess.Board(fen) for fen in STALLS]
        boards += edge_roots(tb, TABLES_34, 25, "edge-budget")
        if len(dirs) > 1:
            boards += edge_roots(tb, ["KBBBvK"], 25, "edge-budget-5")
    positions = tmp_path / "positions.txt"
    with positions.open("w") as f:
        for b in boards:
            w, bl, k, q, r, bi, kn, p, ep, turn = bitboards(b)
            f.write(f"{w:x} {bl:x} {k:x} {q:x} {r:x} {bi:x} {kn:x} {p:x} "
                    f"{b.halfmove_clock} {ep} {turn} ; {b.fen()}\n")
    out = subprocess.run([str(exe), os.pathsep.join(map(str, dirs)), str(positions)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert f"calls {len(boards)}" in lines and "failed" not in lines
    searches = [tuple(map(int, line.split()[1:])) for line in lines if line.startswith("work ")]
    assert len(searches) >= len(boards) // 2
    hit = left_open = 0
    for budget, work, open_moves in searches:
        assert work <= budget + OVERSHOOT, (budget, work)
        if work < budget:
            assert open_moves == 0, (budget, work, open_moves)
        else:
            hit += 1
            left_open += open_moves > 0
    # The KQvKR root needs some 175,000 units: past any budget that
    # keeps a call under 5 ms.
    assert left_open >= 1
    print(f"{len(searches)} searches, {hit} at the budget "
          f"({searches[0][0]}), most work {max(w for _, w, _ in searches)}")
