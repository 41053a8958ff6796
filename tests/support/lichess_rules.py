"""lichess's rules as the server tests write them out (never from the
server's code): lila-tablebase's move order, the (dtz, precise) lila
reports, mate-in-one, and the sample positions of the live-server tests
(``test_server.py``, ``test_server_batch.py``, ``test_server_lila.py``)."""

from __future__ import annotations

import random
from typing import Any, Optional

import chess

from support import positions

# lichess's categories in its order for moves (best first from the mover's side).
ORDER = ["loss", "unknown", "syzygy-loss", "maybe-loss", "blessed-loss", "draw",
         "cursed-win", "maybe-win", "syzygy-win", "win"]

def probe_or_none(tb: Any, board: chess.Board) -> tuple[Optional[int], bool]:
    """(dtz, precise) as lila says them: Tablebase.probe_dtz_as_stored (the
    DTZ of Tablebase.probe, the flag of shakmaty-syzygy, which
    test_server_lila_flags checks against a model of its rule written
    there), None where the tables cannot answer."""
    try:
        dtz, precise = tb.probe_dtz_as_stored(board)
    except KeyError:
        return None, False
    return int(dtz), bool(precise)

def mates_in_one(board: chess.Board) -> bool:
    for move in board.legal_moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return True
    return False

WINNING_FOR_THE_CHILD = {"win", "syzygy-win", "maybe-win", "cursed-win"}


def lila_order_key(board: chess.Board, m: dict[str, Any]) -> tuple[Any, ...]:
    """lila-tablebase's sort key of a move entry (its response.rs, read
    there and written again here): category; mates and variant ends;
    stalemates and dead positions; conversions (captures, promotions) and
    then zeroing moves first unless the mover loses; DTZ (the child's,
    larger first, unknown first); captured then promoted piece, queen
    first."""
    move = chess.Move.from_uci(m["uci"])
    loses = m["category"] in WINNING_FOR_THE_CHILD
    captured = 0
    if board.is_capture(move):
        captured = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
    return (ORDER.index(m["category"]),
            (not m["checkmate"], not m["variant_loss"], m["variant_win"]),
            (not m["stalemate"], not m["insufficient_material"]),
            m["conversion"] if loses else not m["conversion"],
            m["zeroing"] if loses else not m["zeroing"],
            (0, 0) if m["dtz"] is None else (1, -m["dtz"]),
            -captured, -(move.promotion or 0))

def sample_positions() -> list[chess.Board]:
    """2,100 positions over all 35 tables (both sides to move, en passant,
    double pushes), plus mates, stalemates, dead positions, and clocks near
    100 around rounded and exact DTZs."""
    boards = [b for key in positions.ALL_TABLES
              for b in positions.table_sample(key, 60, seed=14, ep_share=0.2, push_share=0.1)]
    boards += [chess.Board(fen) for fen in (
        "4k2R/8/4K3/8/8/8/8/8 b - - 1 1",          # checkmated
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",          # stalemate
        "8/8/8/8/8/8/8/K6k w - - 0 1",             # bare kings
        "8/8/8/4k3/8/8/8/KB6 w - - 37 60",         # KBvK, insufficient
        "8/8/8/8/8/5k2/8/K1N5 b - - 99 80",        # KNvK at clock 99
        "4k3/8/4K3/8/8/8/8/7R w - - 99 80",        # mate in one with the clock at 99
        "4k3/8/4K3/8/8/8/8/7R w - - 100 80",       # ... and at 100
        "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",
    )]
    return boards


def clock_variants(tb: Any, boards: list[chess.Board], rng: random.Random) -> list[chess.Board]:
    """Positions whose halfmove clock puts DTZ + clock at 99, 100 and 101,
    for rounded and exact DTZs of both signs."""
    out: list[chess.Board] = []
    seen = {"rounded": 0, "precise": 0}
    for board in boards:
        dtz, precise = probe_or_none(tb, board)
        if not dtz or abs(dtz) > 95 or board.ep_square is not None or board.is_check():
            continue
        kind = "precise" if precise else "rounded"
        if seen[kind] >= 40:
            continue
        seen[kind] += 1
        for target in (99, 100, 101):
            clock = target - abs(dtz)
            b = board.copy()
            b.halfmove_clock = clock
            out.append(b)
    assert seen["rounded"] >= 20 and seen["precise"] >= 20, seen
    return out
