"""Wins at the 50-move edge: playouts from won positions whose halfmove
clock is 60..99, both sides following ``probe_root``'s ``best_move``.

A start is *certain* when its win fits in the clock even if its DTZ, stored
rounded to moves, is one ply short (``dtz + clock + (not precise) <= 100``):
every certain start must reach mate or a capture/pawn move that keeps the
win (checked with python-chess at the reset clock) before a 50-move draw.
Uncertain starts (a rounded DTZ exactly at the limit) may be draws whatever
the choice; how many convert is printed, not asserted.

Both sides play either ``probe_root``'s ``best_move`` or the move of the C
facade's ``tb_probe_root`` (Fathom's call, through ``pyfathom.fathom``).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from collections.abc import Callable
from typing import Any

import chess
import chess.syzygy
import pytest

from positions import ALL_TABLES, random_position

SHARED_5 = Path(__file__).resolve().parents[1].parent / "shared" / "syzygy5"

# Every 3-4-piece table with wins that last long enough (KQPvK and KQvKP
# give positions whose quickest wins tie between an exact and a rounded DTZ:
# the case a root choice blind to rounding gets wrong at the limit).
TABLES_34 = [key for key in ALL_TABLES if key not in ("KBvK", "KNvK", "KBvKB", "KBvKN",
                                                     "KNvKN", "KNNvK", "KQvKQ")]
TABLES_5 = ["KBBvKN", "KRPvKR", "KBBBvK"]
STARTS_PER_TABLE_34 = 16  # 28 tables: 448
STARTS_PER_TABLE_5 = 40   # 120
MAX_PLIES = 120


def winning_moves(tb: Any, board: chess.Board) -> list[tuple[int, bool]]:
    """(DTZ in plies from *board*, exact?) of each move that keeps the win at
    a reset clock: mates and winning captures/pawn moves are exact 1s."""
    out = []
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        if child.is_checkmate():
            out.append((1, True))
        elif board.is_zeroing(move):
            if tb.probe_wdl(child) == -2:
                out.append((1, True))
        else:
            probe = tb.probe(child)
            if probe.wdl == -2:
                out.append((1 - probe.dtz, bool(probe.dtz_precise)))
    return out


def is_certain(moves: list[tuple[int, bool]], clock: int) -> bool:
    """Some move wins within the clock even if its DTZ is one ply short."""
    return any(dtz + clock + (0 if precise else 1) <= 100 for dtz, precise in moves)


def edge_starts(tb: Any, keys: list[str], per_table: int,
                seed: str) -> list[tuple[chess.Board, bool]]:
    """Won positions (winner to move) with the clock set 0..3 plies below
    the limit of their quickest win, kept in 60..99; and whether each is
    certain."""
    starts = []
    for key in keys:
        rng = random.Random(f"{seed}:{key}")
        found = tries = 0
        while found < per_table and tries < 20_000:
            tries += 1
            board = random_position(rng, key)
            if tb.probe_wdl(board) != 2:
                continue
            moves = winning_moves(tb, board)
            quickest = min(dtz for dtz, _ in moves)
            clock = 100 - quickest - rng.choice([0, 0, 0, 1, 1, 2, 3])
            if not 60 <= clock <= 99:
                continue
            board.halfmove_clock = clock
            starts.append((board, is_certain(moves, clock)))
            found += 1
    return starts


def python_choice(tb: Any) -> Callable[[chess.Board], chess.Move | None]:
    return lambda board: tb.probe_root(board).best_move


def fathom_choice(board: chess.Board) -> chess.Move | None:
    """The move of the C facade's tb_probe_root (Fathom's call), on the
    tables pyfathom.fathom.tb_init loaded."""
    from pyfathom import fathom as f

    res, _ = f.tb_probe_root(board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                             board.kings, board.queens, board.rooks, board.bishops,
                             board.knights, board.pawns, board.halfmove_clock, 0,
                             board.ep_square or 0, board.turn)
    if res in (f.TB_RESULT_FAILED, f.TB_RESULT_CHECKMATE, f.TB_RESULT_STALEMATE):
        return None
    promotion = {0: None, 1: chess.QUEEN, 2: chess.ROOK, 3: chess.BISHOP,
                 4: chess.KNIGHT}[f.TB_GET_PROMOTES(res)]
    return chess.Move(f.TB_GET_FROM(res), f.TB_GET_TO(res), promotion)


def play_out(tb: Any, oracle: chess.syzygy.Tablebase, start: chess.Board,
             choose: Callable[[chess.Board], chess.Move | None] | None = None) -> str:
    """'kept' if the winner mates or zeroes with the win intact; else why not.
    Both sides play *choose*'s move (default: probe_root's best_move)."""
    choose = choose or python_choice(tb)
    board = start.copy()
    winner = board.turn
    for _ in range(MAX_PLIES):
        if board.is_checkmate():
            return "kept" if board.turn != winner else "winner mated"
        if board.is_stalemate() or board.is_insufficient_material():
            return "draw"
        if board.halfmove_clock >= 100:
            return "50-move draw"
        if board.move_stack and board.halfmove_clock == 0:
            wdl = oracle.probe_wdl(board)
            won = wdl == (2 if board.turn == winner else -2)
            return "kept" if won else f"zeroed into wdl {wdl} for the side to move"
        move = choose(board)
        if move is None or not board.is_legal(move):
            return f"no legal best move ({move})"
        board.push(move)
    return f"nothing after {MAX_PLIES} plies"


def _run(tb: Any, oracle: chess.syzygy.Tablebase, starts: list[tuple[chess.Board, bool]],
         choose: Callable[[chess.Board], chess.Move | None] | None = None,
         ) -> tuple[list[str], int, int]:
    failures: list[str] = []
    uncertain = uncertain_kept = 0
    for start, certain in starts:
        outcome = play_out(tb, oracle, start, choose)
        if certain:
            if outcome != "kept":
                failures.append(f"{start.fen()}: {outcome}")
        else:
            uncertain += 1
            uncertain_kept += outcome == "kept"
    return failures, uncertain, uncertain_kept


def test_certain_wins_kept_near_the_limit_3_4_pieces(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    starts = edge_starts(tablebase, TABLES_34, STARTS_PER_TABLE_34, "edge34")
    assert len(starts) >= 400
    assert all(60 <= b.halfmove_clock <= 99 for b, _ in starts)
    failures, uncertain, kept = _run(tablebase, oracle, starts)
    print(f"3-4 pieces: {len(starts)} starts, {len(starts) - uncertain} certain, "
          f"{uncertain} uncertain of which {kept} kept")
    assert not failures, f"{len(failures)} certain wins lost:\n" + "\n".join(failures[:20])


def test_exact_dtz_preferred_over_rounded_at_the_limit(tablebase: Any,
                                                      oracle: chess.syzygy.Tablebase) -> None:
    """Positions whose quickest wins tie between an exact DTZ and one stored
    rounded, with the clock leaving no ply to spare: only the exact one is
    sure to win.  Choosing by DTZ alone (as Fathom does) lost 17 of 57 of
    these to a 50-move draw."""
    starts = []
    for key in ["KQPvK", "KQvKP", "KRPvK", "KPPvK"]:
        rng = random.Random(f"tie:{key}")
        for _ in range(3000):
            board = random_position(rng, key)
            if tablebase.probe_wdl(board) != 2:
                continue
            moves = winning_moves(tablebase, board)
            quickest = min(dtz for dtz, _ in moves)
            if {precise for dtz, precise in moves if dtz == quickest} != {True, False}:
                continue
            board.halfmove_clock = 100 - quickest
            starts.append(board)
    assert len(starts) >= 30
    failures = [f"{b.fen()}: {outcome}" for b in starts
                if (outcome := play_out(tablebase, oracle, b)) != "kept"]
    assert not failures, (f"{len(failures)} of {len(starts)} lost:\n"
                          + "\n".join(failures[:20]))


@pytest.mark.skipif(not SHARED_5.is_dir(), reason=f"5-piece tables not found: {SHARED_5}")
@pytest.mark.parametrize("via", ["probe_root", "tb_probe_root"])
def test_certain_wins_kept_near_the_limit_5_pieces(syzygy_dir: Path, via: str) -> None:
    import pyfathom
    from pyfathom import fathom as f

    dirs = [str(syzygy_dir), str(SHARED_5)]
    with pyfathom.open_tablebase(dirs) as tb, chess.syzygy.open_tablebase(dirs[0]) as oracle:
        oracle.add_directory(dirs[1])
        starts = edge_starts(tb, TABLES_5, STARTS_PER_TABLE_5, "edge5")
        assert len(starts) >= 100
        if via == "tb_probe_root":
            assert f.tb_init(os.pathsep.join(dirs)) and f.TB_LARGEST == 5
        try:
            failures, uncertain, kept = _run(tb, oracle, starts,
                                             fathom_choice if via == "tb_probe_root" else None)
        finally:
            f.tb_free()
    print(f"5 pieces via {via}: {len(starts)} starts, {len(starts) - uncertain} certain, "
          f"{uncertain} uncertain of which {kept} kept")
    assert not failures, f"{len(failures)} certain wins lost:\n" + "\n".join(failures[:20])


def test_certain_wins_kept_through_the_fathom_facade(tablebase: Any, syzygy_dir: Path,
                                                     oracle: chess.syzygy.Tablebase) -> None:
    """The same 3-4-piece starts, both sides playing the C facade's
    tb_probe_root, which engines call."""
    from pyfathom import fathom as f

    starts = edge_starts(tablebase, TABLES_34, STARTS_PER_TABLE_34, "edge34")
    assert f.tb_init(str(syzygy_dir))
    try:
        failures, uncertain, kept = _run(tablebase, oracle, starts, fathom_choice)
    finally:
        f.tb_free()
    print(f"3-4 pieces via tb_probe_root: {len(starts)} starts, {len(starts) - uncertain} "
          f"certain, {uncertain} uncertain of which {kept} kept")
    assert not failures, f"{len(failures)} certain wins lost:\n" + "\n".join(failures[:20])
