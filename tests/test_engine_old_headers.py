"""Engines that vendored Fathom before 2019 rebuild unchanged.

* Fathom's headers of 2016-2018 (``tests/c/fathom_2016``, reconstructed from
  the published interface) call the exported ``tb_init_impl``,
  ``tb_probe_wdl_impl`` and ``tb_probe_root_impl`` from inline wrappers: a
  program compiled against them links with ``libfathom.a``.
* An engine that swaps in tbprobe.c/tbprobe.h but keeps its own older
  tbconfig.h (no ``TB_VALUE_*``, ``TB_MAX_MATE_PLY``) compiles warning-free.
* Both programs answer as python-chess on 3-4-piece positions.
* ``tb_probe_root_dtz`` answers where a table's DTZ file is missing and
  only its WDL file is there, as Fathom does, and its ranks agree with
  python-chess's full tables.

About 6 s (two C builds of the single file, 400 positions).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import chess
import chess.syzygy
import pytest

from support.c_programs import CDIR, CORE, STRICT, cc, run
from support.positions import ALL_TABLES, bitboards, random_position

OLD = CDIR / "fathom_2016"

pytestmark = [
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make (GNU)"),
    pytest.mark.plain_pass_only("builds and runs its own unsanitized programs"),
]


def _boards(n: int) -> list[chess.Board]:
    rng = random.Random("old-headers")
    return [random_position(rng, rng.choice(ALL_TABLES)) for _ in range(n)]


def _answers(exe: Path, tables: Path, boards: list[chess.Board]) -> list[tuple[int, int]]:
    lines = []
    for b in boards:
        w, bl, k, q, r, bi, kn, p, ep, turn = bitboards(b)
        lines.append(f"{w:x} {bl:x} {k:x} {q:x} {r:x} {bi:x} {kn:x} {p:x} {ep} {turn}")
    out = run([str(exe), str(tables)], input="\n".join(lines) + "\n").stdout.split()
    assert len(out) == 4 * len(boards)
    return [(int(out[i + 1]), int(out[i + 3])) for i in range(0, len(out), 4)]


def _check(boards: list[chess.Board], answers: list[tuple[int, int]],
           oracle: chess.syzygy.Tablebase) -> None:
    bad = []
    for board, (wdl, root) in zip(boards, answers):
        expected = oracle.probe_wdl(board)
        dtz = oracle.probe_dtz(board)
        if wdl != expected + 2:
            bad.append(f"{board.fen()}: tb_probe_wdl {wdl}, python-chess {expected}")
        if not any(board.legal_moves):
            want = 4 if board.is_checkmate() else 2
            if root != want:
                bad.append(f"{board.fen()}: tb_probe_root {root:#x} without a move")
            continue
        move = chess.Move((root >> 10) & 63, (root >> 4) & 63,
                          {0: None, 1: chess.QUEEN, 2: chess.ROOK, 3: chess.BISHOP,
                           4: chess.KNIGHT}[(root >> 16) & 7])
        if (root & 15) != expected + 2 or root >> 20 != abs(dtz) or not board.is_legal(move):
            bad.append(f"{board.fen()}: tb_probe_root {root:#x}, python-chess wdl {expected} "
                       f"dtz {dtz}")
            continue
        child = board.copy(stack=False)
        child.push(move)
        kept = child.is_checkmate() or oracle.probe_wdl(child) == -expected
        if not kept:
            bad.append(f"{board.fen()}: {move} does not keep the value {expected}")
    assert not bad, f"{len(bad)} of {len(boards)}:\n" + "\n".join(bad[:20])


def test_2016_headers_link_against_the_library(tmp_path: Path, syzygy_dir: Path,
                                               oracle: chess.syzygy.Tablebase) -> None:
    lib = tmp_path / "lib"
    run(["make", "-s", "-C", str(CORE), "lib", f"OUT={lib}", f"CC={' '.join(cc())}",
          "CFLAGS=-O2 -Werror"])
    exe = tmp_path / "engine"
    run([*cc(), *STRICT, f"-I{OLD}", str(CDIR / "engine_old_api.c"), str(lib / "libfathom.a"),
          "-pthread", "-o", str(exe)])
    boards = _boards(200)
    _check(boards, _answers(exe, syzygy_dir, boards), oracle)


def test_old_tbconfig_kept_with_the_single_file(tmp_path: Path, syzygy_dir: Path,
                                                oracle: chess.syzygy.Tablebase) -> None:
    engine = tmp_path / "engine"
    subprocess.run(["sh", str(CORE / "amalgamate.sh"), str(engine)], check=True)
    shutil.copy(OLD / "tbconfig.h", engine / "tbconfig.h")  # the engine's own, kept
    exe = tmp_path / "engine_bin"
    run([*cc(), *STRICT, f"-I{engine}", str(CDIR / "engine_old_api.c"),
          str(engine / "tbprobe.c"), "-pthread", "-o", str(exe)])
    boards = _boards(200)
    _check(boards, _answers(exe, syzygy_dir, boards), oracle)


def test_root_dtz_with_only_the_wdl_file(tmp_path: Path, syzygy_dir: Path,
                                         oracle: chess.syzygy.Tablebase) -> None:
    """KQvKR without its DTZ file: the losing side's root moves mostly hang
    the rook or step into mate, which need no DTZ table; where every move
    is answered so, tb_probe_root_dtz must answer, with ranks of the sign
    of python-chess's move values (tb_probe_root, which needs the root's
    own DTZ as Fathom's does, still fails)."""
    from pyfathom import fathom as f

    tables = tmp_path / "tables"
    tables.mkdir()
    for path in syzygy_dir.glob("*.rtb[wz]"):
        if path.name != "KQvKR.rtbz":
            os.symlink(path, tables / path.name)
    rng = random.Random("wdl-only")
    answered = tried = 0
    bad = []
    assert f.tb_init(str(tables))
    try:
        while tried < 300:
            board = random_position(rng, "KQvKR", swap=False, turn=chess.BLACK)
            if oracle.probe_wdl(board) != -2:
                continue
            tried += 1
            ok, moves = f.tb_probe_root_dtz(
                board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.kings,
                board.queens, board.rooks, board.bishops, board.knights, board.pawns, 0, 0,
                0, board.turn, False, True)
            if not ok:
                continue
            answered += 1
            for tb_move, _pv, _score, rank in moves:  # no pawns: no promotion
                move = chess.Move(f.TB_MOVE_FROM(tb_move), f.TB_MOVE_TO(tb_move))
                child = board.copy(stack=False)
                child.push(move)
                value = -oracle.probe_wdl(child)
                if (rank > 0) - (rank < 0) != (value > 0) - (value < 0):
                    bad.append(f"{board.fen()} {move}: rank {rank}, python-chess {value}")
    finally:
        f.tb_free()
    assert answered >= 10, f"answered {answered} of {tried}"
    assert not bad, "\n".join(bad[:20])
