"""Shared pieces of the two example engines: evaluation, tablebase access, UCI.

Both engines (``alphabeta/engine.py`` and ``centaur/engine.py``) import this
module; it holds nothing specific to one search.

Tablebase integration, as an engine should do it with pyfathom:

* **inside the search**, at node entry: when the position has at most
  ``largest`` pieces and no castling rights, call the Fathom-style
  :func:`pyfathom.fathom.tb_probe_wdl` on the board's own bitboards (one
  foreign call, no FEN, no board copy).  An answer is exact: return it.
* **at the root**, when the root itself is in the tables: one
  :meth:`pyfathom.Tablebase.probe_root` picks the move actually played
  (DTZ-optimal, aware of the 50-move clock), so a won ending is converted.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, Optional

import chess

# ---- scores ----------------------------------------------------------------

MATE = 32000
"""Score of mate on the board (minus the ply it happens at)."""
MATE_BOUND = MATE - 1000
"""Scores above this are mates."""
TB_WIN = 30000
"""A tablebase win at ply p scores TB_WIN - p: below any mate found by search,
above any evaluation."""
TB_BOUND = TB_WIN - 1000
INF = 100000

PIECE_VALUE = (0, 100, 320, 330, 500, 900, 0)   # indexed by chess.PAWN .. chess.KING
PHASE_WEIGHT = (0, 0, 1, 1, 2, 4, 0)
MAX_PHASE = 24


# ---- piece-square tables (computed from simple rules, white's point of view) --

def _centre(sq: int) -> float:
    """0 on the four centre squares up to 3 in a corner (Chebyshev rings)."""
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return max(abs(f - 3.5), abs(r - 3.5)) - 0.5


def _build_pst() -> tuple[list[list[int]], list[list[int]]]:
    mg = [[0] * 64 for _ in range(7)]
    eg = [[0] * 64 for _ in range(7)]
    for sq in range(64):
        f, r = chess.square_file(sq), chess.square_rank(sq)
        c = _centre(sq)
        central_file = 3 - abs(f - 3.5) + 0.5          # 0.5 (a/h) .. 3.5 (d/e)
        # pawns: advance; central pawns matter in the middlegame, every passer later
        if 1 <= r <= 6:
            mg[chess.PAWN][sq] = int((r - 1) * 4 + (central_file * 6 if r >= 3 else 0))
            eg[chess.PAWN][sq] = int((r - 1) * (r - 1) * 4 + (r - 1) * 6)
        mg[chess.KNIGHT][sq] = int(15 - 10 * c)
        eg[chess.KNIGHT][sq] = int(10 - 8 * c)
        mg[chess.BISHOP][sq] = int(8 - 5 * c)
        eg[chess.BISHOP][sq] = int(6 - 4 * c)
        mg[chess.ROOK][sq] = 12 if r == 6 else (4 if 2 <= f <= 5 else 0)
        eg[chess.ROOK][sq] = 8 if r == 6 else 0
        mg[chess.QUEEN][sq] = int(4 - 3 * c)
        eg[chess.QUEEN][sq] = int(8 - 5 * c)
        # king: hide on the back rank in the middlegame, centralise in the ending
        mg[chess.KING][sq] = int(20 - 12 * r + (10 if f in (1, 2, 6) else 0))
        eg[chess.KING][sq] = int(30 - 14 * c)
    return mg, eg


PST_MG, PST_EG = _build_pst()


def _manhattan(a: int, b: int) -> int:
    return (abs(chess.square_file(a) - chess.square_file(b))
            + abs(chess.square_rank(a) - chess.square_rank(b)))


_LIGHT_CORNERS = (chess.H1, chess.A8)
_DARK_CORNERS = (chess.A1, chess.H8)


def _mop_up(board: chess.Board, strong: chess.Color) -> int:
    """Bonus for the side with a bare enemy king: drive it to the edge (to the
    bishop's corner with K+B+N) and bring the own king close."""
    wk = board.king(strong)
    lk = board.king(not strong)
    if wk is None or lk is None:
        return 0
    bonus = int(20 * _centre(lk)) + 6 * (14 - _manhattan(wk, lk))
    bishops = board.bishops & board.occupied_co[strong]
    if bishops and board.knights & board.occupied_co[strong] and not (
            board.queens | board.rooks | board.pawns):
        light = bool(bishops & chess.BB_LIGHT_SQUARES)
        corners = _LIGHT_CORNERS if light else _DARK_CORNERS
        bonus += 12 * (14 - min(_manhattan(lk, c) for c in corners))
    return bonus


def evaluate(board: chess.Board) -> int:
    """Material + piece-square tables tapered by game phase, plus a mop-up
    term when one side has a bare king.  From the side to move."""
    occ_w = board.occupied_co[chess.WHITE]
    occ_b = board.occupied_co[chess.BLACK]
    if (occ_w | occ_b).bit_count() <= 3 and not (board.pawns | board.rooks | board.queens):
        return 0                                   # K v K, KB v K, KN v K
    mg = eg = 0
    phase = 0
    material = [0, 0]
    for pt, bb in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights),
                   (chess.BISHOP, board.bishops), (chess.ROOK, board.rooks),
                   (chess.QUEEN, board.queens), (chess.KING, board.kings)):
        if not bb:
            continue
        value = PIECE_VALUE[pt]
        tmg = PST_MG[pt]
        teg = PST_EG[pt]
        w = bb & occ_w
        b = bb & occ_b
        nw = w.bit_count()
        nb = b.bit_count()
        phase += PHASE_WEIGHT[pt] * (nw + nb)
        material[0] += value * nw
        material[1] += value * nb
        for sq in chess.scan_forward(w):
            mg += tmg[sq]
            eg += teg[sq]
        for sq in chess.scan_forward(b):
            m = sq ^ 56                                # mirror the rank
            mg -= tmg[m]
            eg -= teg[m]
    phase = min(phase, MAX_PHASE)
    score = material[0] - material[1] + (mg * phase + eg * (MAX_PHASE - phase)) // MAX_PHASE
    if not occ_b & ~board.kings and material[0] >= 300:
        score += _mop_up(board, chess.WHITE)
    elif not occ_w & ~board.kings and material[1] >= 300:
        score -= _mop_up(board, chess.BLACK)
    return score if board.turn else -score


def position_key(board: chess.Board) -> tuple:
    """A cheap hashable key of the position (repetitions, transposition table)."""
    return (board.occupied_co[0], board.occupied_co[1], board.pawns, board.knights,
            board.bishops, board.rooks, board.queens, board.turn,
            board.castling_rights, board.ep_square)


def capture_value(board: chess.Board, move: chess.Move) -> int:
    """MVV-LVA key of a capture or promotion (higher first)."""
    victim = board.piece_type_at(move.to_square)
    if victim is None:
        victim = chess.PAWN if board.is_en_passant(move) else 0
    attacker = board.piece_type_at(move.from_square) or 0
    return PIECE_VALUE[victim] * 10 - attacker + (PIECE_VALUE[move.promotion] * 10
                                                   if move.promotion else 0)


# ---- quiescence search (shared by both engines) ---------------------------------

QS_MAX_PLY = 12


class Abort(Exception):
    """Raised inside a search when time, nodes or ``stop`` run out."""


class Quiescence:
    """Capture (and queen promotion) search from a stand-pat evaluation; check
    evasions are searched in full for the first plies.  Needs ``self.board``,
    ``self.nodes`` and ``self._check_limits()``."""

    board: chess.Board
    nodes: int

    def _check_limits(self) -> None:  # pragma: no cover - overridden
        pass

    def qsearch(self, alpha: int, beta: int, ply: int, qply: int) -> int:
        board = self.board
        self.nodes += 1
        if not self.nodes & 255:
            self._check_limits()
        in_check = board.is_check()
        if in_check and qply < 4:
            moves = list(board.legal_moves)
            if not moves:
                return -MATE + ply
            best = -INF
        else:
            stand = evaluate(board)
            if stand >= beta or qply >= QS_MAX_PLY:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            moves = [m for m in board.generate_legal_captures()]
            moves += [m for m in board.generate_legal_moves(
                chess.BB_ALL, chess.BB_RANK_1 | chess.BB_RANK_8)
                if m.promotion == chess.QUEEN and not board.is_capture(m)]
            if not moves:
                return stand
            moves.sort(key=lambda m: capture_value(board, m), reverse=True)
        for move in moves:
            board.push(move)
            try:
                score = -self.qsearch(-beta, -alpha, ply + 1, qply + 1)
            finally:
                board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best



# ---- tablebases --------------------------------------------------------------

class Tables:
    """The engine's view of the tablebases: a per-node WDL probe and a root probe.

    ``probe_wdl(board)`` returns a python-chess WDL number (-2..2) or None.
    It uses :func:`pyfathom.fathom.tb_probe_wdl` (Fathom's call, process-wide
    default instance) on python-chess's bitboards; ``probe_root`` uses a
    :class:`pyfathom.Tablebase` over the same directories.
    """

    def __init__(self) -> None:
        self.largest = 0
        self.path = ""
        self.root_tb = None
        self._probe = None
        self._failed = 0

    def set_path(self, path: str) -> int:
        """Load the tables of a path list (``os.pathsep``-separated); an empty
        path or ``<empty>`` unloads them.  Returns ``largest``."""
        from pyfathom import fathom
        import pyfathom

        self.close()
        path = path.strip()
        if not path or path == "<empty>":
            return 0
        dirs = [d for d in path.split(os.pathsep) if d and os.path.isdir(d)]
        if not dirs:
            return 0
        if not fathom.tb_init(os.pathsep.join(dirs)):
            return 0
        self.root_tb = pyfathom.open_tablebase(dirs)
        self._probe = fathom.tb_probe_wdl
        self._failed = fathom.TB_RESULT_FAILED
        self.largest = fathom.largest()
        self.path = path
        return self.largest

    def close(self) -> None:
        if self.root_tb is not None:
            from pyfathom import fathom

            self.root_tb.close()
            self.root_tb = None
            fathom.tb_free()
        self.largest = 0
        self._probe = None

    def probe_wdl(self, board: chess.Board) -> Optional[int]:
        """WDL (-2..2, side to move) or None; the caller has checked the piece
        count and castling rights.  The 50-move counter is passed as 0 (the
        WDL with a fresh clock), which Fathom's call requires."""
        occ = board.occupied_co
        r = self._probe(occ[1], occ[0], board.kings, board.queens, board.rooks,  # type: ignore[misc]
                        board.bishops, board.knights, board.pawns, 0, 0,
                        board.ep_square or 0, board.turn)
        if r == self._failed:
            return None
        return r - 2

    def root_move(self, board: chess.Board):
        """``(move, wdl, dtz)`` from probe_root, or None when the root is not
        in the tables (too many pieces, castling rights, missing table)."""
        if (self.root_tb is None or board.castling_rights
                or chess.popcount(board.occupied) > self.largest):
            return None
        try:
            root = self.root_tb.probe_root(board)
        except KeyError:
            return None
        if root.best_move is None:
            return None
        best = root.moves[0]
        return best.move, int(best.wdl), best.dtz


def wdl_score(wdl: int, ply: int) -> int:
    """Search score of an exact tablebase WDL at ``ply``: wins and losses just
    inside the mate range, cursed wins / blessed losses as +-1 (draws under
    the 50-move rule, but not equal to a dead draw)."""
    if wdl == 2:
        return TB_WIN - ply
    if wdl == -2:
        return -TB_WIN + ply
    return wdl if wdl else 0       # cursed +1, blessed -1, draw 0


# ---- UCI ---------------------------------------------------------------------

class Limits:
    """What a ``go`` command asked for; the search calls :meth:`expired`."""

    def __init__(self) -> None:
        self.depth: Optional[int] = None
        self.nodes: Optional[int] = None
        self.movetime: Optional[float] = None
        self.infinite = False
        self.start = time.monotonic()
        self.deadline: Optional[float] = None
        self.stop = threading.Event()

    def set_clock(self, board: chess.Board, tokens: dict[str, int]) -> None:
        if self.movetime is not None:
            self.deadline = self.start + self.movetime
            return
        left = tokens.get("wtime" if board.turn else "btime")
        if left is None or self.infinite:
            return
        inc = tokens.get("winc" if board.turn else "binc", 0)
        togo = tokens.get("movestogo", 30) or 30
        budget = left / max(togo, 2) + inc * 0.75
        budget = min(budget, left * 0.4) - 30        # keep a margin for Python
        self.deadline = self.start + max(budget, 10) / 1000.0

    def expired(self) -> bool:
        return self.stop.is_set() or (
            self.deadline is not None and time.monotonic() >= self.deadline)

    def elapsed(self) -> float:
        return time.monotonic() - self.start


def format_score(score: int) -> str:
    if score > MATE_BOUND:
        return f"mate {(MATE - score + 1) // 2}"
    if score < -MATE_BOUND:
        return f"mate -{(MATE + score + 1) // 2}"
    return f"cp {score}"


SearchFn = Callable[[chess.Board, Limits, Callable[[str], None]], Optional[chess.Move]]


class UciLoop:
    """A UCI front end: reads commands, runs ``engine.go`` in a thread.

    ``engine`` provides ``name``, ``tables`` (a :class:`Tables`),
    ``new_game()`` and ``go(board, limits, send) -> move``.
    """

    def __init__(self, engine, out=sys.stdout, inp=sys.stdin) -> None:
        self.engine = engine
        self.out = out
        self.inp = inp
        self.board = chess.Board()
        self.lock = threading.Lock()
        self.thread: Optional[threading.Thread] = None
        self.limits: Optional[Limits] = None

    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def wait(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None

    def stop(self) -> None:
        if self.limits is not None:
            self.limits.stop.set()
        self.wait()

    def run(self) -> None:
        for line in self.inp:
            if not self.handle(line.strip()):
                break
        self.stop()

    def handle(self, line: str) -> bool:
        parts = line.split()
        if not parts:
            return True
        cmd = parts[0]
        if cmd == "uci":
            self.send(f"id name {self.engine.name}")
            self.send("id author pyfathom examples")
            self.send("option name SyzygyPath type string default <empty>")
            self.send("uciok")
        elif cmd == "isready":
            self.send("readyok")
        elif cmd == "setoption":
            self.wait()
            self.set_option(line)
        elif cmd == "ucinewgame":
            self.wait()
            self.engine.new_game()
        elif cmd == "position":
            self.wait()
            self.set_position(parts[1:])
        elif cmd == "go":
            self.wait()
            self.go(parts[1:])
        elif cmd == "stop":
            self.stop()
        elif cmd == "quit":
            return False
        elif cmd == "d":
            self.send(str(self.board))
            self.send(self.board.fen())
        return True

    def set_option(self, line: str) -> None:
        # setoption name <name with spaces> [value <value with spaces>]
        tokens = line.split()
        if len(tokens) < 3 or tokens[1] != "name":
            return
        rest = tokens[2:]
        if "value" in rest:
            i = rest.index("value")
            name, value = " ".join(rest[:i]), line.split(" value", 1)[1].strip()
        else:
            name, value = " ".join(rest), ""
        if name.lower() == "syzygypath":
            largest = self.engine.tables.set_path(value)
            self.send(f"info string SyzygyPath {value or '<empty>'}: largest {largest}")

    def set_position(self, args: list[str]) -> None:
        if not args:
            return
        if args[0] == "startpos":
            board = chess.Board()
            rest = args[1:]
        elif args[0] == "fen":
            fen_parts = []
            rest = args[1:]
            while rest and rest[0] != "moves":
                fen_parts.append(rest.pop(0))
            try:
                board = chess.Board(" ".join(fen_parts))
            except ValueError:
                self.send("info string invalid fen")
                return
        else:
            return
        if rest and rest[0] == "moves":
            for uci in rest[1:]:
                try:
                    board.push_uci(uci)
                except ValueError:
                    self.send(f"info string illegal move {uci}")
                    break
        self.board = board

    def go(self, args: list[str]) -> None:
        limits = Limits()
        tokens: dict[str, int] = {}
        i = 0
        while i < len(args):
            key = args[i]
            if key == "infinite":
                limits.infinite = True
                i += 1
                continue
            if i + 1 < len(args):
                try:
                    tokens[key] = int(args[i + 1])
                except ValueError:
                    pass
            i += 2
        if "depth" in tokens:
            limits.depth = max(1, tokens["depth"])
        if "nodes" in tokens:
            limits.nodes = max(1, tokens["nodes"])
        if "movetime" in tokens:
            limits.movetime = max(1, tokens["movetime"]) / 1000.0
        limits.set_clock(self.board, tokens)
        self.limits = limits
        board = self.board.copy()

        def work() -> None:
            try:
                move = self.engine.go(board, limits, self.send)
            except Exception as exc:                   # report, never hang the GUI
                self.send(f"info string error {type(exc).__name__}: {exc}")
                move = next(iter(board.legal_moves), None)
            self.send(f"bestmove {move.uci() if move else '0000'}")

        self.thread = threading.Thread(target=work, daemon=True)
        self.thread.start()


def main(engine) -> None:
    """Run ``engine`` as a UCI engine on stdin/stdout.  ``SYZYGY_PATH`` in the
    environment preloads the tables (``setoption`` overrides it)."""
    env = os.environ.get("SYZYGY_PATH")
    if env:
        engine.tables.set_path(env)
    UciLoop(engine).run()
