"""Checks of a root probe against python-chess's answers for the position
and for the position after each move (``test_oracle_root.py``,
``test_beyond_five.py``)."""

from __future__ import annotations

from typing import Any

import chess


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _expected_move_outcome(board: chess.Board, move: chess.Move, child_wdl: int,
                           child_dtz: int, clock: int) -> tuple[int, int] | None:
    """python-chess's view of one root move: (wdl for the mover under the
    50-move rule from *clock*, DTZ in plies from the root), or None where
    DTZ rounding makes the 50-move boundary ambiguous."""
    zeroing = board.is_zeroing(move)
    after = board.copy(stack=False)
    after.push(move)
    if after.is_checkmate():
        dtz = 1
    elif zeroing:
        v = -child_wdl
        dtz = sign(v) * (1 if abs(v) == 2 else 101) if v else 0
        return v, dtz  # the clock is reset: the table's WDL is the outcome
    else:
        dtz = -child_dtz + sign(-child_dtz)
    if dtz == 0:
        return 0, 0
    plies = abs(dtz) + (0 if zeroing else clock)
    if 99 <= plies <= 102:
        return None
    if abs(dtz) > 100:
        return sign(dtz), dtz
    return (2 if plies <= 100 else 1) * sign(dtz), dtz


def check_root(tb: Any, board: chess.Board, root_answer: tuple[Any, Any],
               child_answers: dict[str, tuple[Any, Any]], clock: int) -> list[str]:
    fen = board.fen(en_passant="fen")
    problems: list[str] = []
    rp = tb.probe_root(board)
    legal = list(board.legal_moves)
    moves = [rm.move for rm in rp.moves]
    if sorted(moves, key=str) != sorted(legal, key=str):
        problems.append(f"moves {sorted(map(str, moves))} != legal {sorted(map(str, legal))}")
    if rp.best_move != (moves[0] if moves else None):
        problems.append(f"best_move {rp.best_move} is not the first move")
    if not legal and rp.best_move is not None:
        problems.append("best_move without legal moves")
    o_wdl, o_dtz = root_answer
    if rp.dtz != o_dtz:
        problems.append(f"dtz python-chess={o_dtz} probe_root={rp.dtz}")
    # Root WDL under the 50-move rule from the board's clock.
    if o_dtz == 0:
        exp_wdl: int | None = 0
    elif abs(o_dtz) > 100:
        exp_wdl = sign(o_dtz)
    elif 99 <= abs(o_dtz) + clock <= 102:
        exp_wdl = None
    else:
        exp_wdl = sign(o_dtz) * (2 if abs(o_dtz) + clock <= 100 else 1)
    if clock == 0:
        exp_wdl = o_wdl
    if exp_wdl is not None and rp.wdl != exp_wdl:
        problems.append(f"root wdl expected {exp_wdl} (python-chess wdl {o_wdl}, "
                        f"dtz {o_dtz}, clock {clock}) probe_root={rp.wdl!r}")
    ranks = [rm.rank for rm in rp.moves]
    if ranks != sorted(ranks, reverse=True):
        problems.append(f"moves not sorted by rank: {ranks}")
    wdls = [int(rm.wdl) for rm in rp.moves]
    if wdls != sorted(wdls, reverse=True):
        problems.append(f"moves not sorted by wdl: {wdls}")
    wins = [rm.dtz for rm in rp.moves if rm.wdl == 2]
    if wins != sorted(wins):
        problems.append(f"winning moves not shortest first: {wins}")
    for rm in rp.moves:
        after = board.copy(stack=False)
        after.push(rm.move)
        c_wdl, c_dtz = child_answers[position_key(after)]
        exp = _expected_move_outcome(board, rm.move, c_wdl, c_dtz, clock)
        if sign(int(rm.wdl)) != sign(-c_wdl):
            problems.append(f"{rm.move}: wdl {rm.wdl!r} but python-chess says the "
                            f"child is {c_wdl}")
        elif exp is not None and int(rm.wdl) != exp[0]:
            problems.append(f"{rm.move}: wdl expected {exp[0]} (child wdl {c_wdl}, "
                            f"dtz {c_dtz}, clock {clock}) got {rm.wdl!r}")
        if sign(rm.dtz) != sign(int(rm.wdl)):
            problems.append(f"{rm.move}: dtz {rm.dtz} and wdl {rm.wdl!r} disagree")
    return [f"{fen}: {p}" for p in problems]


def position_key(board: chess.Board) -> str:
    """Position key without the move counters (they do not change the probe)."""
    return board.epd(en_passant="fen")
