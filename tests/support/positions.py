"""Deterministic position generators for the test suite and the benchmarks.

Every generator takes a seeded :class:`random.Random` (or a seed) so that a
test run probes the same positions every time, and every position it returns
passes ``board.is_valid()``.  Nothing here knows pyfathom: the expected
answers come from python-chess (see :func:`oracle_answers`), never from the
code under test.

Material keys use the Syzygy spelling, white first: ``"KRPvKP"``.  A position
"of a table" may have the colours of the key swapped (``KPvKRP`` material),
since one table file holds both.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections.abc import Iterable, Iterator, Sequence

import chess
import chess.syzygy

GENERATOR_VERSION = 1
"""Part of every sample's seed: bumped whenever a generator changes what it
returns for a seed (then rewrite the committed answers: tests/support/expected.py)."""

TABLES_3 = ["KQvK", "KRvK", "KBvK", "KNvK", "KPvK"]
"""The five 3-piece tables."""

TABLES_4 = [
    "KQQvK", "KQRvK", "KQBvK", "KQNvK", "KQPvK",
    "KRRvK", "KRBvK", "KRNvK", "KRPvK",
    "KBBvK", "KBNvK", "KBPvK",
    "KNNvK", "KNPvK",
    "KPPvK",
    "KQvKQ", "KQvKR", "KQvKB", "KQvKN", "KQvKP",
    "KRvKR", "KRvKB", "KRvKN", "KRvKP",
    "KBvKB", "KBvKN", "KBvKP",
    "KNvKN", "KNvKP",
    "KPvKP",
]
"""The thirty 4-piece tables."""

ALL_TABLES = TABLES_3 + TABLES_4
"""All 35 tables in python-chess's sdist."""

_PIECE_TYPES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK,
                "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}

# Squares a pawn may stand on (ranks 2..7).
_PAWN_SQUARES = list(range(8, 56))


def parse_material(key: str, *, swap: bool = False) -> list[chess.Piece]:
    """Pieces of a material key, e.g. ``"KRvKP"`` -> K R (white) k p (black).

    With *swap*, the colours are exchanged (``KRvKP`` -> black K R, white K P).
    """
    white, black = key.split("v")
    if not white.startswith("K") or not black.startswith("K"):
        raise ValueError(f"bad material key: {key!r}")
    pieces = [chess.Piece(_PIECE_TYPES[c], chess.WHITE) for c in white]
    pieces += [chess.Piece(_PIECE_TYPES[c], chess.BLACK) for c in black]
    if swap:
        pieces = [chess.Piece(p.piece_type, not p.color) for p in pieces]
    return pieces


def _rng(seed: int | random.Random) -> random.Random:
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def _place_pieces(board: chess.Board, pieces: Iterable[chess.Piece], used: set[int],
                  rng: random.Random) -> bool:
    """Put each piece on a random square (pawns on ranks 2-7) not in
    ``used``, adding it there; False at the first square already taken
    (the caller draws the position again)."""
    for piece in pieces:
        pool = _PAWN_SQUARES if piece.piece_type == chess.PAWN else range(64)
        square = rng.choice(pool)
        if square in used:
            return False
        used.add(square)
        board.set_piece_at(square, piece)
    return True


def random_position(
    seed: int | random.Random,
    key: str,
    *,
    turn: chess.Color | None = None,
    swap: bool | None = None,
) -> chess.Board:
    """A uniformly random valid position with the material of *key*.

    Pieces go on distinct random squares (pawns on ranks 2 to 7); the side to
    move is *turn* or random; the colours are swapped with probability 1/2
    unless *swap* says.  Positions failing ``board.is_valid()`` (kings in
    contact, side not to move in check, ...) are rejected and redrawn, so the
    result is uniform over the valid positions of that material.  No castling
    rights, no en-passant square, halfmove clock 0.
    """
    rng = _rng(seed)
    do_swap = rng.random() < 0.5 if swap is None else swap
    pieces = parse_material(key, swap=do_swap)
    while True:
        board = chess.Board(None)
        ok = _place_pieces(board, pieces, set(), rng)
        board.turn = (rng.random() < 0.5) if turn is None else turn
        if ok and board.is_valid():
            return board


def has_pawns_both_sides(key: str) -> bool:
    """True if both sides of the key have a pawn (en passant is possible)."""
    white, black = key.split("v")
    return "P" in white and "P" in black


def double_push_position(
    seed: int | random.Random,
    key: str,
    *,
    legal_ep: bool = True,
    max_tries: int = 100_000,
) -> chess.Board:
    """A valid position reached by a real double pawn push.

    A pawn of the side that pushes stands on its start square with the two
    squares in front empty; the push is played with ``board.push`` so
    python-chess sets the en-passant square itself.  With *legal_ep* the
    opponent also has a pawn beside the destination and the result must have
    ``board.has_legal_en_passant()``; this needs pawns on both sides of the
    key.  Without it, any double push will do (the en-passant square is then
    usually irrelevant, which is worth testing too).

    :raises ValueError: *legal_ep* for a key without pawns on both sides, or
        no such position found in *max_tries* attempts.
    """
    rng = _rng(seed)
    if legal_ep and not has_pawns_both_sides(key):
        raise ValueError(f"{key}: en passant needs pawns on both sides")
    for _ in range(max_tries):
        pieces = parse_material(key, swap=rng.random() < 0.5)
        pushers = [p for p in pieces if p.piece_type == chess.PAWN]
        if not pushers:
            raise ValueError(f"{key}: no pawn to push")
        pusher_color = rng.choice([p.color for p in pushers])
        file = rng.randrange(8)
        if pusher_color == chess.WHITE:
            start, mid, dest = chess.square(file, 1), chess.square(file, 2), chess.square(file, 3)
        else:
            start, mid, dest = chess.square(file, 6), chess.square(file, 5), chess.square(file, 4)
        board = chess.Board(None)
        used = {start, mid, dest}
        board.set_piece_at(start, chess.Piece(chess.PAWN, pusher_color))
        rest = list(pieces)
        rest.remove(chess.Piece(chess.PAWN, pusher_color))
        if legal_ep:
            capturer = chess.Piece(chess.PAWN, not pusher_color)
            files = [f for f in (file - 1, file + 1) if 0 <= f < 8]
            cap_square = chess.square(rng.choice(files), chess.square_rank(dest))
            used.add(cap_square)
            board.set_piece_at(cap_square, capturer)
            rest.remove(capturer)
        if not _place_pieces(board, rest, used, rng):
            continue
        board.turn = pusher_color
        if not board.is_valid():
            continue
        move = chess.Move(start, dest)
        if not board.is_legal(move):
            continue
        board.push(move)
        board = board.copy(stack=False)
        if not board.is_valid():
            continue
        if legal_ep and not board.has_legal_en_passant():
            continue
        return board
    raise ValueError(f"{key}: no double-push position found in {max_tries} tries")


def table_sample(
    key: str,
    n: int,
    *,
    seed: int = 0,
    ep_share: float = 0.0,
    push_share: float = 0.0,
) -> list[chess.Board]:
    """*n* distinct positions of table *key*, deterministic for *seed*.

    A share *ep_share* of them (only for keys with pawns on both sides) has a
    legal en-passant capture made by a real double push; a share
    *push_share* (keys with any pawn) comes from a double push whose
    en-passant square may be irrelevant.  The rest are
    :func:`random_position`.  Both sides to move, both colour orientations.
    """
    rng = random.Random(f"{GENERATOR_VERSION}:{key}:{seed}")
    n_ep = int(n * ep_share) if has_pawns_both_sides(key) else 0
    n_push = int(n * push_share) if "P" in key else 0
    seen: set[str] = set()
    out: list[chess.Board] = []

    def add(board: chess.Board) -> None:
        fen = board.fen(en_passant="fen")
        if fen not in seen:
            seen.add(fen)
            out.append(board)

    while len(out) < n_ep:
        add(double_push_position(rng, key, legal_ep=True))
    while len(out) < n_ep + n_push:
        add(double_push_position(rng, key, legal_ep=False))
    while len(out) < n:
        add(random_position(rng, key))
    return out


def enumerate_positions(key: str) -> Iterator[chess.Board]:
    """Every valid position of a 3-piece table, white holding the extra piece.

    Yields both sides to move; the colour-swapped positions (which the same
    table holds) are not repeated.  About 370,000 positions per table and a
    few seconds of python-chess time each: use sparingly.
    """
    pieces = parse_material(key)
    if len(pieces) != 3:
        raise ValueError(f"{key}: only 3-piece tables are enumerated")
    board = chess.Board(None)
    for squares in _placements(pieces):
        board.clear_board()
        board.set_piece_map(dict(zip(squares, pieces)))
        for turn in (chess.WHITE, chess.BLACK):
            board.turn = turn
            if board.is_valid():
                yield board.copy(stack=False)


def _placements(pieces: Sequence[chess.Piece]) -> Iterator[tuple[int, ...]]:
    def rec(i: int, used: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if i == len(pieces):
            yield used
            return
        pool = _PAWN_SQUARES if pieces[i].piece_type == chess.PAWN else range(64)
        for sq in pool:
            if sq not in used:
                yield from rec(i + 1, used + (sq,))

    return rec(0, ())


def bitboards(board: chess.Board) -> tuple[int, ...]:
    """The ten probe arguments of a board: white, black, kings, queens, rooks,
    bishops, knights, pawns, ep (square or 0), turn (1 = white)."""
    return (
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
        board.kings, board.queens, board.rooks, board.bishops,
        board.knights, board.pawns, board.ep_square or 0, int(board.turn),
    )


def to_arrays(boards: Sequence[chess.Board]) -> dict[str, "object"]:
    """numpy arrays for the batch calls: masks as uint64, ep and turn as uint8."""
    import numpy as np

    rows = [bitboards(b) for b in boards]
    names = ["white", "black", "kings", "queens", "rooks", "bishops",
             "knights", "pawns", "ep", "turn"]
    out: dict[str, object] = {}
    for i, name in enumerate(names):
        dtype = np.uint8 if name in ("ep", "turn") else np.uint64
        out[name] = np.array([r[i] for r in rows], dtype=dtype)
    return out


# --------------------------------------------------------------------------
# Oracle: python-chess answers, computed in worker processes (for
# tests/support/expected.py, which writes the committed answers).

_ORACLE_TB: chess.syzygy.Tablebase | None = None


def _oracle_init(directory: str) -> None:
    global _ORACLE_TB
    _ORACLE_TB = chess.syzygy.open_tablebase(directory)


def oracle_answer(oracle: chess.syzygy.Tablebase, board: chess.Board,
                  dtz: bool = True) -> tuple[object, object]:
    """python-chess's ``(probe_wdl, probe_dtz)`` of one board (``dtz``
    False: None for the DTZ, not probed); a ``KeyError`` as its class name."""
    out: list[object] = []
    for probe in (oracle.probe_wdl, oracle.probe_dtz) if dtz else (oracle.probe_wdl,):
        try:
            out.append(probe(board))
        except KeyError as exc:
            out.append(type(exc).__name__)
    return out[0], out[1] if dtz else None


def _oracle_one(tb: chess.syzygy.Tablebase, fen: str, dtz: bool) -> list[object]:
    return list(oracle_answer(tb, chess.Board(fen), dtz))


def _oracle_chunk(args: tuple[list[str], bool]) -> list[list[object]]:
    fens, dtz = args
    assert _ORACLE_TB is not None
    return [_oracle_one(_ORACLE_TB, fen, dtz) for fen in fens]


def oracle_answers(
    directory: str | os.PathLike[str],
    fens: Sequence[str],
    *,
    dtz: bool = True,
    processes: int | None = None,
) -> list[tuple[int | str, int | str | None]]:
    """python-chess's ``(probe_wdl, probe_dtz)`` for each FEN.

    A ``KeyError`` raised by python-chess is returned as its class name.
    The work is spread over *processes* worker processes (default: one per
    CPU).
    """
    procs = processes or os.cpu_count() or 1
    chunk = 250
    jobs = [(list(fens[i:i + chunk]), dtz) for i in range(0, len(fens), chunk)]
    if procs <= 1 or len(jobs) <= 1:
        _oracle_init(str(directory))
        parts = [_oracle_chunk(job) for job in jobs]
    else:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        with ctx.Pool(procs, initializer=_oracle_init, initargs=(str(directory),)) as pool:
            parts = pool.map(_oracle_chunk, jobs, chunksize=1)
    return [(r[0], r[1]) for part in parts for r in part]  # type: ignore[misc]


# --------------------------------------------------------------------------
# Comparing pyfathom with the oracle.

def probe_all(tb: object, board: chess.Board) -> tuple[object, object, object]:
    """``(probe_wdl, probe_dtz, probe)`` of pyfathom for one board; a
    ``KeyError`` is returned as its class name (as :func:`oracle_answers`
    does), any other exception propagates."""
    out: list[object] = []
    for name in ("probe_wdl", "probe_dtz", "probe"):
        try:
            out.append(getattr(tb, name)(board))
        except KeyError as exc:
            out.append(type(exc).__name__)
    return out[0], out[1], out[2]


def compare_with_oracle(
    tb: object,
    boards: Sequence[chess.Board],
    answers: Sequence[tuple[object, object]],
    *,
    dtz: bool = True,
) -> list[str]:
    """Probe every board with pyfathom and list the disagreements with
    python-chess's *answers* (one readable line each, FEN first).

    WDL and DTZ must be equal (plain ints compared, so ``WDL.WIN == 2``);
    ``probe`` must give the same two numbers in one call.  Where python-chess
    raised a ``KeyError`` pyfathom must raise one too.
    """
    bad: list[str] = []
    for board, (o_wdl, o_dtz) in zip(boards, answers, strict=True):
        fen = board.fen(en_passant="fen")
        wdl, dt, probe = probe_all(tb, board) if dtz else (
            _try(tb, "probe_wdl", board), None, None)
        problems = []
        if not _same(o_wdl, wdl):
            problems.append(f"wdl python-chess={o_wdl} pyfathom={wdl!r}")
        if dtz:
            if not _same(o_dtz, dt):
                problems.append(f"dtz python-chess={o_dtz} pyfathom={dt!r}")
            if isinstance(o_wdl, int) and isinstance(o_dtz, int):
                if isinstance(probe, str) or probe is None:
                    problems.append(f"probe raised {probe}")
                else:
                    p_wdl, p_dtz = probe[0], probe[1]  # type: ignore[index]
                    if (p_wdl, p_dtz) != (o_wdl, o_dtz):
                        problems.append(
                            f"probe python-chess=({o_wdl}, {o_dtz}) pyfathom={probe!r}")
        if problems:
            bad.append(f"{fen}: " + "; ".join(problems))
    return bad


def _try(tb: object, name: str, board: chess.Board) -> object:
    try:
        return getattr(tb, name)(board)
    except KeyError as exc:
        return type(exc).__name__


def _same(expected: object, actual: object) -> bool:
    if isinstance(expected, str):
        # python-chess raised a KeyError: pyfathom must raise a KeyError too.
        return isinstance(actual, str)
    return isinstance(actual, int) and not isinstance(actual, bool) and actual == expected


def mismatch_report(what: str, total: int, bad: Sequence[str], limit: int = 25) -> str:
    """An assertion message: count, then the first *limit* mismatching FENs."""
    lines = [f"{what}: {len(bad)} of {total} positions disagree with python-chess"]
    lines += bad[:limit]
    if len(bad) > limit:
        lines.append(f"... and {len(bad) - limit} more")
    return "\n".join(lines)
