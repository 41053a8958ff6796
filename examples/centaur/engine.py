#!/usr/bin/env python3
"""A best-first search after the Soviet program "Kentavr" (Centaur).

As its author describes it, and as implemented here:

* every position in the tree carries three estimates, from the side to move:
  optimistic ``o``, realistic ``r``, pessimistic ``p`` -- and a second, less
  likely set ``o2, r2, p2`` with a wider fork;
* a new leaf gets ``r`` from a quiescence search and ``o`` / ``p`` from
  margins that grow with the tactical tension of the position (side to move
  in check, its pieces en prise, enemy pieces it attacks); the less likely set
  uses margins ``WIDE`` times larger;
* the program always expands the line with the highest optimistic estimate:
  from the root down, at every node it follows the reply that is most
  promising for the side to move there (highest ``-child.p``);
* estimates are backed up by negamax: ``o = max(-child.p)``,
  ``p = max(-child.o)``, ``r = max(-child.r)`` (the optimistic value of a
  position is minus the best pessimistic value among the replies, ...);
* when the fork ``o - p`` of a line is small (below ``FORK_MIN``), the
  selection moves on to the less likely estimates for that line, so settled
  lines are still examined for improbable refutations;
* the search stops when one root move's pessimistic estimate is at least
  every other root move's optimistic estimate (and that move has been
  expanded at least once);
* against "hysteria" (jumping between moves as the tree grows), every
  ``VOTE_EVERY`` expansions the move with the best realistic estimate gets a
  vote; when time runs out the most-voted move is played;
* a Syzygy hit is an exact estimate, ``o = r = p``: such a line has a zero
  fork and is never expanded again.  At the root, ``probe_root`` picks the
  move when the root itself is in the tables.

Run it as a UCI engine: ``python examples/centaur/engine.py``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Callable, Optional

import chess

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine_common import (  # noqa: E402
    INF, MATE, PIECE_VALUE, Abort, Limits, Quiescence, Tables, format_score,
    main, position_key, wdl_score,
)

BASE_MARGIN = 30
WIDE = 4
FORK_MIN = 20
VOTE_EVERY = 16
INFO_EVERY = 0.5          # seconds between info lines


class Node:
    __slots__ = ("move", "children", "o1", "r1", "p1", "o2", "r2", "p2", "exact")

    def __init__(self, move: Optional[chess.Move]) -> None:
        self.move = move
        self.children: Optional[list[Node]] = None
        self.exact = False

    def set_exact(self, v: int) -> None:
        self.o1 = self.r1 = self.p1 = self.o2 = self.r2 = self.p2 = v
        self.exact = True

    def back_up(self) -> None:
        """Negamax of the children's estimates (each from its side to move)."""
        ch = self.children
        assert ch
        self.o1 = max(-c.p1 for c in ch)
        self.p1 = max(-c.o1 for c in ch)
        self.r1 = max(-c.r1 for c in ch)
        self.o2 = max(-c.p2 for c in ch)
        self.p2 = max(-c.o2 for c in ch)
        self.r2 = max(-c.r2 for c in ch)
        self.exact = self.o1 == self.p1 and self.o2 == self.p2


class Centaur(Quiescence):
    name = "pyfathom-centaur"

    def __init__(self, tables: Optional[Tables] = None, probe_in_search: bool = True) -> None:
        self.tables = tables or Tables()
        self.probe_in_search = probe_in_search
        self.nodes = 0
        self.tbhits = 0

    def new_game(self) -> None:
        pass

    # ---- leaf estimates ---------------------------------------------------------

    def _estimate(self, node: Node, ply: int) -> None:
        """Give a new leaf (the position on ``self.board``) its two sets."""
        board = self.board
        self.nodes += 1
        hmc = board.halfmove_clock
        if hmc >= 100 or (hmc >= 4 and position_key(board) in self.keys[-hmc:]):
            node.set_exact(0)
            return
        tables = self.tables
        if (self.probe_in_search and tables.largest
                and board.occupied.bit_count() <= tables.largest
                and not board.castling_rights):
            wdl = tables.probe_wdl(board)
            if wdl is not None:
                self.tbhits += 1
                node.set_exact(wdl_score(wdl, ply))
                return
        in_check = board.is_check()
        if in_check and not any(board.generate_legal_moves()):
            node.set_exact(-MATE + ply)
            return
        if not in_check and board.is_stalemate():
            node.set_exact(0)
            return
        r = self.qsearch(-INF, INF, ply, 0)
        up, down = self._margins(board, in_check)
        node.r1 = node.r2 = r
        node.o1 = r + up
        node.p1 = r - down
        node.o2 = r + WIDE * up
        node.p2 = r - WIDE * down

    @staticmethod
    def _margins(board: chess.Board, in_check: bool) -> tuple[int, int]:
        """(optimistic, pessimistic) margins around the realistic estimate."""
        us = board.turn
        them = not us
        up = down = BASE_MARGIN
        if in_check:
            down += 80
        hanging = []
        ours = board.occupied_co[us] & ~board.pawns & ~board.kings
        for sq in chess.scan_forward(ours):
            attackers = board.attackers_mask(them, sq)
            if not attackers:
                continue
            value = PIECE_VALUE[board.piece_type_at(sq)]
            cheapest = min(PIECE_VALUE[board.piece_type_at(a)] or 10000
                           for a in chess.scan_forward(attackers))
            if cheapest < value or not board.is_attacked_by(us, sq):
                hanging.append(value)
        if hanging:
            hanging.sort(reverse=True)
            down += 10 * len(hanging) + (hanging[1] if len(hanging) > 1 else 0)
        theirs = board.occupied_co[them] & ~board.kings
        for sq in chess.scan_forward(theirs):
            if board.is_attacked_by(us, sq):
                up += 10
        return up, down

    # ---- the best-first loop ------------------------------------------------------

    def _check_limits(self) -> None:
        lim = self.limits
        if lim.expired() or (lim.nodes is not None and self.nodes >= lim.nodes):
            raise Abort

    def go(self, board: chess.Board, limits: Limits,
           send: Callable[[str], None] = lambda s: None,
           on_update: Optional[Callable[[chess.Move, int, bool], None]] = None,
           use_root_tables: bool = True) -> Optional[chess.Move]:
        """Search ``board`` within ``limits``; return the move to play.

        ``on_update(move, nodes, separated)`` is called whenever the move the
        engine would play if stopped now changes, and once at the end.
        """
        self.board = board
        self.limits = limits
        self.nodes = 0
        self.tbhits = 0
        legal = list(board.legal_moves)
        if not legal:
            return None
        if use_root_tables:
            found = self.tables.root_move(board)
            if found is not None:
                move, wdl, dtz = found
                score = wdl_score(wdl, 1) if wdl in (2, -2) else wdl
                send(f"info depth 1 score {format_score(score)} nodes 0 tbhits 1 "
                     f"pv {move.uci()} string probe_root wdl {wdl} dtz {dtz}")
                return move

        self.keys = _history_keys(board)
        root = Node(None)
        root.children = []
        self.keys.append(position_key(board))
        for move in legal:
            child = Node(move)
            board.push(move)
            try:
                self._estimate(child, 1)
            finally:
                board.pop()
            root.children.append(child)
        self.keys.pop()
        root.back_up()
        self.root = root
        votes: dict[chess.Move, int] = {}
        max_depth = limits.depth or 200
        iterations = 0
        choice = None
        separated = False
        last_info = time.monotonic()
        while True:
            separated_move = self._separated(root)
            if separated_move is not None or len(legal) == 1:
                choice = separated_move or legal[0]
                separated = True
                break
            if iterations % VOTE_EVERY == 0:
                best_r = max(root.children, key=lambda c: -c.r1).move
                votes[best_r] = votes.get(best_r, 0) + 1
            current = self._choice(votes)
            if current != choice:
                choice = current
                if on_update is not None:
                    on_update(choice, self.nodes, False)
            if limits.expired() or (limits.nodes is not None and self.nodes >= limits.nodes):
                break
            try:
                if not self._iterate(root, max_depth):
                    break                      # nothing left to expand
            except Abort:
                break
            iterations += 1
            now = time.monotonic()
            if now - last_info >= INFO_EVERY:
                last_info = now
                self._info(send)
        if not separated:
            choice = self._choice(votes)
        self._info(send)
        if on_update is not None:
            on_update(choice, self.nodes, separated)
        return choice

    def _choice(self, votes: dict) -> chess.Move:
        """The most-voted root move (ties: best realistic estimate)."""
        best = max(self.root.children, key=lambda c: (votes.get(c.move, 0), -c.r1))
        return best.move

    def _separated(self, root: Node) -> Optional[chess.Move]:
        """The root move whose pessimistic estimate reaches every other root
        move's optimistic one, once it has been expanded; else None.  (A
        root move's estimates from the root's side are ``-child.o`` ..
        ``-child.p``.)  An unexpanded candidate is expanded first."""
        ch = root.children
        best = max(ch, key=lambda c: (-c.o1, -c.r1))
        p_best = -best.o1
        if all(-c.p1 <= p_best for c in ch if c is not best):
            if best.children is not None or best.exact:
                return best.move
            self._force = best
        else:
            self._force = None
        return None

    def _iterate(self, root: Node, max_depth: int) -> bool:
        """Select the most optimistic line, expand its leaf, back up.
        Returns False when there is nothing expandable."""
        board = self.board
        path = [root]
        node = root
        pushed = 0
        try:
            forced = getattr(self, "_force", None)
            while node.children is not None:
                if forced is not None and node is root:
                    nxt = forced
                else:
                    nxt = self._select(node)
                if nxt is None:
                    return False
                self.keys.append(position_key(board))
                board.push(nxt.move)
                pushed += 1
                path.append(nxt)
                node = nxt
            if node.exact or len(path) - 1 >= max_depth:
                return False
            self._expand(node, len(path) - 1)
        finally:
            for _ in range(pushed):
                board.pop()
                self.keys.pop()
        for n in reversed(path):
            if n.children:
                n.back_up()
        return True

    @staticmethod
    def _select(node: Node) -> Optional[Node]:
        """The child with the highest optimistic estimate for the side to move
        at ``node``; the less likely set when the likely fork is small."""
        ch = node.children
        assert ch is not None
        wide = node.o1 - node.p1 < FORK_MIN
        if wide:
            cand = [c for c in ch if c.o2 != c.p2]
            if not cand:
                return None
            return max(cand, key=lambda c: (-c.p2, -c.r2))
        cand = [c for c in ch if c.o1 != c.p1]
        if not cand:
            return None
        return max(cand, key=lambda c: (-c.p1, -c.r1))

    def _expand(self, node: Node, ply: int) -> None:
        board = self.board
        moves = list(board.legal_moves)
        if not moves:                             # reached only from the root's replies
            node.set_exact(-MATE + ply if board.is_check() else 0)
            return
        children = []
        self.keys.append(position_key(board))
        try:
            for move in moves:
                child = Node(move)
                board.push(move)
                try:
                    self._estimate(child, ply + 1)
                finally:
                    board.pop()
                children.append(child)
        finally:
            self.keys.pop()
        node.children = children

    def _info(self, send: Callable[[str], None]) -> None:
        root = self.root
        best = max(root.children, key=lambda c: -c.r1)
        pv = []
        n: Optional[Node] = best
        while n is not None and len(pv) < 20:
            pv.append(n.move.uci())
            n = max(n.children, key=lambda c: -c.r1) if n.children else None
        elapsed = max(self.limits.elapsed(), 1e-3)
        send(f"info score {format_score(-best.r1)} nodes {self.nodes} "
             f"nps {int(self.nodes / elapsed)} time {int(elapsed * 1000)} "
             f"tbhits {self.tbhits} pv {' '.join(pv)}")


def _history_keys(board: chess.Board) -> list:
    """Keys of the game positions since the last irreversible move, oldest
    first, without the root."""
    b = board.copy()
    keys = []
    for _ in range(min(board.halfmove_clock, len(board.move_stack))):
        b.pop()
        keys.append(position_key(b))
    keys.reverse()
    return keys


if __name__ == "__main__":
    main(Centaur())
