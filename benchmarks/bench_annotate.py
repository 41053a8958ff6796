"""``pyfathom annotate`` against python-chess, on one PGN, in one run.

Figures (games per second, medians and ranges over alternated rounds):

* ``read``: python-chess only reading the games (``chess.pgn.read_game``
  in a loop, the default GameBuilder);
* ``annotate``: :func:`pyfathom.annotate.annotate_stream` over the same
  file, writing the annotated PGN to a file (what ``pyfathom annotate FILE
  -o OUT`` does, without the interpreter start; one CLI run is timed too);
* ``python-chess annotator``: the plain chess.syzygy annotator of
  tests/support/pgn_games.py (the tests' reference) on the first ``--oracle-games``
  games of the same file: it probes python-chess's DTZ for every position in
  the tables and every legal move at each mistake, so it runs on a prefix.

Targets (issue 16): annotate costs at most 1.5x reading; at least 10x the
python-chess annotator.  Also measured: per-board DTZ probes against the
batch C path on the positions the annotator probed (why annotate probes per
board).

The PGN (``benchmarks/bin/games-N.pgn``, generated once, deterministic):
whole games from the standard start with lichess-like headers and a
``[%clk]`` comment on every move, played by a mover that captures when it
can, so most reach the 3-4-piece tables and go on for a few moves there.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.syzygy

from common import BIN, default_tables  # also puts tests/ on sys.path

from support import pgn_games  # noqa: E402

import pyfathom  # noqa: E402
from pyfathom._bindings import lowlevel as _ll  # noqa: E402
from pyfathom.annotate import annotate_stream  # noqa: E402


def make_pgn(path: Path, n: int, kind: str, seed: int = 16) -> Path:
    """``games``: :func:`pgn_games.full_game`; ``endgames``: the tests'
    :func:`pgn_games.generated_game` (random 3-5-piece starts, weak mover,
    all in the tables: the annotator's worst case against reading)."""
    if path.exists():
        return path
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as f:
        for i in range(n):
            game = (pgn_games.full_game(i + 1, rng) if kind == "games"
                    else pgn_games.generated_game(i + 1, rng))
            f.write(str(game) + "\n\n")
    os.replace(tmp, path)
    return path


def write_prefix(path: Path, prefix: Path, games: int) -> None:
    """The first ``games`` games of ``path``, as python-chess splits them."""
    from pyfathom.annotate.reading import _LineRecorder

    with path.open(encoding="utf-8", newline="") as src, \
            prefix.open("w", encoding="utf-8", newline="") as dst:
        recorder = _LineRecorder(src)
        for _ in range(games):
            if chess.pgn.read_game(recorder, Visitor=chess.pgn.SkipVisitor) is None:  # type: ignore[arg-type]
                break
            dst.write("".join(recorder.take()))


def time_read(path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    games = 0
    with path.open(encoding="utf-8") as f:
        while chess.pgn.read_game(f) is not None:
            games += 1
    return time.perf_counter() - start, games


def time_annotate(tb: pyfathom.Tablebase, path: Path, out: Path) -> tuple[float, Any]:
    start = time.perf_counter()
    with path.open(encoding="utf-8", newline="") as src, \
            out.open("w", encoding="utf-8", newline="") as dst:
        summary = annotate_stream(tb, src, dst)
    return time.perf_counter() - start, summary


def time_reference(tables: Path, tb: pyfathom.Tablebase, path: Path, games: int) -> float:
    oracle = chess.syzygy.open_tablebase(str(tables))
    ref = pgn_games.ReferenceAnnotator(oracle, lambda b: bool(tb.probe(b).dtz_precise),
                                       tb.largest)
    try:
        start = time.perf_counter()
        with path.open(encoding="utf-8") as f:
            for _ in range(games):
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                ref.annotate(game)
        return time.perf_counter() - start
    finally:
        oracle.close()


def collect_positions(path: Path, largest: int, limit: int) -> list[tuple[int, ...]]:
    """The positions annotate probes (from the first in the tables on)."""
    rows: list[tuple[int, ...]] = []
    with path.open(encoding="utf-8") as f:
        while len(rows) < limit:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            covered = False
            for move in [*game.mainline_moves(), None]:
                if covered or (not board.castling_rights
                               and chess.popcount(board.occupied) <= largest):
                    covered = True
                    occ = board.occupied_co
                    rows.append((occ[1], occ[0], board.kings, board.queens, board.rooks,
                                 board.bishops, board.knights, board.pawns,
                                 board.ep_square or 0, int(board.turn)))
                if move is not None:
                    board.push(move)
    return rows[:limit]


def time_probes(tb: pyfathom.Tablebase, rows: list[tuple[int, ...]]) -> dict[str, float]:
    """Microseconds per position: per-board lean calls as annotate makes
    them, and the batch C path (arrays built from the same ints)."""
    import numpy as np

    pinned = tb._pinned
    probe = _ll.board_dtz
    start = time.perf_counter()
    for w, b, _k, q, r, bi, n, p, ep, turn in rows:
        probe(pinned, w, b, q, r, bi, n, p, ep or None, turn)
    per_board = time.perf_counter() - start
    out: dict[str, float] = {"per_board_us": per_board / len(rows) * 1e6}
    for threads in (1, 2):
        start = time.perf_counter()
        cols = np.array(rows, dtype=np.uint64).T
        masks = [np.ascontiguousarray(c) for c in cols[:8]]
        tb.probe_dtz_bitboards(*masks, cols[8].astype(np.uint8), cols[9].astype(np.uint8),
                               threads=threads)
        out[f"batch_t{threads}_us"] = (time.perf_counter() - start) / len(rows) * 1e6
    return out


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--tables", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=3, help="alternated read/annotate rounds")
    parser.add_argument("--oracle-games", type=int, default=200,
                        help="games given to the python-chess annotator (a prefix of the file)")
    parser.add_argument("--kind", choices=("games", "endgames"), default="games",
                        help="generated PGN: whole games (default), or endgame starts only")
    parser.add_argument("--pgn", type=Path, default=None, help="use this PGN instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    tables = args.tables or default_tables()
    path = args.pgn or make_pgn(BIN / f"{args.kind}-{args.games}.pgn", args.games, args.kind)
    out = BIN / "annotated.pgn"
    out.parent.mkdir(parents=True, exist_ok=True)
    tb = pyfathom.open_tablebase(tables)
    try:
        read_s: list[float] = []
        annotate_s: list[float] = []
        ratios: list[float] = []
        games = 0
        summary: Any = None
        time_annotate(tb, path, out)  # warm: tables mapped, file in the page cache
        for _ in range(args.rounds):
            r, games = time_read(path)
            a, summary = time_annotate(tb, path, out)
            read_s.append(r)
            annotate_s.append(a)
            ratios.append(a / r)
        oracle_games = min(args.oracle_games, games)
        ref_s = time_reference(tables, tb, path, oracle_games)
        # The same prefix through annotate, for a like-for-like ratio.
        prefix = BIN / "prefix.pgn"
        write_prefix(path, prefix, oracle_games)
        prefix_s = min(time_annotate(tb, prefix, BIN / "prefix-out.pgn")[0] for _ in range(3))
        start = time.perf_counter()
        cli = subprocess.run([sys.executable, "-m", "pyfathom", "annotate", str(path), "-o",
                              str(out), "--tables", str(tables)], capture_output=True, text=True)
        cli_s = time.perf_counter() - start
        rows = collect_positions(path, tb.largest, 50_000)
        probes = time_probes(tb, rows)
    finally:
        tb.close()
    result = {
        "games": games,
        "games_in_tables": summary.games_in_tables,
        "positions_probed": summary.positions_probed,
        "mistakes": summary.mistakes,
        "read_games_per_sec": spread([games / s for s in read_s]),
        "annotate_games_per_sec": spread([games / s for s in annotate_s]),
        "annotate_over_read": spread(ratios),
        "cli_games_per_sec": games / cli_s,
        "cli_status": cli.returncode,
        "oracle_games": oracle_games,
        "python_chess_annotator_games_per_sec": oracle_games / ref_s,
        "annotate_prefix_games_per_sec": oracle_games / prefix_s,
        "speedup_vs_python_chess_annotator": ref_s / prefix_s,
        "probe_positions": len(rows),
        **probes,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    g = result
    print(f"{g['games']:,} games, {g['games_in_tables']:,} reaching the tables, "
          f"{g['positions_probed']:,} positions probed, {g['mistakes']:,} mistakes")
    print(f"read (python-chess)    {g['read_games_per_sec']['median']:8,.0f} games/s "
          f"({g['read_games_per_sec']['min']:,.0f}-{g['read_games_per_sec']['max']:,.0f})")
    print(f"pyfathom annotate      {g['annotate_games_per_sec']['median']:8,.0f} games/s "
          f"({g['annotate_games_per_sec']['min']:,.0f}-{g['annotate_games_per_sec']['max']:,.0f}); "
          f"CLI end to end {g['cli_games_per_sec']:,.0f} games/s")
    print(f"annotate / read        {g['annotate_over_read']['median']:.2f}x "
          f"({g['annotate_over_read']['min']:.2f}-{g['annotate_over_read']['max']:.2f}); target <= 1.5x")
    print(f"python-chess annotator {g['python_chess_annotator_games_per_sec']:8,.1f} games/s on the "
          f"first {g['oracle_games']} games; annotate on them {g['annotate_prefix_games_per_sec']:,.0f} "
          f"games/s: {g['speedup_vs_python_chess_annotator']:.0f}x; target >= 10x")
    print(f"DTZ probes over {g['probe_positions']:,} positions: per board "
          f"{g['per_board_us']:.2f} us, batch 1 thread {g['batch_t1_us']:.2f} us, "
          f"2 threads {g['batch_t2_us']:.2f} us (arrays built included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
