"""Fathom's and Pyrrhic's root-move order and choice, described from their
move generators (for tests/test_engine_pyrrhic.py and
tests/test_engine_fathom_order.py).

Both libraries list root moves in the order their move generators produce
them, and tb_probe_root plays the first of the quickest wins, the first of
the slowest losses, or among the drawing moves the one their material key
picks (``calc_key(pos, !turn) % draws``).
"""

from __future__ import annotations

import chess

# Fathom's PRIME_* material-key constants: white's then black's, Q R B N P.
_PRIMES = (
    (11811845319353239651, 10979190538029446137, 12311744257139811149,
     15202887380319082783, 17008651141875982339),
    (15484752644942473553, 18264461213049635989, 15394650811035483107,
     13469005675588064321, 11695583624105689831),
)
_KEY_TYPES = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)


def fathom_key(board: chess.Board, move: chess.Move) -> tuple[int, ...]:
    """Fathom's gen_moves: the king, then queens, rooks, bishops, knights,
    pawns, each piece by square, its moves by destination; a pawn's en-passant
    capture before its other moves; promotions queen, knight, rook, bishop."""
    piece = board.piece_type_at(move.from_square)
    group = {chess.KING: 0, chess.QUEEN: 1, chess.ROOK: 2, chess.BISHOP: 3,
             chess.KNIGHT: 4, chess.PAWN: 5}[piece]
    kind = 0 if board.is_en_passant(move) else 1
    promotion = {None: 0, chess.QUEEN: 0, chess.KNIGHT: 1, chess.ROOK: 2,
                 chess.BISHOP: 3}[move.promotion]
    return group, move.from_square, kind, move.to_square, promotion


def pyrrhic_key(board: chess.Board, move: chess.Move) -> tuple[int, ...]:
    """Pyrrhic's gen_moves: the king, then the rook-direction moves of rooks
    and queens, the diagonal moves of bishops and queens, knights, pawns (each
    piece by square, its moves by destination); a pawn's en-passant capture,
    single push, double push, then captures; promotions queen, rook, bishop,
    knight."""
    piece = board.piece_type_at(move.from_square)
    straight = (chess.square_file(move.from_square) == chess.square_file(move.to_square)
                or chess.square_rank(move.from_square) == chess.square_rank(move.to_square))
    group = {chess.KING: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3,
             chess.PAWN: 4}.get(piece, 1 if straight else 2)
    kind = 0
    if piece == chess.PAWN:
        step = abs(move.to_square - move.from_square)
        kind = 0 if board.is_en_passant(move) else 1 if step == 8 else 2 if step == 16 else 3
    promotion = {None: 0, chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2,
                 chess.KNIGHT: 3}[move.promotion]
    return group, move.from_square, kind, move.to_square, promotion


def draw_key(board: chess.Board) -> int:
    """calc_key(pos, !turn): the material key seen from the side to move."""
    mover, other = board.turn, not board.turn
    key = 0
    for primes, colour in ((_PRIMES[0], mover), (_PRIMES[1], other)):
        for prime, piece in zip(primes, _KEY_TYPES):
            key += len(board.pieces(piece, colour)) * prime
    return key % (1 << 64)


def expected_choice(ordered: list[chess.Move], values: dict[chess.Move, int],
                    root_dtz: int, board: chess.Board) -> chess.Move:
    """tb_probe_root's move: *ordered* in the generator's order, *values*
    each move's DTZ in plies from the root (Fathom's v), *root_dtz* the
    root's."""
    if root_dtz > 0:
        wins = [m for m in ordered if values[m] > 0]
        return min(wins, key=lambda m: values[m])  # min keeps the first of equals
    if root_dtz < 0:
        return min(ordered, key=lambda m: values[m])
    draws = [m for m in ordered if values[m] == 0]
    return draws[draw_key(board) % len(draws)]
