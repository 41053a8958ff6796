"""Input files for ``pyfathom batch`` and :mod:`pyfathom.columnar`: good
positions with bad lines at chosen line numbers (``test_cli.py``,
``test_columnar.py``)."""

from __future__ import annotations

import random
from pathlib import Path

from support.positions import ALL_TABLES, table_sample


def make_batch_input(path: Path, n_good: int, bad: dict[int, str], seed: int = 1) -> list[str]:
    """Write n_good valid positions (all 35 tables, FEN and EPD lines) with the
    bad lines at the given 1-based line numbers; return every line."""
    rng = random.Random(seed)
    good = []
    per_table = n_good // len(ALL_TABLES) + 1
    for key in ALL_TABLES:
        for board in table_sample(key, per_table, seed=seed, ep_share=0.1):
            fen = board.fen(en_passant="fen")
            if rng.random() < 0.3:
                fen = " ".join(fen.split()[:4]) + ' id "x"; c0 "an EPD line";'
            good.append(fen)
    rng.shuffle(good)
    good = good[:n_good]
    lines = []
    it = iter(good)
    total = n_good + len(bad)
    for number in range(1, total + 1):
        lines.append(bad[number] if number in bad else next(it))
    path.write_text("\n".join(lines) + "\n")
    return lines


BAD_LINES = {
    3: "this is not a fen",
    50: "K",  # (a blank line is skipped, not bad: see test_cli_real_world.py)
    777: "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",  # castling rights
    1234: "r3k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1",  # too many pieces
    1500: "4k3/8/8/8/8/8/8/4K3",  # one field: no side to move (2 to 6 fields are read)
    2001: "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings: not probed
}
"""Bad lines of each kind ``pyfathom batch`` reports, by line number."""
