"""Fathom's root-probe arrays come in Fathom's order, and tb_probe_root
picks among equal moves as Fathom does.

Through the Fathom facade (pyfathom.fathom, the same C as the single-file
build): on 3-4-piece positions with en-passant squares and clocks, the
results array of tb_probe_root and the moves of tb_probe_root_dtz /
tb_probe_root_wdl are the legal moves in the order of Fathom's move
generator, and tb_probe_root's move is the first of the quickest wins, the
first of the slowest losses, or the drawing move Fathom's material key picks
(tests/generator_order.py describes both), with python-chess's values.
Positions where a move sits on the 50-move edge (the settling search may
correct its value there) are checked for order only.

About 3 s (250 positions).
"""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.syzygy
import pytest

from support.generator_order import expected_choice, fathom_key, move_dtz, near_edge
from support.positions import ALL_TABLES, bitboards, table_sample

pytestmark = pytest.mark.plain_pass_only("order checks through pyfathom.fathom; their core paths run sanitized in test_engine_dropin")


def _boards() -> list[chess.Board]:
    rng = random.Random("fathom-order")
    boards = [b for key in ALL_TABLES
              for b in table_sample(key, 7, seed=rng.randrange(1 << 30), ep_share=0.3,
                                    push_share=0.2)]
    for b in boards:
        b.halfmove_clock = rng.choice([0, 0, rng.randrange(100)])
    return boards


def _moves_of(board: chess.Board, f, packed: list[int]) -> list[chess.Move]:
    promotion = {0: None, 1: chess.QUEEN, 2: chess.ROOK, 3: chess.BISHOP, 4: chess.KNIGHT}
    return [chess.Move(f.TB_GET_FROM(r), f.TB_GET_TO(r), promotion[f.TB_GET_PROMOTES(r)])
            for r in packed]


def test_arrays_in_fathoms_order_and_its_choice(syzygy_dir: Path,
                                                oracle: chess.syzygy.Tablebase) -> None:
    from pyfathom import fathom as f

    promotion = {0: None, 1: chess.QUEEN, 2: chess.ROOK, 3: chess.BISHOP, 4: chess.KNIGHT}
    bad, chosen_checked = [], 0
    boards = _boards()
    assert f.tb_init(str(syzygy_dir))
    try:
        for board in boards:
            w, bl, k, q, r, bi, kn, p, ep, turn = bitboards(board)
            clock = board.halfmove_clock
            ordered = sorted(board.legal_moves, key=lambda m: fathom_key(board, m))
            if not ordered:
                continue
            res, results = f.tb_probe_root(w, bl, k, q, r, bi, kn, p, clock, 0, ep, bool(turn))
            if _moves_of(board, f, results) != ordered:
                bad.append(f"{board.fen()}: results {' '.join(map(str, _moves_of(board, f, results)))}")
            for name, probe in (("dtz", f.tb_probe_root_dtz), ("wdl", f.tb_probe_root_wdl)):
                args = (w, bl, k, q, r, bi, kn, p, clock, 0, ep, bool(turn))
                ok, moves = probe(*args, False, True) if name == "dtz" else probe(*args, True)
                got = [chess.Move(f.TB_MOVE_FROM(m[0]), f.TB_MOVE_TO(m[0]),
                                  promotion[f.TB_MOVE_PROMOTES(m[0])]) for m in moves]
                if not ok or got != ordered:
                    bad.append(f"{board.fen()}: tb_probe_root_{name} {ok} "
                               f"{' '.join(map(str, got))}")
            values = {m: move_dtz(board, m, oracle) for m in ordered}
            dtz = oracle.probe_dtz(board)
            if near_edge(dtz, clock) or any(near_edge(v, clock) for v in values.values()):
                continue
            chosen_checked += 1
            want = expected_choice(ordered, values, dtz, board)
            got_move = _moves_of(board, f, [res])[0]
            if got_move != want:
                bad.append(f"{board.fen()}: tb_probe_root plays {got_move}, Fathom's rule {want}")
    finally:
        f.tb_free()
    assert chosen_checked >= len(boards) // 2, f"only {chosen_checked} choices compared"
    assert not bad, f"{len(bad)} of {len(boards)}:\n" + "\n".join(bad[:20])
