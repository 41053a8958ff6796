#!/usr/bin/env python3
"""Measurements behind examples/README.md.  Each subcommand prints a markdown
table and writes the raw rows as JSON next to ``--out``.

    python examples/measure.py conversion   # won endings, with and without tables
    python examples/measure.py tbnodes      # nodes with / without in-search WDL probes
    python examples/measure.py bk           # Bratko-Kopec nodes-to-solution
    python examples/measure.py tbsolve      # tablebase endgames nodes-to-solution

Tables: ``--tables DIR`` (default: the test cache, filled through
``tests/support/table_cache.py`` like the test suite does).  The engines run in-process
(the same classes the UCI front end drives) with node limits, so the numbers
do not depend on the machine's load.  Everything is seeded.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import tarfile
import time
from pathlib import Path
from typing import Any, Optional

import chess

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "alphabeta"))
sys.path.insert(0, str(HERE / "centaur"))
sys.path.insert(0, str(HERE.parent / "tests"))  # support.table_cache: the test data cache

import pyfathom  # noqa: E402
from engine_common import Limits, Tables  # noqa: E402

from alphabeta.engine import AlphaBeta  # noqa: E402  (examples/ on sys.path)
from centaur.engine import Centaur  # noqa: E402


def default_tables() -> Path:
    """The test suite's tables (tests/support/table_cache.py, the one definition of
    the test cache), fetched and verified on first use."""
    from support import table_cache

    return table_cache.tables_dir()


def bratko_kopec() -> list[tuple[chess.Board, list[chess.Move], str]]:
    from support import table_cache

    sdist = table_cache.sdist_archive()
    with tarfile.open(sdist) as tar:
        member = tar.extractfile("chess-1.11.2/examples/bratko_kopec/bratko-kopec.epd")
        assert member is not None
        text = io.TextIOWrapper(member, encoding="utf-8").read()
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        board, ops = chess.Board.from_epd(line)
        out.append((board, list(ops["bm"]), str(ops.get("id", ""))))
    return out


def make_engine(kind: str, tables: Optional[Tables], probe: bool = True):
    cls = AlphaBeta if kind == "alphabeta" else Centaur
    return cls(tables=tables or Tables(), probe_in_search=probe)


def limits(nodes: Optional[int] = None, depth: Optional[int] = None) -> Limits:
    lim = Limits()
    lim.nodes = nodes
    lim.depth = depth
    return lim


# ---- nodes to solution -----------------------------------------------------------

def nodes_to_solution(kind: str, board: chess.Board, solutions: set,
                      budget: int, tables: Optional[Tables] = None,
                      probe: bool = True) -> dict[str, Any]:
    """Search with a node budget; the solution counts as found at the node
    count from which the move the engine would play stays in ``solutions``
    until the end of the search."""
    engine = make_engine(kind, tables, probe)
    history: list[tuple[int, chess.Move]] = []
    t0 = time.monotonic()
    if kind == "alphabeta":
        def it(depth: int, move: chess.Move, score: int, nodes: int) -> None:
            history.append((nodes, move))
        final = engine.go(board.copy(), limits(nodes=budget), on_iteration=it,
                          use_root_tables=False)
    else:
        def upd(move: chess.Move, nodes: int, separated: bool) -> None:
            history.append((nodes, move))
        final = engine.go(board.copy(), limits(nodes=budget), on_update=upd,
                          use_root_tables=False)
    elapsed = time.monotonic() - t0
    found_at = None
    if final in solutions:
        found_at = engine.nodes
        for nodes, move in reversed(history):
            if move not in solutions:
                break
            found_at = nodes
    return {"engine": kind, "fen": board.fen(), "final": final.uci() if final else None,
            "solved": final in solutions, "nodes_to_solution": found_at,
            "nodes_total": engine.nodes, "tbhits": engine.tbhits,
            "seconds": round(elapsed, 2),
            "separated": getattr(engine, "root", None) is not None and kind == "centaur"
            and engine._separated(engine.root) is not None}


def summarize(rows: list[dict], label: str) -> str:
    lines = [f"| position | alphabeta nodes-to-solution | centaur nodes-to-solution | ratio ab/centaur |",
             "|---|---|---|---|"]
    by = {}
    for r in rows:
        by.setdefault(r["id"], {})[r["engine"]] = r
    ratios = []
    for pid, d in by.items():
        a = d.get("alphabeta", {}).get("nodes_to_solution")
        c = d.get("centaur", {}).get("nodes_to_solution")
        ratio = f"{a / c:.2f}" if a and c else "-"
        if a and c:
            ratios.append(a / c)
        lines.append(f"| {pid} | {a if a is not None else 'not solved'} | "
                     f"{c if c is not None else 'not solved'} | {ratio} |")
    solved_a = sum(1 for d in by.values() if d.get("alphabeta", {}).get("solved"))
    solved_c = sum(1 for d in by.values() if d.get("centaur", {}).get("solved"))
    geo = (sum(map(lambda x: __import__("math").log(x), ratios)) / len(ratios)) if ratios else 0
    lines.append(f"\n{label}: solved alphabeta {solved_a}/{len(by)}, centaur {solved_c}/{len(by)}; "
                 f"both solved {len(ratios)}: geometric mean ratio ab/centaur "
                 f"{__import__('math').exp(geo):.2f}" if ratios else f"\n{label}: no common solve")
    return "\n".join(lines)


def cmd_bk(args: argparse.Namespace) -> list[dict]:
    rows = []
    for board, bm, pid in bratko_kopec()[: args.limit]:
        for kind in ("alphabeta", "centaur"):
            r = nodes_to_solution(kind, board, set(bm), args.budget)
            r["id"] = pid
            r["bm"] = [board.san(m) for m in bm]
            rows.append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    print(summarize(rows, "Bratko-Kopec"))
    return rows


# ---- random endgame positions --------------------------------------------------------

PIECES = {"P": chess.PAWN, "N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK,
          "Q": chess.QUEEN}


def random_position(rng: random.Random, material: str) -> chess.Board:
    white, black = material[1:].split("vK")
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + len(white) + len(black))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        i = 2
        for color, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
            for ch in pieces:
                sq = squares[i]
                i += 1
                if ch == "P" and chess.square_rank(sq) in (0, 7):
                    break
                board.set_piece_at(sq, chess.Piece(PIECES[ch], color))
        board.turn = chess.WHITE
        if (chess.popcount(board.occupied) == 2 + len(white) + len(black)
                and board.is_valid() and not board.is_game_over()):
            return board


def cmd_tbnodes(args: argparse.Namespace) -> list[dict]:
    tables = Tables()
    tables.set_path(str(args.tables))
    rng = random.Random(2024)
    materials = ["KQRvKR", "KRPvKR", "KRNvKB", "KQvKRP",
                 "KRPvKRP", "KQNvKRB", "KRBvKRP", "KQPvKQP",
                 "KRRPvKRN", "KQRPvKQP", "KRBPvKRP", "KQRvKRBN"]
    rows = []
    for material in materials[: args.limit]:
        # A position where white has a capture that removes a piece.
        while True:
            board = random_position(rng, material)
            if any(board.is_capture(m) for m in board.legal_moves) and not board.is_check():
                break
        row: dict[str, Any] = {"material": material, "fen": board.fen()}
        for kind, budget_key in (("alphabeta", "depth"), ("centaur", "nodes")):
            for probe in (False, True):
                engine = make_engine(kind, tables, probe)
                t0 = time.monotonic()
                if kind == "alphabeta":
                    move = engine.go(board.copy(), limits(depth=args.depth), use_root_tables=False)
                else:
                    move = engine.go(board.copy(), limits(nodes=args.centaur_nodes),
                                     use_root_tables=False)
                tag = f"{kind}_{'probe' if probe else 'noprobe'}"
                row[tag + "_nodes"] = engine.nodes
                row[tag + "_tbhits"] = engine.tbhits
                row[tag + "_move"] = move.uci() if move else None
                row[tag + "_seconds"] = round(time.monotonic() - t0, 2)
                if kind == "centaur":
                    row[tag + "_separated"] = engine._separated(engine.root) is not None
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    lines = [f"| material | FEN | alphabeta d{args.depth} nodes no probe | with probes | ratio | tbhits | "
             f"centaur nodes no probe | with probes | ratio |", "|---|---|---|---|---|---|---|---|---|"]
    ra, rc = [], []
    for r in rows:
        a0, a1 = r["alphabeta_noprobe_nodes"], r["alphabeta_probe_nodes"]
        c0, c1 = r["centaur_noprobe_nodes"], r["centaur_probe_nodes"]
        ra.append(a0 / a1)
        rc.append(c0 / c1)
        c0s = "" if r["centaur_noprobe_separated"] else " (cap)"
        c1s = "" if r["centaur_probe_separated"] else " (cap)"
        lines.append(f"| {r['material']} | `{r['fen']}` | {a0} | {a1} | {a0 / a1:.2f} | "
                     f"{r['alphabeta_probe_tbhits']} | {c0}{c0s} | {c1}{c1s} | {c0 / c1:.2f} |")
    import math
    lines.append(f"\ngeometric mean ratio (nodes without / with probes): alphabeta "
                 f"{math.exp(sum(map(math.log, ra)) / len(ra)):.2f}, centaur "
                 f"{math.exp(sum(map(math.log, rc)) / len(rc)):.2f}")
    print("\n".join(lines))
    return rows


def cmd_tbsolve(args: argparse.Namespace) -> list[dict]:
    """4-piece wins with at most two winning moves among at least eight
    legal ones; searched without tables, the tables only give the key.  Also
    with in-search probes (root probe off)."""
    tb = pyfathom.open_tablebase(args.tables)
    tables = Tables()
    tables.set_path(str(args.tables))
    rng = random.Random(77)
    materials = ["KPvK", "KQvKR", "KRvKP", "KPvKP", "KRvKN", "KQvKP"]
    positions = []
    for material in materials:
        found = 0
        tries = 0
        while found < args.per_material and tries < 200000:
            tries += 1
            board = random_position(rng, material)
            root = tb.probe_root(board)
            if root.wdl != pyfathom.WDL.WIN or len(root.moves) < 8:
                continue
            winners = {m.move for m in root.moves if m.wdl == pyfathom.WDL.WIN}
            if len(winners) > 2:
                continue
            if args.quiet_only and any(board.is_capture(m) for m in winners):
                continue
            positions.append((material, board, winners, root.dtz))
            found += 1
    rows = []
    for i, (material, board, winners, dtz) in enumerate(positions):
        for kind in ("alphabeta", "centaur"):
            for use_tb in (False, True):
                r = nodes_to_solution(kind, board, winners, args.budget,
                                      tables if use_tb else None, probe=use_tb)
                r.update(id=f"{material}-{i}", tb=use_tb, dtz=dtz,
                         winners=[board.san(m) for m in winners])
                rows.append(r)
                print(json.dumps(r), file=sys.stderr, flush=True)
    print(summarize([r for r in rows if not r["tb"]], "tablebase endgames, no tables"))
    print()
    print(summarize([r for r in rows if r["tb"]], "tablebase endgames, WDL probes in search"))
    tb.close()
    return rows


# ---- conversion ---------------------------------------------------------------------

CONVERSION = [
    ("KQvK", "8/5K2/8/8/8/2k5/7Q/8 w - - 0 1"),
    ("KQvK", "K7/8/8/8/8/4k3/6Q1/8 w - - 0 1"),
    ("KRvK", "8/8/8/8/8/3k4/4R3/K7 w - - 0 1"),
    ("KRvK", "8/8/6R1/8/2k5/8/8/2K5 w - - 0 1"),
    ("KPvK", "8/6k1/8/8/8/7K/1P6/8 w - - 0 1"),
    ("KPvK", "8/8/8/8/4k3/1P6/8/2K5 w - - 0 1"),
    ("KBNvK", "8/6k1/4B3/8/7N/8/7K/8 w - - 0 1"),
    ("KBNvK", "2B5/8/K7/6N1/8/8/8/k7 w - - 0 1"),
    ("KQvKR", "8/7Q/4K3/8/6k1/8/8/4r3 w - - 0 1"),
    ("KQvKR", "8/8/8/8/1r4K1/k7/3Q4/8 w - - 0 1"),
]


def play_out(kind: str, fen: str, tables: Optional[Tables], defender: pyfathom.Tablebase,
             nodes_per_move: int) -> dict[str, Any]:
    board = chess.Board(fen)
    attacker = board.turn
    engine = make_engine(kind, tables)
    total_nodes = 0
    t0 = time.monotonic()
    while not board.is_game_over(claim_draw=True):
        if board.turn == attacker:
            move = engine.go(board.copy(), limits(nodes=nodes_per_move))
            total_nodes += engine.nodes
        else:
            move = defender.probe_root(board).best_move
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    return {"engine": kind, "fen": fen, "tables": tables is not None,
            "result": outcome.termination.name if outcome else "?",
            "converted": bool(outcome and outcome.winner == attacker),
            "plies": len(board.move_stack), "nodes": total_nodes,
            "seconds": round(time.monotonic() - t0, 1)}


def cmd_conversion(args: argparse.Namespace) -> list[dict]:
    defender = pyfathom.open_tablebase(args.tables)
    tables = Tables()
    tables.set_path(str(args.tables))
    rows = []
    for material, fen in CONVERSION:
        for kind in ("alphabeta", "centaur"):
            for with_tables in (True, False):
                r = play_out(kind, fen, tables if with_tables else None, defender,
                             args.nodes_per_move)
                r["material"] = material
                r["dtz"] = defender.probe_dtz(chess.Board(fen))
                rows.append(r)
                print(json.dumps(r), file=sys.stderr, flush=True)
    lines = ["| material | FEN | DTZ | engine | tables | result | plies |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['material']} | `{r['fen']}` | {r['dtz']} | {r['engine']} | "
                     f"{'yes' if r['tables'] else 'no'} | {r['result'].lower()} | {r['plies']} |")
    for kind in ("alphabeta", "centaur"):
        for t in (True, False):
            sel = [r for r in rows if r["engine"] == kind and r["tables"] == t]
            lines.append(f"\n{kind}, tables {'yes' if t else 'no'}: converted "
                         f"{sum(r['converted'] for r in sel)}/{len(sel)}")
    print("\n".join(lines))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["conversion", "tbnodes", "bk", "tbsolve"])
    ap.add_argument("--tables", type=Path, default=None)
    ap.add_argument("--budget", type=int, default=60000, help="node budget (bk, tbsolve)")
    ap.add_argument("--limit", type=int, default=100, help="first N positions")
    ap.add_argument("--depth", type=int, default=4, help="alphabeta depth (tbnodes)")
    ap.add_argument("--centaur-nodes", type=int, default=30000, help="centaur cap (tbnodes)")
    ap.add_argument("--nodes-per-move", type=int, default=3000, help="conversion")
    ap.add_argument("--per-material", type=int, default=2, help="tbsolve")
    ap.add_argument("--quiet-only", action="store_true",
                    help="tbsolve: skip positions where a winning move is a capture")
    ap.add_argument("--out", type=Path, default=None, help="JSON rows")
    args = ap.parse_args()
    if args.tables is None:
        args.tables = default_tables()
    rows = {"conversion": cmd_conversion, "tbnodes": cmd_tbnodes, "bk": cmd_bk,
            "tbsolve": cmd_tbsolve}[args.what](args)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
