"""The engine's view: src/fathom/ replaces Fathom in a C engine.

* ``make -C src/fathom lib`` (amalgamate.sh, no Python) builds one static
  library whose exported symbols are exactly the public API of the headers;
  an engine that defines its own ``tb_gen_legal``, ``tb_map_file`` ... links
  against it without a clash; the tbconfig.h switches build.
* ``tests/c/engine_dropin.c`` uses every function, macro and constant of
  Fathom's tbprobe.h as an engine does, compiled with
  ``-std=c99 -Wall -Wextra -Werror`` against the vendored files and linked
  with the library; its answers on 5,000+ positions (clocks 0..99, en-passant
  squares set after every double push) are checked against python-chess;
  the same program and the single file compiled as C++17 answer the same.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import chess
import pytest

from support.c_programs import CDIR, CORE, STRICT, cc, engine_positions, run
from support.expected import clockless_fen, expected_answers

PUBLIC_HEADERS = ["tbprobe.h", "fathom.h", "fen.h", "fathom_helpers.h"]

# Fathom's published values for the names of its tbprobe.h / tbconfig.h.
FATHOM_CONSTANTS = {
    "TB_MAX_MOVES": 193, "TB_MAX_CAPTURES": 64, "TB_MAX_PLY": 256,
    "TB_CASTLING_K": 1, "TB_CASTLING_Q": 2, "TB_CASTLING_k": 4, "TB_CASTLING_q": 8,
    "TB_LOSS": 0, "TB_BLESSED_LOSS": 1, "TB_DRAW": 2, "TB_CURSED_WIN": 3, "TB_WIN": 4,
    "TB_PROMOTES_NONE": 0, "TB_PROMOTES_QUEEN": 1, "TB_PROMOTES_ROOK": 2,
    "TB_PROMOTES_BISHOP": 3, "TB_PROMOTES_KNIGHT": 4,
    "TB_RESULT_WDL_MASK": 0xF, "TB_RESULT_TO_MASK": 0x3F0, "TB_RESULT_FROM_MASK": 0xFC00,
    "TB_RESULT_PROMOTES_MASK": 0x70000, "TB_RESULT_EP_MASK": 0x80000,
    "TB_RESULT_DTZ_MASK": 0xFFF00000, "TB_RESULT_WDL_SHIFT": 0, "TB_RESULT_TO_SHIFT": 4,
    "TB_RESULT_FROM_SHIFT": 10, "TB_RESULT_PROMOTES_SHIFT": 16, "TB_RESULT_EP_SHIFT": 19,
    "TB_RESULT_DTZ_SHIFT": 20, "TB_RESULT_CHECKMATE": 4, "TB_RESULT_STALEMATE": 2,
    "TB_RESULT_FAILED": 0xFFFFFFFF, "TB_VALUE_PAWN": 100, "TB_VALUE_MATE": 32000,
    "TB_VALUE_INFINITE": 32767, "TB_VALUE_DRAW": 0, "TB_MAX_MATE_PLY": 255,
}
FAILED = 0xFFFFFFFF
TB_WIN_SCORE = 32000 - 255 - 1
PROMOTION = {0: None, 1: chess.QUEEN, 2: chess.ROOK, 3: chess.BISHOP, 4: chess.KNIGHT}

pytestmark = [
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make (GNU)"),
    # Everything here is a native program built by the test itself, without
    # sanitizers: the ASan+UBSan rerun of the suite would only repeat it.
    pytest.mark.plain_pass_only("builds and runs its own unsanitized programs"),
]


def public_api() -> set[str]:
    """Functions and variables the public headers declare with external
    linkage (static inline wrappers excluded)."""
    names: set[str] = set()
    for header in PUBLIC_HEADERS:
        text = (CORE / header).read_text()
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for m in re.finditer(r"^(?!static|typedef|#|\s)[A-Za-z_][\w \*]*?\b(\w+)\s*\(", text, re.M):
            names.add(m.group(1))
        names.update(re.findall(r"^extern\s+[\w ]+?\b(\w+)\s*;", text, re.M))
    return names


@pytest.fixture(scope="module")
def engine_lib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make -C src/fathom lib OUT=...`: the vendored files and libfathom.a."""
    out = tmp_path_factory.mktemp("engine")
    run(["make", "-s", "-C", str(CORE), "lib", f"OUT={out}",
          f"CC={' '.join(cc())}", "CFLAGS=-O2 -Werror"])
    return out


def test_library_exports_only_the_public_api(engine_lib: Path) -> None:
    api = public_api()
    assert {"tb_init", "tb_probe_root_dtz", "tb_lsb", "fathom_probe_wdl", "TB_LARGEST",
            "fathom_parse_fen"} <= api
    nm = run(["nm", "-g", "--defined-only", str(engine_lib / "libfathom.a")]).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if len(line.split()) == 3}
    assert exported == api, (f"exported but not public: {sorted(exported - api)}; "
                             f"public but missing: {sorted(api - exported)}")


def test_engine_symbols_do_not_clash(engine_lib: Path, tmp_path: Path) -> None:
    """An engine with functions named like the core's internal ones links."""
    src = tmp_path / "engine.c"
    src.write_text(
        '#include "tbprobe.h"\n'
        "int tb_gen_legal(void) { return 1; }\n"
        "int tb_map_file(void) { return 2; }\n"
        "int tb_attackers(void) { return 3; }\n"
        "int tb_table_wdl(void) { return 4; }\n"
        "int main(void) {\n"
        "    tb_init(\"\");\n"
        "    return tb_gen_legal() + tb_map_file() + tb_attackers() + tb_table_wdl() == 10\n"
        "        && TB_LARGEST == 0 && tb_pop_count(7) == 3 ? 0 : 1;\n"
        "}\n")
    exe = tmp_path / "engine"
    run([*cc(), *STRICT, f"-I{engine_lib}", str(src), str(engine_lib / "libfathom.a"),
          "-pthread", "-o", str(exe)])
    run([str(exe)])


@pytest.mark.parametrize("defines", [
    ["-DTB_NO_HELPER_API"],
    ["-DTB_CUSTOM_POP_COUNT(x)=__builtin_popcountll(x)", "-DTB_CUSTOM_LSB(x)=__builtin_ctzll(x)"],
    ["-DTB_NO_HW_POP_COUNT", "-DTB_VALUE_MATE=30000", "-DTB_MAX_MATE_PLY=500"],
])
def test_tbconfig_switches_build(engine_lib: Path, tmp_path: Path, defines: list[str]) -> None:
    obj = tmp_path / "tbprobe.o"
    # -O0: this checks that each configuration compiles warning-free and
    # what it exports; the library build above compiles with -O2.
    run([*cc(), *STRICT, "-O0", "-pthread", *defines, f"-I{engine_lib}", "-c",
          str(engine_lib / "tbprobe.c"), "-o", str(obj)])
    nm = run(["nm", "-g", "--defined-only", str(obj)]).stdout
    assert ("tb_king_attacks" in nm) == ("-DTB_NO_HELPER_API" not in defines)


def test_engine_without_stdint_or_stdbool(engine_lib: Path, tmp_path: Path) -> None:
    """TB_NO_STDINT / TB_NO_STDBOOL: an engine file that includes tbprobe.h
    alone gets the types from it."""
    src = tmp_path / "e.c"
    src.write_text('#define TB_NO_STDINT\n#define TB_NO_STDBOOL\n#include "tbprobe.h"\n'
                   "int probe(uint64_t w, uint64_t b, bool turn) {\n"
                   "    return (int)tb_probe_wdl(w, b, 0, 0, 0, 0, 0, 0, 0, 0, 0, turn);\n}\n")
    run([*cc(), *STRICT, f"-I{engine_lib}", "-c", str(src), "-o", str(tmp_path / "e.o")])


def test_rank_scale_past_1000_and_scores(engine_lib: Path, tmp_path: Path) -> None:
    """Fathom's 1000 - (dtz + clock) turns a long 7-piece win into a negative
    rank (a "loss"); here it stays at 1 (and a loss at -1).  No 3-5-piece DTZ
    is that long, so the facade's rank and score functions are called
    directly, from a file that includes the amalgamated tbprobe.c."""
    src = tmp_path / "ranks.c"
    src.write_text(
        '#include "tbprobe.c"\n'
        "#include <stdio.h>\n"
        "static int32_t facade_rank(int dtz, int precise, unsigned clock) {\n"
        "    fathom_root_move m;\n"
        "    memset(&m, 0, sizeof m);\n"
        "    m.dtz = dtz;\n"
        "    m.dtz_precise = (int8_t)precise;\n"
        "    return tb_facade_rank(&m, clock, false, 1000);\n"
        "}\n"
        "int main(void) {\n"
        "    static const int cases[][3] = {{5, 1, 0}, {40, 1, 60}, {40, 0, 60}, {39, 0, 60},\n"
        "        {150, 1, 0}, {950, 1, 90}, {1100, 0, 0}, {-20, 1, 0}, {-60, 1, 10},\n"
        "        {-950, 1, 90}, {0, 1, 50}};\n"
        "    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {\n"
        "        int32_t r = facade_rank(cases[i][0], cases[i][1], (unsigned)cases[i][2]);\n"
        '        printf("%d %d\\n", (int)r, (int)tb_facade_score(r, true, &fathom_scale));\n'
        "    }\n"
        "    return 0;\n"
        "}\n")
    exe = tmp_path / "ranks"
    run([*cc(), *STRICT, "-Wno-unused-function", f"-I{engine_lib}", str(src), "-pthread",
          "-o", str(exe)])
    got = [tuple(map(int, line.split())) for line in run([str(exe)]).stdout.splitlines()]
    # (dtz, precise, clock) -> Fathom's rank, clamped; scores from the
    # documented formula with the default pawn of 100.
    assert got == [
        (1000, TB_WIN_SCORE),   # 5 + 0: certain
        (1000, TB_WIN_SCORE),   # 40 + 60 exact: fits exactly
        (900, TB_WIN_SCORE),    # 40 + 60 rounded: may be 101 plies, rank 900
        (1000, TB_WIN_SCORE),   # 39 + 60 rounded: fits either way
        (850, 25),              # cursed: (850 - 800) * 100 / 200
        (1, 1),                 # 950 + 90 > 1000: Fathom's rank would be -40
        (1, 1),                 # 1100 + 0
        (-1000, -TB_WIN_SCORE),
        (-930, -TB_WIN_SCORE),  # -60: 120 + 10 >= 100, rank -1000 + 70
        (-1, -1),               # -950 + 90: Fathom's rank would be +40
        (0, 0),
    ], got


# --------------------------------------------------------------------------
# The engine program against python-chess.

def _probe_key(board: chess.Board) -> str:
    return clockless_fen(board)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _wdl_with_clock(v: int, clock: int) -> int:
    if v == 0:
        return 0
    return _sign(v) * (2 if abs(v) + clock <= 100 else 1)


def _fathom_rank(v: int, clock: int) -> set[int]:
    """Fathom's tbRank of a move with DTZ v from the root; both values where
    the rounding python-chess does not report decides (v + clock == 100)."""
    if v > 0:
        if v + clock <= 99:
            return {1000}
        if v + clock == 100:
            return {1000, 900}
        return {max(1, 1000 - (v + clock))}
    if v < 0:
        if -v * 2 + clock < 100:
            return {-1000}
        return {min(-1, -1000 + (-v + clock))}
    return {0}


def _settled(board: chess.Board, move: chess.Move, v: int, clock: int) -> set[int]:
    """The DTZ values the core may give a move with python-chess DTZ v: v,
    and where v is on the 50-move edge (|v| + clock == 100, a DTZ a table
    may store rounded) also the one a ply longer that the core's search
    finds when the win does not fit (tests/test_rule50_edge.py checks which
    one against a search over python-chess)."""
    child = _after(board, move)
    if v == 0 or board.is_zeroing(move) or child.is_checkmate() or abs(v) + clock != 100:
        return {v}
    return {v, v + _sign(v)}


def _fathom_score(rank: int) -> int:
    """tbScore as Fathom documents it (useRule50: bound 900)."""
    if rank >= 900:
        return TB_WIN_SCORE
    if rank > 0:
        return max(3, rank - 800) * 100 // 200
    if rank == 0:
        return 0
    if rank > -900:
        return -(max(3, -rank - 800) * 100 // 200)
    return -TB_WIN_SCORE


def _class_of_rank(rank: int) -> str:
    return ("win" if rank >= 900 else "cursed" if rank > 0 else "draw" if rank == 0
            else "blessed" if rank > -900 else "loss")


def _move_values(board: chess.Board, answers: dict[str, Any]) -> dict[chess.Move, int]:
    """DTZ from the root of every legal move, from python-chess's answers."""
    out = {}
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        c_wdl, c_dtz = answers[_probe_key(child)]
        if child.is_checkmate():
            out[move] = 1
        elif board.is_zeroing(move):
            out[move] = [-1, -101, 0, 101, 1][-c_wdl + 2]
        else:
            out[move] = -c_dtz + _sign(-c_dtz)
    return out


def _cxx() -> list[str] | None:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")
    return shlex.split(cxx) if cxx else None


@pytest.mark.parametrize("language", ["c", "c++"])
def test_engine_program_matches_python_chess(engine_lib: Path, tmp_path: Path,
                                             syzygy_dir: Path, language: str) -> None:
    """In C against libfathom.a; in C++ as C++ engines vendor Fathom: the
    program and the single-file tbprobe.c both compiled as C++17."""
    exe = tmp_path / "engine_dropin"
    if language == "c":
        run([*cc(), *STRICT, f"-I{engine_lib}", str(CDIR / "engine_dropin.c"),
              str(engine_lib / "libfathom.a"), "-pthread", "-o", str(exe)])
    else:
        cxx = _cxx()
        if cxx is None:
            pytest.skip("needs a C++ compiler (g++ or clang++, or $CXX)")
        run([*cxx, "-x", "c++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror",
              f"-I{engine_lib}", str(CDIR / "engine_dropin.c"), str(engine_lib / "tbprobe.c"),
              "-pthread", "-o", str(exe)])

    positions = engine_positions()
    assert len(positions) >= 5000
    clocks = {clock for _, clock, _ in positions}
    assert clocks == set(range(100))
    after_push = sum(1 for b, _, ep in positions if ep and ep == b.ep_square
                     and not b.has_legal_en_passant())
    stale = sum(1 for b, _, ep in positions if ep and b.ep_square is None)
    assert after_push >= 300 and stale >= 300, (after_push, stale)

    fens = {_probe_key(b) for b, _, _ in positions}
    for board, _, _ in positions:
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            fens.add(_probe_key(child))
    ordered = sorted(fens)
    answers = dict(zip(ordered, expected_answers(ordered)))  # python-chess 1.11.2's, committed

    lines = []
    for board, clock, ep in positions:
        bb = [board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.kings,
              board.queens, board.rooks, board.bishops, board.knights, board.pawns]
        lines.append(" ".join(f"{x:x}" for x in bb)
                     + f" {clock} {ep} {int(board.turn)}")
    proc = subprocess.run([str(exe), str(syzygy_dir)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr

    constants: dict[str, int] = {}
    out: dict[str, dict[int, list[list[str]]]] = defaultdict(lambda: defaultdict(list))
    for line in proc.stdout.splitlines():
        tag, *rest = line.split()
        if tag == "K":
            constants[rest[0]] = int(rest[1])
        elif tag == "S":
            assert rest == ["mismatches", "0"], line
        else:
            out[tag][int(rest[0])].append(rest[1:])
    assert constants == FATHOM_CONSTANTS

    bad: list[str] = []
    checked_moves = 0
    for i, (board, clock, _) in enumerate(positions):
        fen = board.fen()
        p_wdl, p_dtz = answers[_probe_key(board)]
        problems = []
        (w,), = out["W"][i]
        if int(w) != p_wdl + 2:
            problems.append(f"tb_probe_wdl {w} != {p_wdl + 2}")
        (x,), = out["X"][i]
        if int(x) != (p_wdl + 2 if clock == 0 else FAILED):
            problems.append(f"tb_probe_wdl with clock {clock}: {x}")
        (y,), = out["Y"][i]
        if int(y) != FAILED:
            problems.append("tb_probe_root with castling rights answered")

        values = _move_values(board, answers)
        root = out["R"][i][0]
        if not values:
            expect = "mate" if board.is_checkmate() else "stalemate"
            if root[0] != expect:
                problems.append(f"tb_probe_root {root} for a {expect}")
        else:
            kind, r_wdl, r_from, r_to, r_prom, r_ep, r_dtz = root[0], *map(int, root[1:])
            move = chess.Move(r_from, r_to, PROMOTION[r_prom])
            if kind != "move" or move not in values:
                problems.append(f"tb_probe_root {root}: not a legal move")
            else:
                v = values[move]
                best = (min(x for x in values.values() if x > 0) if p_dtz > 0 else
                        0 if p_dtz == 0 else min(values.values()))
                # On the edge the root's outcome is its best move's, settled.
                root_wdls = {_wdl_with_clock(p_dtz, clock)}
                if abs(p_dtz) + clock == 100:
                    root_wdls.add(_sign(p_dtz))
                if r_wdl - 2 not in root_wdls or r_dtz != abs(p_dtz):
                    problems.append(f"root wdl/dtz {r_wdl - 2}/{r_dtz}, python-chess dtz "
                                    f"{p_dtz} clock {clock}")
                if v != best or r_ep != board.is_en_passant(move):
                    problems.append(f"root move {move} (dtz {v}, ep {r_ep}), best dtz {best}")

        listed = {}
        for f, t, prom, ep, wdl, dtz in (map(int, e) for e in out["M"][i]):
            listed[chess.Move(f, t, PROMOTION[prom])] = (ep, wdl, dtz)
        if set(listed) != set(values):
            problems.append(f"results array moves {sorted(map(str, listed))}")
        for move, (ep, wdl, dtz) in listed.items():
            v = values.get(move)
            if v is None:
                continue
            checked_moves += 1
            if (ep, wdl, dtz) not in {(board.is_en_passant(move), _wdl_with_clock(d, clock) + 2, abs(d))
                                      for d in _settled(board, move, v, clock)}:
                problems.append(f"results {move}: ep {ep} wdl {wdl} dtz {dtz}, python-chess "
                                f"dtz {v} clock {clock}")

        for tag in "DL":
            seen = set()
            for f, t, prom, rank, score, cls in out[tag][i]:
                move = chess.Move(int(f), int(t), PROMOTION[int(prom)])
                seen.add(move)
                v = values.get(move)
                if v is None:
                    continue
                if tag == "D":
                    ranks = set().union(*(_fathom_rank(d, clock)
                                          for d in _settled(board, move, v, clock)))
                else:
                    c_wdl = answers[_probe_key(_after(board, move))][0]
                    ranks = {[-1000, -899, 0, 899, 1000][-c_wdl + 2]}
                rank_i, score_i = int(rank), int(score)
                want_score = (_fathom_score(rank_i) if tag == "D" else
                              [-TB_WIN_SCORE, -2, 0, 2, TB_WIN_SCORE][[-1000, -899, 0, 899, 1000].index(rank_i)]
                              if rank_i in (-1000, -899, 0, 899, 1000) else None)
                if rank_i not in ranks or score_i != want_score or cls != _class_of_rank(rank_i):
                    problems.append(f"{tag} {move}: rank {rank} score {score} {cls}; "
                                    f"expected rank {sorted(ranks)} (dtz {v}, clock {clock})")
            if seen != set(values):
                problems.append(f"{tag}: moves {sorted(map(str, seen))}")

        h = out["H"][i][0]
        occ = board.occupied
        if list(map(int, h)) != [chess.popcount(occ), chess.lsb(occ), occ & (occ - 1)]:
            problems.append(f"helpers {h}")
        for sq, mask in (map(int, a) for a in out["A"][i]):
            if mask != int(board.attacks_mask(sq)):
                problems.append(f"attacks of {chess.square_name(sq)}: {mask:x}")
        bad += [f"{fen} (clock {clock}): {p}" for p in problems]
    assert checked_moves > 40_000
    assert not bad, f"{len(bad)} problems:\n" + "\n".join(bad[:30])


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    child = board.copy(stack=False)
    child.push(move)
    return child
