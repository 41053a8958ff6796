"""Batch probes in table order (the default: each slice of rows sorted by
where its values lie, decoded through the thread's memo) give exactly the
answers of the per-row path (``FATHOM_BATCH_ROW_ORDER``), row by row:
values, status codes and DTZ precise flags, for WDL and DTZ, standard
chess and two variants, one and two threads, whatever order the rows come
in (grouped by material, reversed, shuffled), with missing tables, invalid
rows and duplicates mixed in.

The rows are random placements made with numpy (fast enough for 120,000
standard rows and 20,000 per variant; about 15 s in all on this machine,
most of it the probes): many are not legal positions, which is what the
invalid rows are for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

import pyfathom
from support.positions import ALL_TABLES
from support.variant_positions import BOARDS, table_names, variant_dir

from pyfathom import Status
from pyfathom._bindings import lowlevel as _ll


LETTERS = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
           "N": chess.KNIGHT, "P": chess.PAWN}
# Mask columns: white, black, kings, queens, rooks, bishops, knights, pawns.
TYPE_COLUMN = {chess.KING: 2, chess.QUEEN: 3, chess.ROOK: 4, chess.BISHOP: 5,
               chess.KNIGHT: 6, chess.PAWN: 7}


def random_rows(names: list[str], per_name: int, seed: int) -> tuple[list[Any], Any, Any]:
    """Random placements of each material (white left of the 'v'), either
    side to move, an en passant square on one row in 20; then a tenth of the
    rows again (duplicates), all shuffled.  (masks, ep, turn)."""
    rng = np.random.default_rng(seed)
    cols: list[list[Any]] = [[] for _ in range(8)]
    for name in names:
        pieces = [(colour, LETTERS[ch]) for colour, side in zip((0, 1), name.split("v"))
                  for ch in side]
        squares = np.argsort(rng.random((per_name, 64)), axis=1)[:, :len(pieces)]
        bits = np.left_shift(np.uint64(1), squares.astype(np.uint64))
        block = np.zeros((8, per_name), dtype=np.uint64)
        for k, (colour, piece) in enumerate(pieces):
            block[colour] |= bits[:, k]
            block[TYPE_COLUMN[piece]] |= bits[:, k]
        for c in range(8):
            cols[c].append(block[c])
    masks = np.stack([np.concatenate(c) for c in cols])
    n = masks.shape[1]
    turn = rng.integers(0, 2, n).astype(np.uint8)
    ep = np.where(rng.random(n) < 0.05, rng.choice([16 + f for f in range(8)] +
                                                   [40 + f for f in range(8)], n), 0)
    dup = rng.choice(n, n // 10)
    order = rng.permutation(n + len(dup))
    masks = np.concatenate([masks, masks[:, dup]], axis=1)[:, order]
    ep = np.concatenate([ep, ep[dup]])[order].astype(np.uint8)
    turn = np.concatenate([turn, turn[dup]])[order]
    return [np.ascontiguousarray(m) for m in masks], ep, turn


def probe(handle: Any, masks: list[Any], ep: Any, turn: Any, dtz: bool, threads: int,
          row_order: bool) -> tuple[Any, ...]:
    n = len(ep)
    out = np.empty(n, dtype=np.int16 if dtz else np.int8)
    status = np.empty(n, dtype=np.uint8)
    precise = np.empty(n, dtype=np.uint8) if dtz else None
    _ll.probe_batch(handle, masks, ep, turn, out, threads, status, precise, row_order)
    return (out, status) if precise is None else (out, status, precise)


def orders(masks: list[Any], seed: int) -> dict[str, Any]:
    """Row permutations: grouped by material (pieces sorted), reversed, shuffled."""
    grouped = np.lexsort(tuple(masks[::-1]))
    return {"grouped": grouped, "reversed": np.arange(len(masks[0]))[::-1],
            "shuffled": np.random.default_rng(seed).permutation(len(masks[0]))}


def check_same(tb: Any, masks: list[Any], ep: Any, turn: Any,
               expect_status: set[Status]) -> None:
    handle = tb._handle()
    for dtz in (False, True):
        base = probe(handle, masks, ep, turn, dtz, 1, True)
        seen = {Status(s) for s in np.unique(base[1])}
        assert expect_status <= seen, f"rows of {expect_status - seen} missing from the mix"
        for name, perm in orders(masks, 5).items():
            pm = [np.ascontiguousarray(m[perm]) for m in masks]
            pe, pt = np.ascontiguousarray(ep[perm]), np.ascontiguousarray(turn[perm])
            for threads in (1, 2):
                got = probe(handle, pm, pe, pt, dtz, threads, False)
                for what, a, b in zip(("value", "status", "precise"), got, base):
                    bad = np.flatnonzero(a != b[perm])
                    assert not len(bad), (
                        f"{'DTZ' if dtz else 'WDL'} {what}, {name} order, {threads} "
                        f"thread(s): {len(bad)} rows differ, first at row {perm[bad[0]]}: "
                        f"table order {a[bad[0]]}, row order {b[perm][bad[0]]}")


def test_standard_mixed_tables(syzygy_dir: Path, syzygy5_dir: Path) -> None:
    five = sorted(p.stem for p in syzygy5_dir.glob("*.rtbw"))
    # Tables nobody loaded: a 5-piece one and 6-piece ones (missing tables,
    # also through captures from them into the loaded ones).
    absent = ["KQQvKQ", "KRRvKRN", "KQPvKRP"]
    names = ALL_TABLES + five + absent
    masks, ep, turn = random_rows(names, 120_000 // len(names) + 1, 29)
    assert len(ep) >= 100_000
    with pyfathom.open_tablebase(syzygy_dir) as tb:
        tb.add_directory(syzygy5_dir)
        check_same(tb, masks, ep, turn,
                   {Status.OK, Status.MISSING_TABLE, Status.INVALID_POSITION})


@pytest.mark.parametrize("variant", ["atomic", "giveaway"])
def test_variants_mixed_tables(variant: str) -> None:
    names = table_names(variant)
    masks, ep, turn = random_rows(names, 20_000 // len(names) + 1, 31)
    with pyfathom.open_tablebase(variant_dir(variant), VariantBoard=BOARDS[variant]) as tb:
        check_same(tb, masks, ep, turn, {Status.OK, Status.INVALID_POSITION})


def test_empty_and_single_rows(tablebase: Any) -> None:
    masks, ep, turn = random_rows(["KQvK"], 1, 3)
    for n in (0, 1):
        m = [np.ascontiguousarray(a[:n]) for a in masks]
        for dtz in (False, True):
            assert all((a == b).all() for a, b in zip(
                probe(tablebase._handle(), m, ep[:n], turn[:n], dtz, 2, False),
                probe(tablebase._handle(), m, ep[:n], turn[:n], dtz, 1, True)))
