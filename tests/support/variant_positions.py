"""Positions and python-chess answers for the variant tables (tests only).

The tables live in ``<repo root>/../shared/syzygy-variants/{atomic,suicide,
giveaway}`` (see that folder's README, and :data:`support.table_cache.VARIANTS`);
:func:`variant_dir` finds them and skips, naming the folder, where they are
absent (``.ci/run`` sets ``PYFATHOM_REQUIRE_VARIANT_TABLES=1``, which turns
that skip into a failure).

:func:`table_sample` draws random legal positions of one table's material
(both colour orientations, both sides to move), a share of them taken one
capture or promotion further (into a smaller table, or through an explosion
to the end of an atomic game), and for tables with pawns on both sides a
share right after a double push (en passant).  :func:`oracle_answers` asks
python-chess 1.11.2 about them in worker processes and caches the answers,
keyed by the positions, the table files and python-chess's version.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import random
from pathlib import Path
from typing import Sequence

import chess
import chess.syzygy
import chess.variant

from support import table_cache
from support.positions import oracle_answer


# python-chess board class by uci_variant, and the folder of its tables.
BOARDS: dict[str, type[chess.Board]] = {
    "atomic": chess.variant.AtomicBoard,
    "suicide": chess.variant.SuicideBoard,
    "giveaway": chess.variant.GiveawayBoard,
    "antichess": chess.variant.AntichessBoard,
}
FOLDERS = {"atomic": "atomic", "suicide": "suicide", "giveaway": "giveaway",
           "antichess": "giveaway"}
SUFFIX = {"atomic": ".atbw", "suicide": ".stbw", "giveaway": ".gtbw", "antichess": ".gtbw"}

GENERATOR_VERSION = 1


def variant_dir(variant: str) -> Path:
    """The folder of a variant's tables, or a skip naming it."""
    return table_cache.shared_folder(table_cache.VARIANTS / FOLDERS[variant])


def table_names(variant: str) -> list[str]:
    """Every table of the folder, by its WDL file."""
    path = variant_dir(variant)
    return sorted(p.name[:-5] for p in path.iterdir() if p.name.endswith(SUFFIX[variant]))


def _place(board_type: type[chess.Board], rng: random.Random, white: str,
           black: str) -> chess.Board | None:
    board = board_type.empty()
    used: set[int] = set()
    for color, letters in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in letters:
            piece = chess.Piece.from_symbol(letter if color else letter.lower())
            squares = [s for s in range(64) if s not in used and
                       (piece.piece_type != chess.PAWN or 8 <= s < 56)]
            sq = rng.choice(squares)
            used.add(sq)
            board.set_piece_at(sq, piece)
    board.turn = rng.random() < 0.5
    return board if board.is_valid() else None


def random_position(variant: str, table: str, rng: random.Random) -> chess.Board:
    """A valid position of the table's material, colours either way."""
    strong, weak = table.split("v")
    for _ in range(10_000):
        white, black = (strong, weak) if rng.random() < 0.5 else (weak, strong)
        board = _place(BOARDS[variant], rng, white, black)
        if board is not None:
            return board
    raise AssertionError(f"no valid {variant} position of {table} found")


def _after_double_push(variant: str, table: str, rng: random.Random) -> chess.Board | None:
    """A position right after a double push where en passant is possible."""
    for _ in range(400):
        board = random_position(variant, table, rng)
        pushes = [m for m in board.legal_moves
                  if board.piece_type_at(m.from_square) == chess.PAWN and
                  abs(m.to_square - m.from_square) == 16]
        for move in pushes:
            child = board.copy(stack=False)
            child.push(move)
            if child.has_legal_en_passant() and child.is_valid():
                return child
    return None


def table_sample(variant: str, table: str, count: int, seed: int) -> list[chess.Board]:
    """``count`` legal positions for one table: about 20% one capture or
    promotion further on, 15% of pawn-versus-pawn tables just after a
    double push, the rest the table's own material."""
    rng = random.Random(f"{seed}:{variant}:{table}")
    pawns_both = "P" in table.split("v")[0] and "P" in table.split("v")[1]
    boards: list[chess.Board] = []
    while len(boards) < count:
        roll = rng.random()
        board = random_position(variant, table, rng)
        if pawns_both and roll < 0.15:
            pushed = _after_double_push(variant, table, rng)
            if pushed is not None:
                board = pushed
        elif roll > 0.8:
            # Positions of this material with a capture or promotion to play.
            for _ in range(30):
                resolving = [m for m in board.legal_moves
                             if board.is_capture(m) or m.promotion]
                if resolving:
                    child = board.copy(stack=False)
                    child.push(rng.choice(resolving))
                    if child.is_valid():
                        board = child
                        break
                board = random_position(variant, table, rng)
        board.halfmove_clock = 0
        boards.append(board)
    return boards


def sample_fens(variant: str, tables: Sequence[str], count: int, seed: int,
                cache_dir: Path | None) -> dict[str, list[str]]:
    """:func:`table_sample` FENs (en passant always written) for each
    table, cached: drawing them costs python-chess's move generation."""
    cache_file = None
    if cache_dir is not None:
        key = f"{GENERATOR_VERSION}:{chess.__version__}:{variant}:{count}:{seed}:{','.join(tables)}"
        name = hashlib.sha256(key.encode()).hexdigest()[:24]
        cache_file = cache_dir / "oracle-variants" / f"sample-{name}.json"
        try:
            data = json.loads(cache_file.read_text())
            if sorted(data) == sorted(tables):
                return {t: list(data[t]) for t in tables}
        except (OSError, ValueError):
            pass
    out = {t: [b.fen(en_passant="fen") for b in table_sample(variant, t, count, seed)]
           for t in tables}
    if cache_file is not None:
        _write_cache(cache_file, out)
    return out


# --------------------------------------------------------------------------
# Oracle: python-chess's answers, in worker processes, cached.

_ORACLE: dict[str, chess.syzygy.Tablebase] = {}


def _oracle_init(variant: str, directory: str) -> None:
    _ORACLE[variant] = chess.syzygy.open_tablebase(directory, VariantBoard=BOARDS[variant])


def _oracle_chunk(args: tuple[str, list[str]]) -> list[list[object]]:
    variant, fens = args
    tb = _ORACLE[variant]
    return [list(oracle_answer(tb, BOARDS[variant](fen))) for fen in fens]


def _write_cache(cache_file: Path, data: object) -> None:
    """``data`` as JSON in ``cache_file``, whole or not at all (a run
    beside this one may read it)."""
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, cache_file)


def _digest(directory: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        st = path.stat()
        h.update(f"{path.name}:{st.st_size}\n".encode())
    return h.hexdigest()[:16]


def oracle_answers(variant: str, fens: Sequence[str],
                   cache_dir: Path | None) -> list[tuple[object, object]]:
    """python-chess's ``(probe_wdl, probe_dtz)`` per FEN (a KeyError as its
    class name), from the cache when it holds them."""
    directory = variant_dir(variant)
    cache_file = None
    if cache_dir is not None:
        h = hashlib.sha256(f"{GENERATOR_VERSION}:{chess.__version__}:{variant}:"
                           f"{_digest(directory)}:".encode())
        for fen in fens:
            h.update(fen.encode() + b"\n")
        cache_file = cache_dir / "oracle-variants" / f"{h.hexdigest()[:24]}.json"
        try:
            data = json.loads(cache_file.read_text())
            if len(data) == len(fens):
                return [(w, d) for w, d in data]
        except (OSError, ValueError):
            pass
    chunks = [(variant, list(fens[i:i + 500])) for i in range(0, len(fens), 500)]
    procs = min(os.cpu_count() or 1, len(chunks))
    if procs <= 1:
        _oracle_init(variant, str(directory))
        parts = [_oracle_chunk(c) for c in chunks]
    else:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        with multiprocessing.get_context(method).Pool(
                procs, initializer=_oracle_init, initargs=(variant, str(directory))) as pool:
            parts = pool.map(_oracle_chunk, chunks, chunksize=1)
    result = [(r[0], r[1]) for part in parts for r in part]
    if cache_file is not None:
        _write_cache(cache_file, result)
    return result
