"""probe_root against python-chess: the move list, the outcome of every move
(including under a nonzero halfmove clock), and best-move playouts that must
mate without a 50-move draw."""

from __future__ import annotations

import random
from typing import Any

import chess
import chess.syzygy
import pytest

from support.expected import children_fens, expected_answers, fen, root_boards
from support.positions import random_position
from support.root_checks import check_root, position_key, sign

PLAYOUT_TABLES = ["KQvK", "KRvK", "KBNvK", "KPvK", "KQvKR", "KRvKP", "KPvKP"]
PLAYOUTS_PER_TABLE = 8  # 56 won positions in all
MAX_PLIES = 300


def test_root_moves_match_python_chess(tablebase: Any) -> None:
    """15 positions of each table at clock 0: every legal move listed once,
    ranked, each with the outcome python-chess gives its child position."""
    boards = root_boards()
    roots = {position_key(b): a for b, a in zip(boards, expected_answers([fen(b) for b in boards]))}
    child_fens = children_fens(boards)
    children = {position_key(chess.Board(f)): a for f, a in zip(child_fens, expected_answers(child_fens))}
    bad: list[str] = []
    for board in boards:
        bad += check_root(tablebase, board, roots[position_key(board)], children, 0)
    assert not bad, f"{len(bad)} problems in {len(boards)} positions:\n" + "\n".join(bad[:30])


def test_root_checkmate_and_stalemate(tablebase: Any) -> None:
    mated = tablebase.probe_root(chess.Board("7k/7Q/6K1/8/8/8/8/8 b - - 0 1"))
    assert mated.best_move is None and mated.moves == []
    assert (mated.wdl, mated.dtz) == (-2, -1)
    stale = tablebase.probe_root(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))
    assert stale.best_move is None and stale.moves == []
    assert (stale.wdl, stale.dtz) == (0, 0)


def _won_positions(oracle: chess.syzygy.Tablebase) -> list[chess.Board]:
    out = []
    for key in PLAYOUT_TABLES:
        rng = random.Random(f"playout:{key}")
        found = 0
        while found < PLAYOUTS_PER_TABLE:
            board = random_position(rng, key)
            if oracle.probe_wdl(board) == 2:
                out.append(board)
                found += 1
    return out


def test_best_move_playouts_mate(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    """From 56 won positions, best_move for both sides mates within the
    50-move rule; the winner's root WDL stays WIN all the way."""
    starts = _won_positions(oracle)
    assert len(starts) >= 50
    failures = []
    for start in starts:
        board = start.copy()
        winner = board.turn
        result = None
        for _ in range(MAX_PLIES):
            if board.is_checkmate():
                result = "mate" if board.turn != winner else "winner mated"
                break
            if board.is_stalemate() or board.is_insufficient_material():
                result = "draw"
                break
            if board.halfmove_clock >= 100:
                result = "50-move draw"
                break
            rp = tablebase.probe_root(board)
            if board.turn == winner and rp.wdl != 2:
                result = f"winner's wdl became {rp.wdl!r}"
                break
            if rp.best_move is None or not board.is_legal(rp.best_move):
                result = f"bad best_move {rp.best_move}"
                break
            board.push(rp.best_move)
        else:
            result = f"no mate after {MAX_PLIES} plies"
        if result != "mate":
            failures.append(f"{start.fen()}: {result} after {len(board.move_stack)} plies "
                            f"({' '.join(m.uci() for m in board.move_stack)})")
    assert not failures, f"{len(failures)} of {len(starts)} playouts failed:\n" + "\n".join(failures)


@pytest.mark.parametrize("key", ["KRvK", "KQvKR", "KBNvK", "KRvKP", "KQvKP"])
def test_fifty_move_rule_turns_win_into_cursed_win(key: str, tablebase: Any,
                                                  oracle: chess.syzygy.Tablebase) -> None:
    """Won (and lost) positions with DTZ d given a halfmove clock h: with
    d + h > 100 the root becomes a cursed win (blessed loss) and the best move
    keeps the cursed win; with d + h < 99 it stays a win (loss).  Every move's
    outcome is checked against python-chess's DTZ of its child."""
    rng = random.Random(f"cursed:{key}")
    checked = 0
    bad: list[str] = []
    tries = 0
    while checked < 12 and tries < 20000:
        tries += 1
        board = random_position(rng, key)
        dtz = oracle.probe_dtz(board)
        if not 6 <= abs(dtz) <= 95:
            continue
        checked += 1
        cursed_clock = 101 - abs(dtz) + rng.randrange(0, 5)
        plain_clock = rng.randrange(0, 99 - abs(dtz))
        children = {}
        for move in board.legal_moves:
            after = board.copy(stack=False)
            after.push(move)
            children[position_key(after)] = (oracle.probe_wdl(after), oracle.probe_dtz(after))
        for clock in (cursed_clock, plain_clock):
            b = board.copy(stack=False)
            b.halfmove_clock = clock
            bad += check_root(tablebase, b, (oracle.probe_wdl(board), dtz), children, clock)
            rp = tablebase.probe_root(b)
            expected = sign(dtz) * (1 if clock == cursed_clock else 2)
            if rp.wdl != expected:
                bad.append(f"{b.fen()}: clock {clock} dtz {dtz}: root wdl {rp.wdl!r}, "
                           f"expected {expected}")
            if dtz > 0 and rp.best_move is not None:
                after = b.copy(stack=False)
                after.push(rp.best_move)
                if oracle.probe_wdl(after) >= 0:
                    bad.append(f"{b.fen()}: best move {rp.best_move} gives up the win")
    assert checked >= 10, f"{key}: too few positions with 6 <= |dtz| <= 95"
    assert not bad, "\n".join(bad[:30])
