"""Engines that vendor Pyrrhic swap in the single file and rebuild unchanged.

``make -C src/fathom pyrrhic`` writes tbprobe.c and a tbprobe.h with
Pyrrhic's API.  ``tests/c/pyrrhic_engine/engine.c``, an engine-like program
written from Pyrrhic's documented interface, includes ``pyrrhic/tbprobe.h``
with the engine's own ``pyrrhic/tbconfig.h`` beside it (the hooks over the
engine's ``bitboards.h``), in both generations of Pyrrhic's configuration
(the July 2024 one and the older one with ``PYRRHIC_VALUE_*``).  It builds
with ``-Wall -Wextra -Wshadow -Wmissing-declarations -Werror`` (Weiss's
flags), and its answers (tb_probe_wdl, tb_probe_root and its results array,
tb_probe_root_dtz, tb_probe_root_wdl, the globals tb_init sets) agree with
python-chess on 3-4-piece positions with clocks 0..99 and en-passant squares;
the arrays come in Pyrrhic's move-generator order and tb_probe_root plays
the move Pyrrhic's rule picks (tests/generator_order.py describes both).

About 8 s (one C build of the single file, two of the program, 200 positions).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Iterator

import chess
import chess.syzygy
import pytest

from support.generator_order import expected_choice, move_dtz, near_edge, pyrrhic_key
from support.c_programs import CORE, cc, run
from support.positions import ALL_TABLES, bitboards, table_sample

ENGINE = Path(__file__).resolve().parent / "c" / "pyrrhic_engine"
FLAGS = ["-std=c99", "-O1", "-Wall", "-Wextra", "-Wshadow", "-Wmissing-declarations",
         "-Werror"]
FAILED = 0xFFFFFFFF
# Pyrrhic's promotion flags of a PyrrhicMove / a packed result.
PROMOTION = {0: None, 1: chess.QUEEN, 2: chess.ROOK, 3: chess.BISHOP, 4: chess.KNIGHT}
EN_PASSANT_FLAG = 8
# The two generations: tbconfig file, rank of a certain win, scores given.
LAYOUTS = {"2024": ("tbconfig_2024.h", 0x40000, False),
           "2020": ("tbconfig_2020.h", 1000, True)}
PAWN, MATE, DRAW, MAX_MATE_PLY = 100, 32000, 0, 255  # tbconfig_2020.h
WIN_SCORE = MATE - MAX_MATE_PLY - 1

pytestmark = [
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make (GNU)"),
    pytest.mark.plain_pass_only("builds its own unsanitized programs"),
]


@pytest.fixture(scope="module")
def single_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pyrrhic-single")
    run(["make", "-s", "-C", str(CORE), "pyrrhic", f"PYRRHIC_OUT={out}"])
    assert sorted(p.name for p in out.iterdir()) == ["tbprobe.c", "tbprobe.h"], \
        "the Pyrrhic build writes exactly the two files an engine swaps"
    # The single file reads no tbconfig.h, so one object serves both
    # generations of the engine (compiled as the engine compiles its files).
    run([*cc(), *FLAGS, f"-I{out}", "-c", str(out / "tbprobe.c"), "-o",
          str(out / "tbprobe.o")])
    return out


def _build(single: Path, tmp_path: Path, tbconfig: str) -> Path:
    """The engine's tree: its sources, and pyrrhic/ with the drop-in files
    next to its own tbconfig.h."""
    tree = tmp_path / "engine"
    (tree / "pyrrhic").mkdir(parents=True)
    for name in ("engine.c", "bitboards.h"):
        shutil.copy(ENGINE / name, tree / name)
    for name in ("tbprobe.c", "tbprobe.h", "tbprobe.o"):
        shutil.copy(single / name, tree / "pyrrhic" / name)
    shutil.copy(ENGINE / tbconfig, tree / "pyrrhic" / "tbconfig.h")
    exe = tree / "engine_bin"
    run([*cc(), *FLAGS, f"-I{tree}", str(tree / "engine.c"),
          str(tree / "pyrrhic" / "tbprobe.o"), "-pthread", "-o", str(exe)])
    return exe


def _boards(n: int) -> list[tuple[chess.Board, int]]:
    rng = random.Random("pyrrhic")
    keys = [k for k in ALL_TABLES for _ in range(2)]
    boards = [b for key in keys
              for b in table_sample(key, max(1, n // len(keys)), seed=rng.randrange(1 << 30),
                                    ep_share=0.3, push_share=0.2)]
    return [(b, rng.choice([0, 0, rng.randrange(100)])) for b in boards[:n]]


def _move(board: chess.Board, to: int, frm: int, flag: int) -> chess.Move:
    move = chess.Move(frm, to, PROMOTION.get(flag & 7) if flag != EN_PASSANT_FLAG else None)
    assert board.is_legal(move), f"{board.fen()}: {move} not legal"
    if flag == EN_PASSANT_FLAG:
        assert board.is_en_passant(move), f"{board.fen()}: {move} flagged en passant"
    return move


def _packed_move(board: chess.Board, res: int) -> chess.Move:
    move = _move(board, (res >> 4) & 63, (res >> 10) & 63, (res >> 16) & 7)
    assert bool(res >> 19 & 1) == board.is_en_passant(move), f"{board.fen()}: ep bit of {move}"
    return move


class Oracle:
    """python-chess's answers, each asked once (the checks below ask again
    for the same children, and both layouts see the same positions)."""

    def __init__(self, tablebase: chess.syzygy.Tablebase) -> None:
        self._tb = tablebase
        self._wdl: dict[str, int] = {}
        self._dtz: dict[str, int] = {}

    def probe_wdl(self, board: chess.Board) -> int:
        key = board.epd()
        if key not in self._wdl:
            self._wdl[key] = self._tb.probe_wdl(board)
        return self._wdl[key]

    def probe_dtz(self, board: chess.Board) -> int:
        key = board.epd()
        if key not in self._dtz:
            self._dtz[key] = self._tb.probe_dtz(board)
        return self._dtz[key]


@pytest.fixture(scope="module")
def answers(syzygy_dir: Path) -> Iterator[Oracle]:
    with chess.syzygy.open_tablebase(str(syzygy_dir)) as tablebase:
        yield Oracle(tablebase)


def _wdl_under_clock(dtz: int, clock: int) -> int:
    if dtz == 0:
        return 2
    return (4 if abs(dtz) + clock <= 100 else 3) if dtz > 0 else \
        (0 if abs(dtz) + clock <= 100 else 1)


def _rank(v: int, clock: int, win: int) -> int:
    """Pyrrhic's (and Stockfish's) documented rank of a move of DTZ v."""
    if v > 0:
        return win if v + clock <= 99 else max(1, win - (v + clock))
    if v < 0:
        return -win if -v * 2 + clock < 100 else min(-1, -win + (-v + clock))
    return 0


def _score(rank: int) -> int:
    if rank >= 900:
        return WIN_SCORE
    if rank > 0:
        return max(3, rank - 800) * PAWN // 200
    if rank == 0:
        return DRAW
    if rank > -900:
        return -(max(3, -rank - 800) * PAWN // 200)
    return -WIN_SCORE


def _check_root_moves(board: chess.Board, clock: int, fields: list[str], win: int,
                      scored: bool, oracle: Oracle, by_wdl: bool) -> list[str]:
    ok, n = int(fields[0]), int(fields[1])
    if not ok:
        return [f"{board.fen()}: tb_probe_root_{'wdl' if by_wdl else 'dtz'} failed"]
    bad, ranks, seen = [], [], []
    wdl_ranks = {-2: -win, -1: -win + 101, 0: 0, 1: win - 101, 2: win}
    wdl_scores = {-2: -WIN_SCORE, -1: DRAW - 2, 0: DRAW, 1: DRAW + 2, 2: WIN_SCORE}
    for i in range(n):
        raw, rank, score = (int(x) for x in fields[2 + 3 * i: 5 + 3 * i])
        move = _move(board, raw & 63, (raw >> 6) & 63, raw >> 12)
        seen.append(move)
        ranks.append(rank)
        child = board.copy(stack=False)
        child.push(move)
        if by_wdl:
            value = 2 if child.is_checkmate() else -oracle.probe_wdl(child)
            want_rank, want_score = wdl_ranks[value], wdl_scores[value]
        else:
            v = move_dtz(board, move, oracle)
            if near_edge(v, clock):
                continue
            want_rank = _rank(v, clock, win)
            want_score = _score(want_rank)
        if rank != want_rank or (scored and score != want_score) or (not scored and score):
            bad.append(f"{board.fen()} clock {clock} {move}: rank {rank} score {score}, "
                       f"expected {want_rank} {want_score if scored else 0}")
    if seen != sorted(board.legal_moves, key=lambda m: pyrrhic_key(board, m)):
        bad.append(f"{board.fen()}: root moves not Pyrrhic's legal moves in its order: "
                   f"{' '.join(map(str, seen))}")
    return bad


def _check_line(board: chess.Board, clock: int, line: str, win: int, scored: bool,
                oracle: Oracle) -> list[str]:
    fields = line.split()
    assert fields[0] == "wdl" and fields[2] == "root" and fields[4] == "results", line
    wdl, root, n = int(fields[1]), int(fields[3]), int(fields[5])
    results = [int(x) for x in fields[6:6 + n]]
    dtz_at = fields.index("dtz")
    wdl_at = fields.index("wdlroot")
    expected = oracle.probe_wdl(board)
    dtz = oracle.probe_dtz(board)
    bad = []
    if wdl != expected + 2:
        bad.append(f"{board.fen()}: tb_probe_wdl {wdl}, python-chess {expected}")
    if not any(board.legal_moves):
        if root != (4 if board.is_checkmate() else 2):
            bad.append(f"{board.fen()}: tb_probe_root {root:#x} without a move")
        return bad
    move = _packed_move(board, root)
    if not near_edge(dtz, clock) and (root & 15 != _wdl_under_clock(dtz, clock)
                                       or root >> 20 != abs(dtz)):
        bad.append(f"{board.fen()} clock {clock}: tb_probe_root {root:#x}, dtz {dtz}")
    child = board.copy(stack=False)
    child.push(move)
    if not child.is_checkmate() and oracle.probe_wdl(child) != -expected:
        bad.append(f"{board.fen()}: {move} does not keep the value {expected}")
    ordered = sorted(board.legal_moves, key=lambda m: pyrrhic_key(board, m))
    if [_packed_move(board, r) for r in results] != ordered:
        bad.append(f"{board.fen()}: results array not in Pyrrhic's order: {results}")
    values = {}
    for r in results:
        v = values[_packed_move(board, r)] = move_dtz(board, _packed_move(board, r), oracle)
        if not near_edge(v, clock) and (r & 15 != _wdl_under_clock(v, clock) or r >> 20 != abs(v)):
            bad.append(f"{board.fen()} clock {clock}: result {r:#x}, move dtz {v}")
    if len(values) == len(ordered) and not near_edge(dtz, clock) and \
            not any(near_edge(v, clock) for v in values.values()):
        want = expected_choice(ordered, values, dtz, board)
        if move != want:
            bad.append(f"{board.fen()}: tb_probe_root plays {move}, Pyrrhic's rule {want}")
    bad += _check_root_moves(board, clock, fields[dtz_at + 1:wdl_at], win, scored, oracle, False)
    bad += _check_root_moves(board, clock, fields[wdl_at + 1:], win, scored, oracle, True)
    return bad


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_pyrrhic_engine_answers_as_python_chess(layout: str, single_file: Path, tmp_path: Path,
                                                syzygy_dir: Path, answers: Oracle) -> None:
    tbconfig, win, scored = LAYOUTS[layout]
    exe = _build(single_file, tmp_path, tbconfig)
    boards = _boards(200)
    lines = []
    for board, clock in boards:
        w, bl, k, q, r, bi, kn, p, ep, turn = bitboards(board)
        lines.append(f"{w:x} {bl:x} {k:x} {q:x} {r:x} {bi:x} {kn:x} {p:x} {ep} {turn} {clock}")
    out = run([str(exe), str(syzygy_dir)], input="\n".join(lines) + "\n").stdout.splitlines()
    files = list(syzygy_dir.glob("*.rtbw")), list(syzygy_dir.glob("*.rtbz"))
    largest = max(len(p.stem.replace("v", "")) for p in files[0])
    assert out[0].split() == ["tables", str(largest), str(len(files[0])), str(len(files[1])),
                              "0"]
    assert len(out) == 1 + len(boards)
    bad = []
    for (board, clock), line in zip(boards, out[1:]):
        bad += _check_line(board, clock, line, win, scored, answers)
    assert not bad, f"{len(bad)} problems:\n" + "\n".join(bad[:20])
