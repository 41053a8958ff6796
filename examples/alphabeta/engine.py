#!/usr/bin/env python3
"""A small alpha-beta engine on python-chess that probes Syzygy tables with pyfathom.

Negamax alpha-beta (principal variation search) with iterative deepening,
a transposition table, killer and history move ordering, check extension,
and a capture-only quiescence search over a material + piece-square
evaluation (``engine_common.evaluate``).

Tablebases (see ``search``):

* at the entry of every interior node: at most ``largest`` pieces and no
  castling rights -> one Fathom-style WDL probe on the board's bitboards; an
  answer is returned at once as the node's exact value (no move generation);
* at the root, when the root is itself in the tables: ``probe_root`` (DTZ)
  chooses the move played, with no search at all.

Run it as a UCI engine: ``python examples/alphabeta/engine.py``.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional

import chess

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine_common import (  # noqa: E402
    Abort, INF, MATE, MATE_BOUND, TB_BOUND, Limits, Quiescence, Tables, capture_value,
    evaluate, format_score, main, position_key, wdl_score,
)

EXACT, LOWER, UPPER = 0, 1, 2
MAX_PLY = 64
TT_LIMIT = 1_500_000


class AlphaBeta(Quiescence):
    name = "pyfathom-alphabeta"

    def __init__(self, tables: Optional[Tables] = None, probe_in_search: bool = True) -> None:
        self.tables = tables or Tables()
        self.probe_in_search = probe_in_search
        self.tt: dict = {}
        self.nodes = 0
        self.tbhits = 0
        self.new_game()

    def new_game(self) -> None:
        self.tt = {}
        self.history: dict = {}

    # ---- the search -------------------------------------------------------------

    def go(self, board: chess.Board, limits: Limits,
           send: Callable[[str], None] = lambda s: None,
           on_iteration: Optional[Callable[[int, chess.Move, int, int], None]] = None,
           use_root_tables: bool = True) -> Optional[chess.Move]:
        """Search ``board`` within ``limits``; return the move to play.

        ``on_iteration(depth, move, score, nodes)`` is called after every
        completed iteration (the measurement scripts use it).
        """
        self.board = board
        self.limits = limits
        self.nodes = 0
        self.tbhits = 0
        self.killers = [[None, None] for _ in range(MAX_PLY + 2)]
        legal = list(board.legal_moves)
        if not legal:
            return None

        if use_root_tables:
            root = self.tables.root_move(board)
            if root is not None:
                move, wdl, dtz = root
                score = wdl_score(wdl, 1) if wdl in (2, -2) else wdl
                send(f"info depth 1 score {format_score(score)} nodes 0 tbhits 1 "
                     f"pv {move.uci()} string probe_root wdl {wdl} dtz {dtz}")
                return move

        # Game history for repetition detection: the positions since the last
        # irreversible move, oldest first.
        self.keys = self._history_keys(board)
        best_move = legal[0]
        best_score = -INF
        max_depth = limits.depth or MAX_PLY
        for depth in range(1, max_depth + 1):
            try:
                score = self._root(depth)
            except Abort:
                break
            best_move = self.pv_move or best_move
            best_score = score
            pv = self._pv(board, depth)
            elapsed = max(limits.elapsed(), 1e-3)
            send(f"info depth {depth} score {format_score(score)} nodes {self.nodes} "
                 f"nps {int(self.nodes / elapsed)} time {int(elapsed * 1000)} "
                 f"tbhits {self.tbhits} pv {' '.join(m.uci() for m in pv)}")
            if on_iteration is not None:
                on_iteration(depth, best_move, score, self.nodes)
            if abs(score) > MATE_BOUND and depth > 2 * (MATE - abs(score)) + 2:
                break                                       # a mate is proven
            if limits.deadline is not None and not limits.infinite:
                # Do not start an iteration that cannot finish in time.
                if limits.elapsed() * 3 > limits.deadline - limits.start:
                    break
        return best_move

    def _history_keys(self, board: chess.Board) -> list:
        b = board.copy()
        keys = [position_key(b)]
        for _ in range(min(board.halfmove_clock, len(board.move_stack))):
            b.pop()
            keys.append(position_key(b))
        keys.reverse()
        return keys[:-1]            # the root itself is pushed by the search

    def _pv(self, board: chess.Board, depth: int) -> list[chess.Move]:
        pv: list[chess.Move] = []
        b = board.copy(stack=False)
        seen = set()
        for _ in range(depth):
            entry = self.tt.get(position_key(b))
            if entry is None or entry[3] is None or entry[3] not in b.legal_moves:
                break
            key = position_key(b)
            if key in seen:
                break
            seen.add(key)
            pv.append(entry[3])
            b.push(entry[3])
        return pv

    def _root(self, depth: int) -> int:
        self.pv_move = None
        return self.search(depth, -INF, INF, 0)

    def _check_limits(self) -> None:
        lim = self.limits
        if lim.expired() or (lim.nodes is not None and self.nodes >= lim.nodes):
            raise Abort

    def search(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        board = self.board
        self.nodes += 1
        if not self.nodes & 255:
            self._check_limits()
        key = position_key(board)

        if ply:
            # Draws by the 50-move rule and repetition (one repetition counts).
            hmc = board.halfmove_clock
            if hmc >= 100:
                return 0
            if hmc >= 4 and key in self.keys[-hmc:]:
                return 0
            # ---- Syzygy: exact WDL at node entry, before any move generation.
            tables = self.tables
            if (self.probe_in_search and tables.largest
                    and board.occupied.bit_count() <= tables.largest
                    and not board.castling_rights):
                wdl = tables.probe_wdl(board)
                if wdl is not None:
                    self.tbhits += 1
                    return wdl_score(wdl, ply)
            if ply >= MAX_PLY:
                return evaluate(board)

        in_check = board.is_check()
        if in_check:
            depth += 1
        if depth <= 0:
            return self.qsearch(alpha, beta, ply, 0)

        alpha0 = alpha
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if ply and e_depth >= depth:
                s = _from_tt(e_score, ply)
                if (e_flag == EXACT or (e_flag == LOWER and s >= beta)
                        or (e_flag == UPPER and s <= alpha)):
                    return s

        moves = self._ordered(board, tt_move, ply)
        if not moves:
            return -MATE + ply if in_check else 0

        best = -INF
        best_move = None
        keys = self.keys
        keys.append(key)
        try:
            for i, move in enumerate(moves):
                board.push(move)
                try:
                    if i == 0:
                        score = -self.search(depth - 1, -beta, -alpha, ply + 1)
                    else:
                        score = -self.search(depth - 1, -alpha - 1, -alpha, ply + 1)
                        if alpha < score < beta:
                            score = -self.search(depth - 1, -beta, -alpha, ply + 1)
                finally:
                    board.pop()
                if score > best:
                    best = score
                    best_move = move
                    if ply == 0:
                        self.pv_move = move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not board.is_capture(move) and move.promotion is None:
                                k = self.killers[ply]
                                if k[0] != move:
                                    k[1] = k[0]
                                    k[0] = move
                                hk = (board.turn, move.from_square, move.to_square)
                                self.history[hk] = self.history.get(hk, 0) + depth * depth
                            break
        finally:
            keys.pop()

        flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _ordered(self, board: chess.Board, tt_move, ply: int) -> list[chess.Move]:
        killers = self.killers[ply]
        history = self.history
        turn = board.turn
        scored = []
        for move in board.legal_moves:
            if move == tt_move:
                s = 10_000_000
            elif board.is_capture(move) or move.promotion:
                s = 1_000_000 + capture_value(board, move)
            elif move == killers[0]:
                s = 900_000
            elif move == killers[1]:
                s = 800_000
            else:
                s = history.get((turn, move.from_square, move.to_square), 0)
            scored.append((s, move))
        scored.sort(key=lambda t: t[0], reverse=True)
        return [m for _, m in scored]


def _to_tt(score: int, ply: int) -> int:
    if score > TB_BOUND:
        return score + ply
    if score < -TB_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score > TB_BOUND:
        return score - ply
    if score < -TB_BOUND:
        return score + ply
    return score


if __name__ == "__main__":
    main(AlphaBeta())
