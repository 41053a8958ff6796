"""The legal moves of a position and the facts lichess's document gives of
each (SAN, zeroing, conversion, mate, stalemate, variant ends), from
python-chess's rules: :func:`children`.

Standard chess takes a fast path that reuses one move generation for SAN
and the facts; the variants (atomic, antichess) ask python-chess's board
of that variant for each, so that their rules (explosions, forced
captures, a king that is an ordinary piece) are python-chess's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Optional

import chess

__all__ = ["Child", "children"]

_PIECE_LETTERS = " PNBRQK"
_BB_SQUARES = chess.BB_SQUARES


def _san(board: chess.Board, move: chess.Move, piece: int, capture: bool,
         rivals: list[int], check: bool, mate: bool) -> str:
    """SAN of a legal ``move`` of a ``piece`` (as python-chess writes it),
    given the squares of the other pieces of that type that can reach the
    same square, and whether the move checks or mates: this reuses the move
    generation the caller already made."""
    suffix = "#" if mate else "+" if check else ""
    to_name = chess.SQUARE_NAMES[move.to_square]
    if piece == chess.PAWN:
        text = (chess.FILE_NAMES[chess.square_file(move.from_square)] + "x" if capture else "")
        text += to_name
        if move.promotion:
            text += "=" + _PIECE_LETTERS[move.promotion]
        return text + suffix
    if piece == chess.KING and board.castling_rights and board.is_castling(move):
        side = "O-O" if chess.square_file(move.to_square) > chess.square_file(move.from_square) \
            else "O-O-O"
        return side + suffix
    text = _PIECE_LETTERS[piece]
    if rivals:
        file, rank = chess.square_file(move.from_square), chess.square_rank(move.from_square)
        same_file = any(chess.square_file(s) == file for s in rivals)
        same_rank = any(chess.square_rank(s) == rank for s in rivals)
        if same_rank or not same_file:
            text += chess.FILE_NAMES[file]
        if same_file:
            text += chess.RANK_NAMES[rank]
    return text + ("x" if capture else "") + to_name + suffix


def _has_legal_move(board: chess.Board) -> bool:
    for _ in board.generate_legal_moves():
        return True
    return False


class Child(NamedTuple):
    """A legal move and what the document says of the position after it,
    all but the probe (which the caller makes now or collects for later)."""

    move: chess.Move
    order: int                 # in python-chess's generation order (the last sort key)
    san: str
    zeroing: bool
    captured: Optional[int]    # piece type taken, en passant included
    checkmate: bool
    stalemate: bool
    insufficient: bool
    clock: int                 # the halfmove clock the move leaves
    conversion: bool = False   # a capture or a promotion (lichess's "conversion")
    variant_win: bool = False  # the variant's own end, for the side to move after it
    variant_loss: bool = False


def children(board: chess.Board, visit: Callable[[chess.Board], None]) -> list[Child]:
    """Every legal move of ``board`` with its facts, in generation order.

    ``visit`` is called once per move, in the same order, with the move
    pushed on ``board`` (so with the position after it): the one place a
    caller probes that position, or collects it for a batch probe.
    ``board`` is left as it was."""
    if type(board) is not chess.Board:
        return _variant_children(board, visit)
    legal = list(board.generate_legal_moves())
    them = board.occupied_co[not board.turn]
    ep_square = board.ep_square
    piece_type_at = board.piece_type_at
    # Which pieces of a type reach each square (for SAN's disambiguation).
    reaching: dict[tuple[int, int], list[int]] = {}
    pieces = []
    for move in legal:
        piece = piece_type_at(move.from_square) or 0
        pieces.append(piece)
        if piece != chess.PAWN and piece != chess.KING:
            reaching.setdefault((move.to_square, piece), []).append(move.from_square)
    children = []
    for index, move in enumerate(legal):
        piece = pieces[index]
        to_square = move.to_square
        if them & _BB_SQUARES[to_square]:
            captured = piece_type_at(to_square)
        elif piece == chess.PAWN and to_square == ep_square \
                and chess.square_file(to_square) != chess.square_file(move.from_square):
            captured = chess.PAWN
        else:
            captured = None
        board.push(move)
        try:
            check = board.is_check()
            moves_left = _has_legal_move(board)
            insufficient = board.is_insufficient_material()
            clock = board.halfmove_clock
            visit(board)
        finally:
            board.pop()
        mate = check and not moves_left
        rivals = [s for s in reaching.get((to_square, piece), ()) if s != move.from_square]
        children.append(Child(
            move, index, _san(board, move, piece, captured is not None, rivals, check, mate),
            piece == chess.PAWN or captured is not None, captured, mate,
            not check and not moves_left, insufficient, clock,
            captured is not None or move.promotion is not None))
    return children


def _variant_children(board: chess.Board, visit: Callable[[chess.Board], None]) -> list[Child]:
    """:func:`children` of a variant board, each fact from python-chess's
    methods for that variant (slower than the standard path, and exact)."""
    out = []
    for index, move in enumerate(list(board.generate_legal_moves())):
        san = board.san(move)
        zeroing = board.is_zeroing(move)
        captured: Optional[int] = None
        if board.is_capture(move):
            captured = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
        board.push(move)
        try:
            facts = (board.is_checkmate(), board.is_stalemate(), board.is_insufficient_material(),
                     board.halfmove_clock)
            variant_win, variant_loss = board.is_variant_win(), board.is_variant_loss()
            visit(board)
        finally:
            board.pop()
        out.append(Child(move, index, san, zeroing, captured, *facts,
                         captured is not None or move.promotion is not None,
                         variant_win, variant_loss))
    return out


