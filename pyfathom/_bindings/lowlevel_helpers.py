"""Thin wrappers over the application helpers of the C core
(``fathom_helpers.h``): what ``pyfathom annotate`` builds on, apart from
the instance and probe API that :mod:`pyfathom._bindings.lowlevel` wraps.

- :func:`best_move` (``fathom_best_move``): the best move under the clock,
  as ``pyfathom annotate`` ranks moves;
- :func:`move_san` (``fathom_move_san``): a move's SAN as python-chess
  writes it;
- :func:`game_replay` (``fathom_game_replay``) with its start positions
  (:func:`game_start`, :func:`game_start_from_fen`): a game's SAN moves
  replayed, and probed, in one call.

Like :mod:`pyfathom._bindings.lowlevel`, this is a binding module: one wrapper per C
function, Python ints and bytes in and out; status codes and failure
details use ``lowlevel``'s types.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from pyfathom._core import ffi, lib
from pyfathom._bindings.lowlevel import NULL, Detail, Handle, _board, _detail
from pyfathom._types import Status


# ---- the best move and its SAN ----------------------------------------------

class BestMove(NamedTuple):
    """What ``fathom_best_move`` returned."""

    status: int
    move: Optional[tuple[int, int, int]]
    """(from, to, promotion) of the best move; None when there is no legal move."""
    dtz: int
    dtz_precise: bool
    result: int
    dtz_probes: int
    detail: Detail
    on_edge: bool = False
    """A move that can be best sits on the 50-move edge with a rounded DTZ:
    rank with ``probe_root`` instead (``move`` is None)."""


def best_move(handle: Handle, white: int, black: int, kings: int, queens: int,
              rooks: int, bishops: int, knights: int, pawns: int, ep: int,
              turn: bool, rule50: int, dtz_hint: int = 0) -> BestMove:
    """``fathom_best_move``: the best move under the clock with WDL probes of
    every move and DTZ probes only where a quiet move can still be best
    (``dtz_hint``: the position's DTZ if known, else 0; the answer does not
    depend on it)."""
    found = ffi.new("fathom_best *")
    d = ffi.new("fathom_detail *")
    status = lib.fathom_best_move(handle, _board(white, black, kings, queens, rooks, bishops,
                                                 knights, pawns, ep, turn, rule50),
                                  dtz_hint, found, d)
    if status != Status.OK:
        return BestMove(status, None, 0, False, 0, 0, _detail(d))
    if not found.count:
        return BestMove(status, None, 0, True, 0, 0, Detail())
    if found.on_edge:
        return BestMove(status, None, 0, False, 0, found.dtz_probes, Detail(), on_edge=True)
    best = found.move
    return BestMove(status, (getattr(best, "from"), best.to, best.promotion), best.dtz,
                    bool(best.dtz_precise), found.result, found.dtz_probes, Detail())


SAN_MAX: int = lib.FATHOM_SAN_MAX


def move_san(white: int, black: int, kings: int, queens: int, rooks: int, bishops: int,
             knights: int, pawns: int, ep: int, turn: bool, from_square: int, to_square: int,
             promotion: int) -> Optional[str]:
    """``fathom_move_san``: the legal move's SAN as python-chess writes it;
    None where the C core does not write it (a move that is not legal there,
    an invalid position or too many pieces)."""
    out = ffi.new("char[]", SAN_MAX)
    board = _board(white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn, 0)
    n = lib.fathom_move_san(board, from_square, to_square, promotion, out, SAN_MAX)
    return ffi.string(out, n).decode("ascii") if n > 0 else None


# ---- replaying a game's SAN moves ------------------------------------------

GAME_DONE: int = lib.FATHOM_GAME_DONE
GAME_STOP_START: int = lib.FATHOM_GAME_STOP_START
GAME_STOP_TOKEN: int = lib.FATHOM_GAME_STOP_TOKEN
GAME_STOP_ILLEGAL: int = lib.FATHOM_GAME_STOP_ILLEGAL
GAME_STOP_AMBIGUOUS: int = lib.FATHOM_GAME_STOP_AMBIGUOUS
GAME_STOP_ROOM: int = lib.FATHOM_GAME_STOP_ROOM

_COUNTER_LIMIT = 0x7FFFFFFF


def game_start(white: int, black: int, kings: int, queens: int, rooks: int, bishops: int,
               knights: int, pawns: int, promoted: int, castling: int, ep: Optional[int],
               turn: bool, halfmove: int, fullmove: int) -> Any:
    """A start position for :func:`game_replay` (a ``fathom_game_position``),
    from python-chess's board attributes; None when a value does not fit
    (a clock past 2**31, a bitboard past 64 bits), which no replay takes."""
    if not (0 <= halfmove <= _COUNTER_LIMIT and 0 <= fullmove <= _COUNTER_LIMIT
            and (ep is None or 0 <= ep < 64)):
        return None
    masks = (white, black, kings, queens, rooks, bishops, knights, pawns, promoted, castling)
    if any(not 0 <= m < 1 << 64 for m in masks):
        return None
    start = ffi.new("fathom_game_position *")
    (start.white, start.black, start.kings, start.queens, start.rooks, start.bishops,
     start.knights, start.pawns, start.promoted, start.castling) = masks
    start.ep = ep or 0
    start.turn = 1 if turn else 0
    start.halfmove = halfmove
    start.fullmove = fullmove
    return start


def game_start_from_fen(fen: str) -> Any:
    """A start position for :func:`game_replay` from a FEN the C parser
    (``fathom_parse_fen``) reads as python-chess 1.11's ``Board(fen)`` does:
    six or four fields, no castling rights.  None for any other FEN (the
    caller then asks python-chess): castling fields (python-chess's rules
    for them are its own), EPD or counters past the C parser's range."""
    if not fen.isascii():
        return None
    data = fen.encode("ascii")
    board = ffi.new("fathom_board *")
    if lib.fathom_parse_fen(data, len(data), board) != lib.FATHOM_FEN_OK or board.castling:
        return None
    start = ffi.new("fathom_game_position *")
    start.white, start.black, start.kings = board.white, board.black, board.kings
    start.queens, start.rooks, start.bishops = board.queens, board.rooks, board.bishops
    start.knights, start.pawns = board.knights, board.pawns
    start.ep, start.turn = board.ep, board.turn
    start.halfmove, start.fullmove = board.halfmove, board.fullmove
    return start


class GameReplay(NamedTuple):
    """What ``fathom_game_replay`` did: ``stop`` is GAME_DONE or why it
    stopped; ``records[0:written]`` the position records (from position
    ``first`` on, or from 0 with ``record_all``); ``moves`` the moves
    replayed."""

    stop: int
    moves: int
    first: int
    written: int
    records: Any


def game_replay(handle: Optional[Handle], start: Any, sans: bytes, largest: int,
                record_all: bool = False) -> GameReplay:
    """``fathom_game_replay``: play the space-separated SAN tokens ``sans``
    from ``start`` (:func:`game_start`) and probe DTZ from the first
    position with no castling rights and at most ``largest`` pieces
    (``handle`` None: no probes).  The records are fresh memory, kept
    alive by the returned tuple."""
    cap = sans.count(b" ") + 2
    records = ffi.new("fathom_game_position[]", cap)
    summary = ffi.new("fathom_game_summary *")
    stop = lib.fathom_game_replay(NULL if handle is None else handle, start, sans, len(sans),
                                  largest, lib.FATHOM_GAME_RECORD_ALL if record_all else 0,
                                  records, cap, summary)
    return GameReplay(stop, summary.moves, summary.first, summary.records, records)
