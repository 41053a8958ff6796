"""lichess's precise DTZ flag (issue 27, point 4, both ways round):
:meth:`pyfathom.Tablebase.probe_dtz_as_stored`, which ``pyfathom serve``
answers with, against a model of shakmaty-syzygy's rule written here.

shakmaty-syzygy (lila-tablebase's prober) reads in its ``dtz()``: a draw,
a best capture and a winning pawn push are exact; a table that stores the
side to move is exact where it stores plies and rounded where it stores
moves (where python-chess doubles the value); otherwise it searches the
moves that do not zero, one ply deep, and of the moves tied for the best
value keeps the flag of the first in its move order (strictly better
values replace, equal ones do not), a mating move being exact.  Its order
of those moves (``legal_moves`` in shakmaty's position.rs): outside check
knights, bishops, rooks, queens, then the king; in check the king first;
for each piece by origin then target, lowest square first.

The model reads the values from python-chess 1.11.2 (the oracle) and only
the flags by shakmaty's rule; the positions come from a search over random
3-5-piece positions, keeping every one where lichess's flag and pyfathom's
(:attr:`pyfathom.Probe.dtz_precise`) differ.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest

from support import positions
from support.live_server import Server, q, serving
from support.table_cache import SYZYGY5 as FIVE

# The materials where random positions met a tie of mixed flags (about 6 in
# 1,000 KQPvK positions), searched more than the others.
TIE_MATERIALS = ("KQPvK", "KRPvK", "KQvKB", "KQvKN")
ISSUE_FEN = "8/8/5q2/8/5k1K/4p3/8/8 w - - 0 1"  # DTZ -2: lichess exact, pyfathom rounded


def _before_zeroing(wdl: int) -> int:
    return {2: 1, 1: 101, -1: -101, -2: -1}[wdl]


def _stores_moves(oracle: chess.syzygy.Tablebase, board: chess.Board, wdl: int) -> bool:
    """Whether the DTZ table read for ``board`` (its side stored) holds moves
    rather than plies: python-chess doubles such a value (its
    ``_probe_dtz_table``), shakmaty-syzygy calls it rounded."""
    if wdl & 1:
        return True
    table: Any = oracle.dtz[chess.syzygy.calc_key(board)]
    table.init_table_dtz()
    wanted = chess.syzygy.PA_FLAGS[wdl + 2]
    if not table.has_pawns:
        return not table.flags & wanted
    if table.symmetric:
        black = board.turn == chess.BLACK
        cmirror, mirror = (8, 0x38) if black else (0, 0)
    else:
        cmirror, mirror = (8, 0x38) if chess.syzygy.calc_key(board) != table.key else (0, 0)
    leading = table.files[0].pieces[0] ^ cmirror
    color = chess.WHITE if leading >> 3 == 0 else chess.BLACK
    squares = [s ^ mirror for s in chess.scan_forward(board.pieces_mask(leading & 7, color))]
    squares += [0] * (chess.syzygy.TBPIECES - len(squares))
    return not table.flags[table.pawn_file(squares)] & wanted


def _shakmaty_order(board: chess.Board, move: chess.Move) -> tuple[int, int, int]:
    piece = board.piece_type_at(move.from_square)
    if piece == chess.KING:
        group = 0 if board.is_check() else 6
    else:
        group = piece or 0
    return group, move.from_square, move.to_square


def lila_dtz(oracle: chess.syzygy.Tablebase, board: chess.Board) -> tuple[int, bool]:
    """(DTZ, precise) as shakmaty-syzygy's ``probe_dtz`` gives them, for a
    board without castling rights or en-passant square."""
    wdl, how = oracle.probe_ab(board, -2, 2, threats=True)
    if wdl == 0:
        return 0, True
    if how == 2:  # a capture is the best move
        return _before_zeroing(wdl), True
    if wdl > 0:
        for move in board.legal_moves:
            if board.piece_type_at(move.from_square) == chess.PAWN and not board.is_capture(move):
                board.push(move)
                value = -oracle.probe_wdl(board)
                board.pop()
                if value == wdl:
                    return _before_zeroing(wdl), True
    stored, found = oracle.probe_dtz_table(board, wdl)
    if found >= 0:
        dtz = _before_zeroing(wdl) + (stored if wdl > 0 else -stored)
        return dtz, not _stores_moves(oracle, board, wdl)
    best = None if wdl > 0 else (_before_zeroing(wdl), True)
    quiet = sorted((m for m in board.legal_moves if not board.is_zeroing(m)),
                   key=lambda m: _shakmaty_order(board, m))
    for move in quiet:
        board.push(move)
        child, exact = lila_dtz(oracle, board)
        mate = board.is_checkmate()
        board.pop()
        value = -child
        if value == 1 and mate:
            best = (1, True)
        elif (value > 0) == (wdl > 0):
            value += 1 if value > 0 else -1
            if best is None or value < best[0]:
                best = (value, exact)
    assert best is not None, board.fen()
    return best


@pytest.fixture(scope="module")
def tables(syzygy_dir: Path) -> list[Path]:
    # The 5-piece tables of the shared folder, where present (their 3-4-piece
    # tables are the test set's).
    return [syzygy_dir] + ([FIVE] if any(FIVE.glob("*.rtbz")) else [])


@pytest.fixture(scope="module")
def lila_oracle(tables: list[Path]) -> Iterator[chess.syzygy.Tablebase]:
    tb = chess.syzygy.open_tablebase(str(tables[0]))
    for folder in tables[1:]:
        tb.add_directory(str(folder))
    yield tb
    tb.close()


def _materials(tables: list[Path]) -> list[str]:
    return sorted({p.name[:-5] for folder in tables for p in folder.glob("*.rtbz")})


def _search(tb: Any, tables: list[Path]) -> tuple[list[chess.Board], list[chess.Board]]:
    """Random positions: those where lichess's flag differs from
    pyfathom's, and a sample of the rest (two of every material)."""
    rng = random.Random(2027)
    differing: list[chess.Board] = []
    sample: list[chess.Board] = []
    draws = [(key, 2, True) for key in _materials(tables)]
    draws += [(key, 1500, False) for key in TIE_MATERIALS]
    for key, count, keep in draws:
        for _ in range(count):
            board = positions.random_position(rng, key)
            try:
                probe = tb.probe(board)
            except KeyError:
                continue
            if tb.probe_dtz_as_stored(board)[1] != probe.dtz_precise:
                differing.append(board)
            elif keep:
                sample.append(board)
    return differing, sample


def test_flags_follow_shakmaty_both_ways(tables: list[Path],
                                         lila_oracle: chess.syzygy.Tablebase) -> None:
    import pyfathom

    with pyfathom.open_tablebase([str(t) for t in tables]) as tb:
        differing, sample = _search(tb, tables)
        issue = chess.Board(ISSUE_FEN)
        differing.append(issue)
        wrong = []
        for board in differing + sample:
            if tb.probe_dtz_as_stored(board) != lila_dtz(lila_oracle, board):
                wrong.append(board.fen())
        assert not wrong, positions.mismatch_report("lichess precise flag", len(differing)
                                                    + len(sample), wrong)
        # Both of pyfathom's differences from lichess were met: a mate in one
        # stored rounded, and a tie of mixed flags in a loss found by search.
        kinds = {"mate" if tb.probe(b).dtz == 1 else "tie" for b in differing}
        assert kinds == {"mate", "tie"}, kinds
        assert tb.probe(issue).dtz_precise is False
        assert tb.probe_dtz_as_stored(issue) == (-2, True)


@pytest.fixture(scope="module")
def server(syzygy_dir: Path) -> Iterator[Server]:
    with serving(syzygy_dir) as s:
        yield s
    assert "Traceback" not in s.log, s.log[-3000:]


def test_server_answers_with_lichess_flags(server: Server, syzygy_dir: Path,
                                           oracle: chess.syzygy.Tablebase) -> None:
    # The issue's position: lila calls the -2 exact (every move walks into
    # a mate in one; the first of them in shakmaty's order, Kh3, is exact).
    # exact_mates=true keeps pyfathom's flag, rounded.
    fens = [ISSUE_FEN, "8/3kQ3/P7/8/8/8/6K1/8 b - - 0 1", "k7/8/8/8/3r4/8/7p/6K1 w - - 0 1"]
    for fen in fens:
        board = chess.Board(fen)
        dtz, exact = lila_dtz(oracle, board)
        status, doc = server.get_json("/standard?fen=" + q(fen))
        assert status == 200
        assert (doc["dtz"], doc["precise_dtz"]) == (dtz, dtz if exact else None), fen
        for move in doc["moves"]:
            board.push_uci(move["uci"])
            child, child_exact = lila_dtz(oracle, board)
            board.pop()
            assert (move["dtz"], move["precise_dtz"]) == (child, child if child_exact else None)
        status, line = server.get_json("/standard/mainline?fen=" + q(fen))
        assert status == 200 and line["precise_dtz"] == doc["precise_dtz"]
        status, pyfathom_doc = server.get_json("/standard?exact_mates=true&fen=" + q(fen))
        assert status == 200 and pyfathom_doc["precise_dtz"] is None, fen
    import json
    status, _, data = server.request("POST", "/standard/batch", json.dumps(fens).encode(),
                                     {"Content-Type": "application/json"})
    assert status == 200
    for fen, answer in zip(fens, json.loads(data)):
        assert {k: v for k, v in answer.items() if k != "fen"} \
            == server.get_json("/standard?fen=" + q(fen))[1]
