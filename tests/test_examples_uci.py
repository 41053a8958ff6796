"""The example engines (examples/alphabeta, examples/centaur) over UCI.

Each engine runs as a subprocess driven by python-chess's ``chess.engine``:
a few moves without tables, the ``SyzygyPath`` option, tablebase hits inside
the search, and conversion of won 3-4-piece endings into mate against a
tablebase-perfect defence (the defender plays pyfathom's ``probe_root`` best
move, which python-chess's prober agrees with: the oracle tests check it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

import chess
import chess.engine
import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINES = {
    "alphabeta": ROOT / "examples" / "alphabeta" / "engine.py",
    "centaur": ROOT / "examples" / "centaur" / "engine.py",
}

# Won for white, white to move; DTZ in plies (python-chess / pyfathom).
WON = [
    ("KQvK", "8/5K2/8/8/8/2k5/7Q/8 w - - 0 1", 15),
    ("KQvK", "K7/8/8/8/8/4k3/6Q1/8 w - - 0 1", 17),
    ("KRvK", "8/8/8/8/8/3k4/4R3/K7 w - - 0 1", 31),
    ("KRvK", "8/8/6R1/8/2k5/8/8/2K5 w - - 0 1", 27),
    ("KPvK", "8/6k1/8/8/8/7K/1P6/8 w - - 0 1", 15),
    ("KPvK", "8/8/8/8/4k3/1P6/8/2K5 w - - 0 1", 15),
    ("KBNvK", "8/6k1/4B3/8/7N/8/7K/8 w - - 0 1", 56),
    ("KQvKR", "8/7Q/4K3/8/6k1/8/8/4r3 w - - 0 1", 41),
]

TIMEOUT = 30.0


@pytest.fixture(scope="module", params=sorted(ENGINES))
def engine(request: Any) -> Iterator[chess.engine.SimpleEngine]:
    eng = chess.engine.SimpleEngine.popen_uci([sys.executable, str(ENGINES[request.param])],
                                              timeout=TIMEOUT)
    eng.timeout = TIMEOUT
    try:
        yield eng
    finally:
        eng.quit()


def _configure(engine: chess.engine.SimpleEngine, path: str) -> None:
    engine.configure({"SyzygyPath": path})


def test_identifies_and_offers_syzygy_path(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"].startswith("pyfathom-")
    assert "SyzygyPath" in engine.options
    engine.ping()


def test_plays_a_few_moves_without_tables(engine: chess.engine.SimpleEngine) -> None:
    _configure(engine, "")
    board = chess.Board()
    for _ in range(4):
        result = engine.play(board, chess.engine.Limit(time=0.15))
        assert result.move in board.legal_moves
        board.push(result.move)


def test_takes_the_free_queen_and_mates_in_one(engine: chess.engine.SimpleEngine) -> None:
    _configure(engine, "")
    board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert engine.play(board, chess.engine.Limit(time=1.0)).move == chess.Move.from_uci("f3h4")
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 3")
    assert engine.play(board, chess.engine.Limit(time=1.0)).move == chess.Move.from_uci("h5f7")


def test_tablebase_hits_inside_the_search(engine: chess.engine.SimpleEngine,
                                          syzygy_dir: Path) -> None:
    # 5 pieces: not in the 3-4-piece tables, but the queen can take the rook.
    board = chess.Board("8/8/8/3k4/8/8/3r4/K2Q3R w - - 0 1")
    _configure(engine, str(syzygy_dir))
    with engine.analysis(board, chess.engine.Limit(time=1.0)) as analysis:
        infos = list(analysis)
        best = analysis.wait().move
    assert best == chess.Move.from_uci("d1d2")
    assert max(info.get("tbhits", 0) for info in infos) > 0
    _configure(engine, "")
    with engine.analysis(board, chess.engine.Limit(time=0.5)) as analysis:
        infos = list(analysis)
        analysis.wait()
    assert max(info.get("tbhits", 0) for info in infos) == 0


def test_missing_syzygy_directory_is_harmless(engine: chess.engine.SimpleEngine,
                                              tmp_path: Path) -> None:
    _configure(engine, str(tmp_path / "nowhere"))
    board = chess.Board("8/5K2/8/8/8/2k5/7Q/8 w - - 0 1")
    assert engine.play(board, chess.engine.Limit(time=0.2)).move in board.legal_moves


@pytest.mark.parametrize("material,fen,dtz", WON, ids=[f"{m}-{i}" for i, (m, _, _) in enumerate(WON)])
def test_converts_won_ending_against_perfect_defence(
        engine: chess.engine.SimpleEngine, syzygy_dir: Path, tablebase: Any,
        material: str, fen: str, dtz: int) -> None:
    _configure(engine, str(syzygy_dir))
    engine.protocol.send_line("ucinewgame")
    board = chess.Board(fen)
    assert tablebase.probe_dtz(board) == dtz
    attacker = board.turn
    # Both sides play DTZ-optimal moves, so from every zeroing position (and
    # from the start) the next zeroing move or the mate comes within |DTZ|
    # plies (+1 where the table stores DTZ rounded to moves): the won ending
    # is converted inside the 50-move rule.

    def bound(b: chess.Board) -> int:
        probe = tablebase.probe(b)
        return abs(probe.dtz) + (0 if probe.dtz_precise else 1)

    zero_ply, zero_dtz = 0, bound(board)
    ply = 0
    while not board.is_game_over(claim_draw=True):
        assert ply < 400
        if board.turn == attacker:
            move = engine.play(board, chess.engine.Limit(time=0.5)).move
        else:
            move = tablebase.probe_root(board).best_move
        assert move in board.legal_moves
        board.push(move)
        ply += 1
        if board.halfmove_clock == 0 or board.is_checkmate():
            assert ply - zero_ply <= zero_dtz <= 100, (material, fen, board.fen())
            if not board.is_game_over():
                zero_ply, zero_dtz = ply, bound(board)
    assert board.is_checkmate(), (material, fen, board.fen())
    assert board.outcome().winner == attacker
