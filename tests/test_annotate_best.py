"""The best move ``pyfathom annotate`` names at a mistake: one C call
(``fathom_best_move``) that probes the WDL of every move and the DTZ only of
the quiet moves that can still be best (the slower wins dropped as soon as
they are known to be slower), against the full ranking it replaced
(every move of :meth:`Tablebase.probe_root`, ranked in Python as below), on
thousands of mistake positions of generated games: the same move, DTZ,
exactness and result."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Optional

import chess

from support import pgn_games
from support.sanitizer import SANITIZED

WIN, DRAW, LOSS = 1, 0, -1


def _rank(result: int, dtz: int) -> tuple[int, int, int]:
    if result == DRAW:
        side = (dtz > 0) - (dtz < 0)
        return (DRAW, side, -abs(dtz) if side > 0 else abs(dtz))
    return (result, 0, -dtz)


def best_by_root_probe(tb: Any, board: chess.Board) -> Optional[tuple[chess.Move, int, bool, int]]:
    """The answer of the code fathom_best_move replaced: every legal move's
    DTZ from one root probe (settled on the 50-move edge), each move's result
    under the clock, the first move of the highest rank; its exactness from a
    DTZ probe of the position it leads to; KeyError where the root probe
    fails."""
    from pyfathom.annotate.bestmove import _best_of, _root_moves

    # KeyError where a table some move needs is missing
    return _best_of(tb, board, _root_moves(tb, board))


def _mistake_boards(tb: Any, text: str) -> list[chess.Board]:
    from pyfathom.annotate import annotate_stream

    boards: list[chess.Board] = []
    annotate_stream(tb, io.StringIO(text), None, report=lambda m: boards.append(m.board))
    return boards


def _compare(tb: Any, boards: list[chess.Board]) -> tuple[list[str], int]:
    """Problems, and how many boards the root probe could not rank (a table
    some move needs is missing).  There the old code probed the moves one by
    one and skipped those that failed; the C call needs only the WDL of
    zeroing moves and the DTZ of the moves that can be best, so it may rank
    a move the old code skipped: its answer is at least as good, and among
    moves of the same rank it may name another one.  The position's DTZ
    given as a hint (right, or one ply off either way) changes nothing."""
    from pyfathom.annotate.bestmove import _best_move, _best_of, _child_moves

    problems = []
    partial = 0
    for board in boards:
        got = _best_move(tb, board)
        dtz = tb.probe(board).dtz
        for hint in (dtz, dtz - 1, dtz + 1):
            if _best_move(tb, board, hint) != got:
                problems.append(f"{board.fen()}: hint {hint} changes {got}")
        try:
            expected = best_by_root_probe(tb, board)
        except KeyError:
            partial += 1
            old = _best_of(tb, board, _child_moves(tb, board))
            if old is not None and (got is None or _rank(got[3], got[1]) < _rank(old[3], old[1])):
                problems.append(f"{board.fen()}: {got} worse than {old}")
            continue
        if got != expected:
            problems.append(f"{board.fen()}: {got} != {expected}")
    return problems, partial


def test_best_move_as_the_root_probe_ranks_it(tablebase: Any) -> None:
    n = 1000 if SANITIZED else 5000
    boards = _mistake_boards(tablebase, pgn_games.generated_pgn(n, seed=1616, decorate=False))
    assert len(boards) > n // 2
    # Every kind of mistake, so every kind of best move, is in the sample.
    results = {best_by_root_probe(tablebase, b)[3] for b in boards[:500]}  # type: ignore[index]
    assert results == {WIN, DRAW, LOSS} or results == {WIN, DRAW}
    assert _compare(tablebase, boards) == ([], 0)


def test_best_move_with_five_pieces(syzygy_dir: Path, syzygy5_dir: Path) -> None:
    """Cursed wins and blessed losses (DTZ past 100) in KBBvKN and KRPvKR."""
    import pyfathom

    with pyfathom.open_tablebase([syzygy_dir, syzygy5_dir]) as tb:
        text = pgn_games.generated_pgn(300 if SANITIZED else 1200, seed=55,
                                       keys=["KBBvKN", "KRPvKR"], five_share=0.0,
                                       plies=(2, 8), decorate=False)
        boards = _mistake_boards(tb, text)
        assert len(boards) > 100
        problems, partial = _compare(tb, boards)
        assert problems == [] and partial < len(boards) // 10


def test_best_move_falls_back_where_a_table_is_missing(syzygy_dir: Path, tmp_path: Path) -> None:
    """Without KQvK's WDL table, the C call cannot rank a KQvKR position
    whose rook the queen can take: the moves are then probed one by one,
    those that cannot be probed skipped (_child_moves)."""
    import pyfathom
    from pyfathom._bindings import lowlevel_helpers as _helpers
    from pyfathom.annotate.bestmove import _best_move, _best_of, _child_moves

    for path in syzygy_dir.glob("*.rtb[wz]"):
        if path.name != "KQvK.rtbw":
            (tmp_path / path.name).symlink_to(path)
    board = chess.Board("8/8/3k4/8/8/3r4/8/1K1Q4 w - - 0 1")  # Qxd3+ leads into KQvK
    occ = board.occupied_co
    with pyfathom.open_tablebase(tmp_path) as tb:
        found = _helpers.best_move(tb._h, occ[1], occ[0], board.kings, board.queens,
                                   board.rooks, board.bishops, board.knights, board.pawns,
                                   0, board.turn, board.halfmove_clock)
        assert found.status == pyfathom.Status.MISSING_TABLE and "KQvK" in found.detail.table
        got = _best_move(tb, board)
        assert got is not None and got == _best_of(tb, board, _child_moves(tb, board))
        assert board.san(got[0]) != "Qxd3+"  # the move that cannot be probed


def test_move_san_as_python_chess() -> None:
    """The C core's SAN (the best move in annotate's comments) against
    python-chess's Board.san() for every legal move of random positions with
    like pieces that can reach the same square, promotions, checks, mates
    and en passant."""
    from support import positions
    import random

    from pyfathom.annotate.notation import _san

    rng = random.Random(16)
    boards = []
    for key in ["KRRvKR", "KNNvKN", "KQQvKQ", "KBBvKN", "KQvKR", "KPPvKP", "KRPvKP", "KPvKP",
                "KNvKP", "KQPvKQ"]:
        boards += [positions.random_position(rng, key) for _ in range(300 if SANITIZED else 1500)]
    # En passant: a pawn that has just advanced two squares beside an enemy pawn.
    ep = [chess.Board("8/8/8/8/3p4/8/4P3/K6k w - - 0 1"), chess.Board("8/3p4/8/4P3/8/8/8/K6k b - - 0 1")]
    for board in ep:
        board.push(board.parse_san("e4" if board.turn else "d5"))
    boards += ep
    moves = 0
    problems = []
    for board in boards:
        for move in board.legal_moves:
            moves += 1
            if _san(board, move) != board.san(move):
                problems.append(f"{board.fen()} {move.uci()}: {_san(board, move)} != {board.san(move)}")
    assert problems == [] and moves > 10_000
    assert any("x" in _san(b, m) and b.is_en_passant(m) for b in ep for m in b.legal_moves)
    # The report's FEN, written from the pieces present, is python-chess's
    # (clocks, move numbers, an en passant square with or without a capture,
    # castling rights where a game still has them).
    from pyfathom.annotate.notation import _fen

    for i, board in enumerate(boards):
        board.halfmove_clock, board.fullmove_number = i % 101, 1 + i % 170
    castles = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 7 40")
    no_capture = chess.Board("8/8/8/8/8/8/4P3/K6k w - - 0 1")
    no_capture.push_san("e4")
    fens = [(_fen(b), b.fen()) for b in [*boards, castles, no_capture]]
    assert [f for f in fens if f[0] != f[1]] == []
    # A move that is not legal there is not written by the C core.
    from pyfathom._bindings import lowlevel_helpers as _helpers

    board = chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1")
    occ = board.occupied_co
    assert _helpers.move_san(occ[1], occ[0], board.kings, 0, 0, 0, 0, 0, 0, True,
                             chess.A1, chess.A3, 0) is None
    for start, to, promotion in ((64, chess.A2, 0), (chess.A1, 200, 0), (chess.A1, chess.A2, 9)):
        assert _helpers.move_san(occ[1], occ[0], board.kings, 0, 0, 0, 0, 0, 0, True,
                                 start, to, promotion) is None
    assert _helpers.move_san(occ[1], occ[0], board.kings, 0, 0, 0, 0, 0, 0, True,
                             chess.A1, chess.A2, 0) == "Ka2"


def test_best_move_on_the_50_move_edge(tablebase: Any) -> None:
    """Mistake positions with the clock set so that a move's rounded DTZ is
    exactly the plies the 50-move rule leaves: there fathom_probe_root
    settles the move by a search whose budget all such moves share, so the
    C call says so (on_edge) and _best_move ranks with the root probe; the
    answer is the root probe's, and the C call's where it does not step
    aside."""
    from pyfathom._bindings import lowlevel_helpers as _helpers
    from pyfathom.annotate.bestmove import _best_move

    boards = _mistake_boards(tablebase, pgn_games.generated_pgn(100 if SANITIZED else 300,
                                                                seed=5016, decorate=False))
    edge = answered = 0
    problems = []
    for board in boards:
        root = tablebase.probe_root(board)
        for rm in root.moves:
            if abs(rm.dtz) < 2 or board.is_zeroing(rm.move):
                continue
            board.push(rm.move)
            rounded = not tablebase.probe(board).dtz_precise
            board.pop()
            if not rounded:
                continue
            at_edge = board.copy(stack=False)
            at_edge.halfmove_clock = 100 - abs(rm.dtz)
            occ = at_edge.occupied_co
            found = _helpers.best_move(tablebase._h, occ[1], occ[0], at_edge.kings,
                                       at_edge.queens, at_edge.rooks, at_edge.bishops,
                                       at_edge.knights, at_edge.pawns, 0, at_edge.turn,
                                       at_edge.halfmove_clock)
            edge += found.on_edge
            answered += not found.on_edge
            got, expected = _best_move(tablebase, at_edge), best_by_root_probe(tablebase, at_edge)
            if got != expected:
                problems.append(f"{at_edge.fen()}: {got} != {expected} (on_edge {found.on_edge})")
            # Past the 50-move point nothing is on the edge (no settling).
            at_edge.halfmove_clock = 100 + abs(rm.dtz)
            past = _helpers.best_move(tablebase._h, occ[1], occ[0], at_edge.kings,
                                      at_edge.queens, at_edge.rooks, at_edge.bishops,
                                      at_edge.knights, at_edge.pawns, 0, at_edge.turn,
                                      at_edge.halfmove_clock)
            got, expected = _best_move(tablebase, at_edge), best_by_root_probe(tablebase, at_edge)
            if past.on_edge or got != expected:
                problems.append(f"{at_edge.fen()}: {got} != {expected} (on_edge {past.on_edge})")
            break
    assert problems == []
    # 73 and 67 of 216 boards (300 games); a third of that sanitized.
    assert min(edge, answered) > (10 if SANITIZED else 40), (edge, answered)
