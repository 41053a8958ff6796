"""Wins at the 50-move edge: playouts from won positions whose halfmove
clock is 60..99, both sides following ``probe_root``'s ``best_move``.

A start is *certain* when its win fits in the clock even if its DTZ, stored
rounded to moves, is one ply short (``dtz + clock + (not precise) <= 100``):
every certain start must reach mate or a capture/pawn move that keeps the
win (checked with python-chess at the reset clock) before a 50-move draw.

The other starts (a rounded DTZ exactly at the limit) are won or drawn
depending on the ply the rounding hides; the core settles such root moves by
a search bounded by a budget of work.  :class:`ConversionSearch`
answers the same question independently, by brute force over python-chess's
``chess.syzygy`` and legal moves: on a seeded sample of the uncertain
starts, a start it proves convertible must be converted, and one it proves
not must end in a 50-move draw (the loser finds the escape); the chosen
first move must convert whenever the start does.  Starts whose first root
probe the core's budget leaves open (it says so) are counted apart; at
least half of the 3-4-piece sample must be settled, three of the eight
5-piece starts (SETTLED_SHARE_5 says why).

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

from support.positions import ALL_TABLES, random_position


# Every 3-4-piece table with wins that last long enough (KQPvK and KQvKP
# give positions whose quickest wins tie between an exact and a rounded DTZ:
# the case a root choice blind to rounding gets wrong at the limit).
TABLES_34 = [key for key in ALL_TABLES if key not in ("KBvK", "KNvK", "KBvKB", "KBvKN",
                                                     "KNvKN", "KNNvK", "KQvKQ")]
TABLES_5 = ["KBBvKN", "KRPvKR", "KBBBvK"]
STARTS_PER_TABLE_34 = 16  # 28 tables: 448
STARTS_PER_TABLE_5 = 40   # 120
MAX_PLIES = 120
# Uncertain starts checked against ConversionSearch (python-chess is slow).
SAMPLE_34 = 24
SAMPLE_5 = 8
# The 8 sampled 5-piece starts (all KBBBvK) need 886, 1,652, 3,028, 4,004,
# 4,450, 11,417, 12,451 and 196,047 units of the core's work budget
# (EDGE_WORK_BUDGET, tb_probe.c) to settle; its 3,072, the most that keeps
# every root probe of benchmarks/bench_root.py under 5 ms, settles three
# (4,096 settled four, with calls up to 7 ms).  Half is still asked of the
# 3-4-piece sample (14 of 24 settle).
SETTLED_SHARE_5 = 3 / 8


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


def left_open(tb: Any, board: chess.Board) -> bool:
    """The root probe of *board* leaves a move on the edge unsettled: the
    core's search ran out of its budget of work there, so the move
    keeps its rounded DTZ and the playout need not match the oracle."""
    return any(m.unsettled for m in tb.probe_root(board).moves)


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


class ConversionSearch:
    """Can the winner force, within k plies and whatever the loser does, a
    mate or a zeroing move that leaves an unconditional win (for a zeroing
    move of the loser: leaves it lost)?  Brute force over python-chess's
    legal moves and probes, written apart from the core's search: a
    position's DTZ d prunes it (python-chess does not say which DTZ are
    rounded, so only ``d + 1 <= k``, sure either way, and ``d > k``);
    otherwise every move is tried.  Memoised per position and k; gives up
    (:class:`Undecided`) after *max_nodes* searched positions."""

    class Undecided(Exception):
        pass

    def __init__(self, oracle: chess.syzygy.Tablebase, max_nodes: int = 4000) -> None:
        self.oracle = oracle
        self.max_nodes = max_nodes
        self.nodes = 0
        self.memo: dict[tuple[str, int], bool] = {}

    def converts(self, board: chess.Board, winner_to_move: bool, k: int) -> bool:
        self.nodes = 0
        return self._converts(board.copy(stack=False), winner_to_move, k)

    def _converts(self, board: chess.Board, winner_to_move: bool, k: int) -> bool:
        if k < 1:
            return False
        key = (board.epd(), k)
        if key in self.memo:
            return self.memo[key]
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise self.Undecided(board.fen())
        d = self.oracle.probe_dtz(board)
        plies = d if winner_to_move else -d
        if plies <= 0 or plies > 100 or plies > k:
            result = False
        elif plies + 1 <= k:
            result = True
        else:
            result = not winner_to_move  # loser: all moves must lose in time
            for move in list(board.legal_moves):
                zeroing = board.is_zeroing(move)
                board.push(move)
                try:
                    if zeroing:
                        r = self.oracle.probe_wdl(board) == (-2 if winner_to_move else 2)
                    elif winner_to_move and board.is_checkmate():
                        r = True
                    else:
                        r = self._converts(board, not winner_to_move, k - 1)
                finally:
                    board.pop()
                if r == winner_to_move:
                    result = r
                    break
        self.memo[key] = result
        return result


def play_line(tb: Any, oracle: chess.syzygy.Tablebase, start: chess.Board,
              choose: Callable[[chess.Board], chess.Move | None] | None = None,
              to_mate: bool = False) -> tuple[str, chess.Board]:
    """:func:`play_out`'s outcome and the final board; *to_mate*: play on
    past a zeroing move that keeps the win, until mate or a draw."""
    choose = choose or python_choice(tb)
    board = start.copy()
    winner = board.turn if tb.probe_wdl(board) > 0 else not board.turn
    for _ in range(MAX_PLIES * (3 if to_mate else 1)):
        if board.is_checkmate():
            return ("kept" if board.turn != winner else "winner mated"), board
        if board.is_stalemate() or board.is_insufficient_material():
            return "draw", board
        if board.halfmove_clock >= 100:
            return "50-move draw", board
        if board.move_stack and board.halfmove_clock == 0:
            wdl = oracle.probe_wdl(board)
            won = wdl == (2 if board.turn == winner else -2)
            if not won or not to_mate:
                return ("kept" if won else f"zeroed into wdl {wdl} for the side to move"), board
        move = choose(board)
        if move is None or not board.is_legal(move):
            return f"no legal best move ({move})", board
        board.push(move)
    return f"nothing after {MAX_PLIES} plies", board


def play_out(tb: Any, oracle: chess.syzygy.Tablebase, start: chess.Board,
             choose: Callable[[chess.Board], chess.Move | None] | None = None) -> str:
    """'kept' if the winner mates or zeroes with the win intact; else why not.
    Both sides play *choose*'s move (default: probe_root's best_move)."""
    return play_line(tb, oracle, start, choose)[0]


# Verdicts of ConversionSearch by start FEN, shared by the Python and the
# facade runs over the same starts (None: undecided within its budget).
_TRUTH: dict[str, bool | None] = {}


def _truth(search: ConversionSearch, start: chess.Board) -> bool | None:
    fen = start.fen()
    if fen not in _TRUTH:
        try:
            _TRUTH[fen] = search.converts(start, True, 100 - start.halfmove_clock)
        except ConversionSearch.Undecided:
            _TRUTH[fen] = None
    return _TRUTH[fen]


def _run(tb: Any, oracle: chess.syzygy.Tablebase, starts: list[tuple[chess.Board, bool]],
         choose: Callable[[chess.Board], chess.Move | None] | None = None,
         sample: int = 0, seed: str = "",
         settled_share: float = 0.5) -> tuple[list[str], int, int, str]:
    """Play every start out.  Failures: a certain start not converted, and
    among *sample* uncertain starts (seeded) one whose outcome or first move
    disagrees with ConversionSearch, or fewer than *settled_share* of them
    settled by the core.  Also returns the number of uncertain starts, how
    many were converted, and a summary of the oracle check."""
    failures: list[str] = []
    uncertain_starts = [b for b, certain in starts if not certain]
    checked = set(random.Random(seed).sample(range(len(uncertain_starts)),
                                             min(sample, len(uncertain_starts))))
    search = ConversionSearch(oracle)
    choice = choose or python_choice(tb)
    kept = proven = refuted = undecided = budget = 0
    n_uncertain = 0
    for start, certain in starts:
        outcome = play_out(tb, oracle, start, choose)
        if certain:
            if outcome != "kept":
                failures.append(f"{start.fen()}: {outcome}")
            continue
        kept += outcome == "kept"
        n_uncertain += 1
        if n_uncertain - 1 not in checked:
            continue
        if left_open(tb, start):
            budget += 1
            continue
        truth = _truth(search, start)
        if truth is None:
            undecided += 1
            continue
        proven += truth
        refuted += not truth
        expected = "kept" if truth else "50-move draw"
        if outcome != expected:
            failures.append(f"{start.fen()}: {outcome}, but the oracle search says "
                            f"{'it converts' if truth else 'it cannot convert'} in time")
        elif truth:
            move = choice(start)
            child = start.copy(stack=False)
            assert move is not None
            child.push(move)
            k = 100 - child.halfmove_clock if child.halfmove_clock else 0
            try:
                ok = not child.halfmove_clock or search.converts(child, False, k)
            except ConversionSearch.Undecided:
                ok = True  # the playout converted: the oracle just ran out of budget
                undecided += 1
            if not ok:
                failures.append(f"{start.fen()}: first move {move} does not convert in time")
    summary = (f"oracle on {len(checked)} sampled: {proven} convertible (all converted), "
               f"{refuted} not (all drawn), {undecided} undecided; {budget} left open "
               f"by the core's budget")
    # The budget (counted in work: deterministic) must leave at least
    # settled_share of the sample settled, or the check is empty.
    if len(checked) - budget < settled_share * len(checked):
        failures.append(f"the core's search left {budget} of {len(checked)} sampled starts open")
    return failures, len(uncertain_starts), kept, summary


def test_certain_wins_kept_near_the_limit_3_4_pieces(tablebase: Any, oracle: chess.syzygy.Tablebase) -> None:
    starts = edge_starts(tablebase, TABLES_34, STARTS_PER_TABLE_34, "edge34")
    assert len(starts) >= 400
    assert all(60 <= b.halfmove_clock <= 99 for b, _ in starts)
    failures, uncertain, kept, summary = _run(tablebase, oracle, starts,
                                              sample=SAMPLE_34, seed="oracle34")
    print(f"3-4 pieces: {len(starts)} starts, {len(starts) - uncertain} certain, "
          f"{uncertain} uncertain of which {kept} kept; {summary}")
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


@pytest.mark.parametrize("via", ["probe_root", "tb_probe_root"])
def test_certain_wins_kept_near_the_limit_5_pieces(syzygy_dir: Path, syzygy5_dir: Path,
                                                    via: str) -> None:
    import pyfathom
    from pyfathom import fathom as f

    dirs = [str(syzygy_dir), str(syzygy5_dir)]
    with pyfathom.open_tablebase(dirs) as tb, chess.syzygy.open_tablebase(dirs[0]) as oracle:
        oracle.add_directory(dirs[1])
        starts = edge_starts(tb, TABLES_5, STARTS_PER_TABLE_5, "edge5")
        assert len(starts) >= 100
        if via == "tb_probe_root":
            assert f.tb_init(os.pathsep.join(dirs)) and f.TB_LARGEST == 5
        try:
            failures, uncertain, kept, summary = _run(
                tb, oracle, starts, fathom_choice if via == "tb_probe_root" else None,
                sample=SAMPLE_5, seed="oracle5", settled_share=SETTLED_SHARE_5)
        finally:
            f.tb_free()
    print(f"5 pieces via {via}: {len(starts)} starts, {len(starts) - uncertain} certain, "
          f"{uncertain} uncertain of which {kept} kept; {summary}")
    assert not failures, f"{len(failures)} certain wins lost:\n" + "\n".join(failures[:20])


def test_certain_wins_kept_through_the_fathom_facade(tablebase: Any, syzygy_dir: Path,
                                                     oracle: chess.syzygy.Tablebase) -> None:
    """The same 3-4-piece starts, both sides playing the C facade's
    tb_probe_root, which engines call."""
    from pyfathom import fathom as f

    starts = edge_starts(tablebase, TABLES_34, STARTS_PER_TABLE_34, "edge34")
    assert f.tb_init(str(syzygy_dir))
    try:
        failures, uncertain, kept, summary = _run(tablebase, oracle, starts, fathom_choice,
                                                  sample=SAMPLE_34, seed="oracle34")
    finally:
        f.tb_free()
    print(f"3-4 pieces via tb_probe_root: {len(starts)} starts, {len(starts) - uncertain} "
          f"certain, {uncertain} uncertain of which {kept} kept; {summary}")
    assert not failures, f"{len(failures)} certain wins lost:\n" + "\n".join(failures[:20])


# The issue's example: Fathom's line from here ends in mate, the core's (before
# its search at the edge) in a 50-move draw.  Its DTZ, -10 rounded, is really
# -11: with 10 plies left Black cannot force mate, so a draw is right and
# Fathom's mate came from a White move that gave the win back in time.
EXAMPLE = "8/K7/6b1/8/6kq/8/8/8 w - - 90 1"


@pytest.mark.parametrize("via", ["probe_root", "tb_probe_root"])
def test_issue_example(tablebase: Any, oracle: chess.syzygy.Tablebase, syzygy_dir: Path,
                       via: str) -> None:
    from pyfathom import fathom as f

    search = ConversionSearch(oracle, max_nodes=20_000)
    start = chess.Board(EXAMPLE)
    earlier = start.copy(stack=False)
    earlier.halfmove_clock = 89
    assert not search.converts(start, False, 10)  # a draw with White's best defence
    assert search.converts(earlier, False, 11)    # one ply more: Black mates
    # The core's search needs about 10,000 units of work to settle the start,
    # past its budget (tb_probe.c): it must say so and keep the rounded
    # value (a loss), or have settled it right (a draw).
    open_by_budget = left_open(tablebase, start)
    assert int(tablebase.probe_root(start).wdl) == (-2 if open_by_budget else -1)
    assert int(tablebase.probe_root(earlier).wdl) == -2
    if via == "tb_probe_root":
        assert f.tb_init(str(syzygy_dir))
    try:
        choose = fathom_choice if via == "tb_probe_root" else None
        outcome, end = play_line(tablebase, oracle, start, choose, to_mate=True)
        assert outcome == "50-move draw" or open_by_budget, (outcome, end.fen())
        outcome, end = play_line(tablebase, oracle, earlier, choose, to_mate=True)
        assert outcome == "kept" and end.is_checkmate(), (outcome, end.fen())
        # After each White move that does lose in time, Black mates in time.
        losing = 0
        for move in start.legal_moves:
            child = start.copy(stack=False)
            child.push(move)
            if search.converts(child, True, 9):
                losing += 1
                outcome, end = play_line(tablebase, oracle, child, choose, to_mate=True)
                assert outcome == "kept" and end.is_checkmate(), (move, outcome, end.fen())
        assert losing >= 1
    finally:
        f.tb_free()


def test_unsettled_moves_say_so(tablebase: Any) -> None:
    """The issue's stalling KQvKR root: the settling search's budget runs
    out before two of its edge moves are decided.  RootMove.unsettled marks
    exactly the moves the core reports open, each of them on the edge (its
    rounded DTZ is the plies the clock leaves) and keeping its table value."""
    from pyfathom._bindings import lowlevel as _lowlevel

    board = chess.Board("8/8/8/2Q5/4K3/8/1r1k4/8 w - - 61 1")
    root = tablebase.probe_root(board)
    res = _lowlevel.probe_root(tablebase._h, board.occupied_co[chess.WHITE],
                               board.occupied_co[chess.BLACK], board.kings, board.queens,
                               board.rooks, board.bishops, board.knights, board.pawns, 0,
                               board.turn, board.halfmove_clock)
    marked = [m for m in root.moves if m.unsettled]
    assert len(marked) == res.unsettled > 0
    for m in marked:
        assert abs(m.dtz) + board.halfmove_clock == 100, m
        child = board.copy(stack=False)
        child.push(m.move)
        assert -tablebase.probe_dtz(child) + 1 == m.dtz, m  # the table's value, as stored
    assert all(not m.unsettled for m in root.moves if abs(m.dtz) + board.halfmove_clock != 100)


def test_clock_at_or_past_the_limit(tablebase: Any) -> None:
    """Games go on past the 50-move point when nobody claims the draw (a PGN
    with halfmove clock 102, say).  There no win fits any more: every root
    move's and the root's WDL is a draw, a cursed win or a blessed loss, and
    the edge search must not run (with no ply left it indexed its per-depth
    table below zero, which the sanitized run caught through annotate)."""
    rng = random.Random("past-the-limit")
    probed = 0
    for key in ("KQvK", "KRvK", "KPvK", "KBNvK", "KQvKR", "KRPvK"):
        for _ in range(12):
            board = random_position(rng, key)
            for clock in (100, 101, 102, 105, 150):
                board.halfmove_clock = clock
                root = tablebase.probe_root(board)
                probed += 1
                assert abs(root.wdl) <= 1 or board.is_checkmate(), (board.fen(), root.wdl)
                for rm in root.moves:
                    assert abs(rm.wdl) <= 1 or rm.dtz == 1, (board.fen(), rm)
    assert probed == 6 * 12 * 5


def test_clock_result_is_the_one_rule(tablebase: Any) -> None:
    """``fathom_clock_result`` (``pyfathom._types.ClockResult.of``), the rule the
    root ranking, the facade, annotate and the server share, against the
    rule written out over every DTZ up to 1,100 plies (7-piece DTZs) and
    clocks around the limit and far past it (clocks past what C takes are
    the same as 65,535); and root moves' WDL is that result at face value
    (a maybe-win counts as a win).  About 1 s (a loaded machine)."""
    from pyfathom._types import WDL, ClockResult

    clock_result = ClockResult.of

    def written_out(dtz: int, precise: bool, clock: int) -> ClockResult:
        if dtz == 0:
            return ClockResult.DRAW
        plies = abs(dtz) + clock
        if plies < 100 or (plies == 100 and precise):
            won = ClockResult.WIN
        elif plies == 100:
            won = ClockResult.MAYBE_WIN
        else:
            won = ClockResult.CURSED_WIN
        return won if dtz > 0 else ClockResult(-won)

    checked = 0
    for clock in (0, 1, 50, 98, 99, 100, 101, 150, 255, 256, 65535, 10**12):
        for dtz in range(-1100, 1101, 1 if clock < 256 else 7):
            for precise in (False, True):
                assert clock_result(dtz, precise, clock) == written_out(dtz, precise, clock), \
                    (dtz, precise, clock)
                checked += 1
    assert checked > 25_000
    rng = random.Random("clock-result")
    for key in ("KQvK", "KRvK", "KPvK", "KBNvK", "KRvKN"):
        for _ in range(6):
            board = random_position(rng, key)
            board.halfmove_clock = rng.choice((0, 40, 80, 95, 99))
            for rm in tablebase.probe_root(board).moves:
                expected = clock_result(rm.dtz, True, board.halfmove_clock).face_wdl
                assert rm.wdl == expected and type(expected) is WDL, (board.fen(), rm)
