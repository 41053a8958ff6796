"""Generated PGN games and a straightforward python-chess annotator, for
tests/test_annotate.py and benchmarks/bench_annotate.py.

The reference annotator probes every position of a game with
:mod:`chess.syzygy` (python-chess 1.11.2, the oracle) and applies the rules
of ``pyfathom annotate`` written out plainly here, independently of
:mod:`pyfathom.annotate`:

* a position's result for the side to move: checkmate is a loss; DTZ 0 a
  draw; else a win (loss) when ``|dtz| + halfmove clock <= 100``, a draw by
  the 50-move rule otherwise;
* a move is a mistake when the mover's result after it (the negated result
  of the next position) is worse than before it;
* it is ``??`` when it is worse whatever the DTZ rounding, ``?`` when a
  rounded DTZ exactly at the 50-move limit leaves doubt;
* the best move is the legal move with the best result, then the fastest
  win / slowest loss (DTZ counted from the position before the move), then,
  among draws, one where the opponent is only saved by the 50-move rule.

python-chess does not say which DTZ values are rounded, so the reference
takes that one bit from pyfathom's :attr:`pyfathom.Probe.dtz_precise`
(itself checked against every position's children in tests/test_core_c.py);
every number comes from python-chess.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import chess
import chess.pgn
import chess.syzygy

from support import positions

ENDGAME_KEYS_5 = ["KRPvKR", "KQvKRP", "KRNvKP", "KBNvKP", "KQPvKQ", "KRRvKB"]
"""5-piece starts: with 3-4-piece tables, such a game reaches the tables
only after a capture."""


def weak_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """A weak player's move: random, with a liking for captures."""
    moves = list(board.legal_moves)
    captures = [m for m in moves if board.is_capture(m)]
    if captures and rng.random() < 0.3:
        return rng.choice(captures)
    return rng.choice(moves)


def _start_board(rng: random.Random, keys: list[str], five_share: float) -> chess.Board:
    key = rng.choice(ENDGAME_KEYS_5) if rng.random() < five_share else rng.choice(keys)
    board = positions.random_position(rng, key)
    roll = rng.random()
    board.halfmove_clock = 0 if roll < 0.3 else rng.randint(60, 99) if roll < 0.7 else rng.randint(0, 99)
    board.fullmove_number = rng.randint(30, 70)
    return board


def generated_game(index: int, rng: random.Random, *, keys: Optional[list[str]] = None,
                   plies: tuple[int, int] = (4, 14), five_share: float = 0.15,
                   decorate: bool = True) -> chess.pgn.Game:
    """A game from a random endgame start (FEN setup, random halfmove
    clock) played by :func:`weak_move`, with lichess-like headers and, when
    ``decorate``, clock comments, NAGs and a variation here and there."""
    board = _start_board(rng, keys or positions.ALL_TABLES, five_share)
    game = chess.pgn.Game()
    game.headers.update({
        "Event": "Rated blitz game", "Site": f"https://example.org/g{index:07d}",
        "Date": "2026.11.30", "Round": str(index), "White": f"weak{rng.randint(1, 999)}",
        "Black": f"weak{rng.randint(1, 999)}", "Result": "*",
        "WhiteElo": str(rng.randint(800, 1500)), "BlackElo": str(rng.randint(800, 1500)),
        "TimeControl": "180+0", "Termination": "Normal",
    })
    game.setup(board)
    node: chess.pgn.GameNode = game
    seconds = 180
    for _ in range(rng.randint(*plies)):
        if board.is_game_over(claim_draw=False):
            break
        move = weak_move(board, rng)
        if decorate and node is not game and rng.random() < 0.1:
            alternative = weak_move(board, rng)
            if alternative != move:
                node.add_variation(alternative, comment="or this")
        node = node.add_main_variation(move)
        board.push(move)
        if decorate:
            seconds = max(seconds - rng.randint(0, 9), 0)
            node.comment = f"[%clk 0:{seconds // 60:02d}:{seconds % 60:02d}]"
            if rng.random() < 0.05:
                node.nags.add(rng.choice([chess.pgn.NAG_GOOD_MOVE, chess.pgn.NAG_SPECULATIVE_MOVE]))
    outcome = board.outcome(claim_draw=False)
    game.headers["Result"] = outcome.result() if outcome else "*"
    return game


def generated_pgn(n: int, seed: int, **kwargs: Any) -> str:
    """*n* :func:`generated_game` s as one PGN text."""
    rng = random.Random(seed)
    return "".join(str(generated_game(i + 1, rng, **kwargs)) + "\n\n" for i in range(n))


# ---- the reference annotator -------------------------------------------------------


def result_of(dtz: int, precise: bool, clock: int, mated: bool) -> tuple[int, bool]:
    """(result for the side to move: 1, 0, -1; whether rounding leaves doubt)."""
    if mated:
        return -1, False
    if dtz == 0:
        return 0, False
    if abs(dtz) + clock > 100:
        return 0, False
    return (1 if dtz > 0 else -1), (not precise and abs(dtz) + clock == 100)


@dataclass
class RefMistake:
    index: int            # 0-based mainline move index
    before: int
    after: int            # the mover's result after the move
    nag: int
    fifty: bool
    best_keys: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """SAN -> rank of every legal move (computed on request)."""
    best_dtz: int = 0
    best_on_edge: bool = False
    """|best_dtz| + clock == 100: the annotator's root probe may settle a
    rounded DTZ there one ply longer (tests/test_rule50_edge.py checks it)."""


@dataclass
class RefGame:
    first: int = -1       # index of the first position probed
    first_result: int = 0
    mistakes: list[RefMistake] = field(default_factory=list)


def _rank(result: int, dtz: int) -> tuple[int, int, int]:
    if result == 0:
        side = (dtz > 0) - (dtz < 0)
        return (0, side, -abs(dtz) if side > 0 else abs(dtz))
    return (result, 0, -dtz)


class ReferenceAnnotator:
    """The plain python-chess annotator (see the module docstring)."""

    def __init__(self, oracle: chess.syzygy.Tablebase, precise: Callable[[chess.Board], bool],
                 largest: int) -> None:
        self.oracle = oracle
        self.precise = precise
        self.largest = largest

    def _covered(self, board: chess.Board) -> bool:
        return not board.castling_rights and chess.popcount(board.occupied) <= self.largest

    def _position(self, board: chess.Board) -> Optional[tuple[int, bool, bool, int]]:
        """(result, doubt, fifty, dtz) or None where a table is missing."""
        try:
            dtz = self.oracle.probe_dtz(board)
        except KeyError:
            return None
        mated = board.is_checkmate()
        result, doubt = result_of(dtz, self.precise(board), board.halfmove_clock, mated)
        fifty = result == 0 and dtz != 0
        return result, doubt, fifty, dtz

    def move_ranks(self, board: chess.Board) -> tuple[dict[str, tuple[int, int, int]], dict[str, int]]:
        """Every legal move's rank and DTZ (from the mover's side)."""
        ranks: dict[str, tuple[int, int, int]] = {}
        dtzs: dict[str, int] = {}
        for move in list(board.legal_moves):
            san = board.san(move)
            zeroing = board.is_zeroing(move)
            board.push(move)
            try:
                child_dtz = self.oracle.probe_dtz(board)
                mated = board.is_checkmate()
                result, _ = result_of(child_dtz, True, board.halfmove_clock, mated)
            except KeyError:  # a missing table: not a candidate
                continue
            finally:
                board.pop()
            if mated:
                dtz = 1
            elif child_dtz == 0:
                dtz = 0
            elif zeroing:
                size = 1 if abs(child_dtz) <= 100 else 101
                dtz = size if child_dtz < 0 else -size
            else:
                dtz = -child_dtz + 1 if child_dtz < 0 else -child_dtz - 1
            ranks[san] = _rank(-result, dtz)
            dtzs[san] = dtz
        return ranks, dtzs

    def annotate(self, game: chess.pgn.Game, with_best: bool = True) -> RefGame:
        out = RefGame()
        board = game.board()
        moves = list(game.mainline_moves())
        positions_: list[Optional[tuple[int, bool, bool, int]]] = []
        boards: list[chess.Board] = []
        first = -1
        for index in range(len(moves) + 1):
            if first < 0 and self._covered(board):
                first = index
            if first >= 0:
                positions_.append(self._position(board))
                boards.append(board.copy(stack=False))
            if index < len(moves):
                board.push(moves[index])
        if first < 0:
            return out
        probed = [i for i, p in enumerate(positions_) if p is not None]
        if not probed:
            return out
        out.first = first + probed[0]
        out.first_result = positions_[probed[0]][0]  # type: ignore[index]
        for offset in range(probed[0], len(positions_) - 1):
            before, after = positions_[offset], positions_[offset + 1]
            if before is None or after is None or -after[0] >= before[0]:
                continue
            lo_before = before[0] - 1 if before[1] and before[0] == 1 else before[0]
            # The mover's best case after the move: the opponent's worst.
            hi_after = -(after[0] - 1 if after[1] and after[0] == 1 else after[0])
            nag = chess.pgn.NAG_BLUNDER if hi_after < lo_before else chess.pgn.NAG_MISTAKE
            mistake = RefMistake(first + offset, before[0], -after[0], nag, before[2] or after[2])
            if with_best:
                ranks, dtzs = self.move_ranks(boards[offset])
                mistake.best_keys = ranks
                best = max(ranks.values())
                mistake.best_dtz = next(dtzs[s] for s, k in ranks.items() if k == best)
                mistake.best_on_edge = abs(mistake.best_dtz) + boards[offset].halfmove_clock == 100
            out.mistakes.append(mistake)
        return out


def read_games(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    games = []
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            return games
        games.append(game)


def full_game(index: int, rng: random.Random, *, tail: tuple[int, int] = (6, 30),
              max_plies: int = 220) -> chess.pgn.Game:
    """A whole game from the standard start, lichess-like (headers, a clock
    comment on every move), played by a mover that captures whenever it can
    so that most games reach few pieces; it goes on for ``tail`` plies once
    at most five pieces are left."""
    board = chess.Board()
    game = chess.pgn.Game()
    game.headers.update({
        "Event": "Rated blitz game", "Site": f"https://example.org/f{index:07d}",
        "Date": "2026.11.30", "Round": "-", "White": f"player{rng.randint(1, 9999)}",
        "Black": f"player{rng.randint(1, 9999)}", "Result": "*",
        "WhiteElo": str(rng.randint(800, 2500)), "BlackElo": str(rng.randint(800, 2500)),
        "TimeControl": "180+2", "ECO": "A00", "Termination": "Normal",
    })
    node: chess.pgn.GameNode = game
    seconds = [180, 180]
    left = -1
    for _ in range(max_plies):
        if board.is_game_over(claim_draw=False) or left == 0:
            break
        moves = list(board.legal_moves)
        captures = [m for m in moves if board.is_capture(m)]
        move = rng.choice(captures) if captures and rng.random() < 0.9 else rng.choice(moves)
        node = node.add_main_variation(move)
        side = int(board.turn)
        board.push(move)
        seconds[side] = max(seconds[side] - rng.randint(0, 6) + 2, 1)
        node.comment = f"[%clk 0:{seconds[side] // 60:02d}:{seconds[side] % 60:02d}]"
        if left > 0:
            left -= 1
        elif left < 0 and chess.popcount(board.occupied) <= 5:
            left = rng.randint(*tail)
    outcome = board.outcome(claim_draw=False)
    game.headers["Result"] = outcome.result() if outcome else "*"
    return game
