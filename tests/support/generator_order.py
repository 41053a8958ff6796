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
import chess.syzygy

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


def move_dtz(board: chess.Board, move: chess.Move, oracle: chess.syzygy.Tablebase) -> int:
    """Fathom's and Pyrrhic's v of a root move from python-chess's answers:
    DTZ in plies from the root, sign for the mover (1 for a mate, +-1 or
    +-101 for a zeroing move by the WDL it leaves)."""
    child = board.copy(stack=False)
    child.push(move)
    if child.is_checkmate():
        return 1
    if child.halfmove_clock == 0:
        return {-2: 1, -1: 101, 0: 0, 1: -101, 2: -1}[oracle.probe_wdl(child)]
    v = -oracle.probe_dtz(child)
    return v + 1 if v > 0 else v - 1 if v < 0 else 0


# Plies either side of the 50-move limit where the settling search may
# change a rounded DTZ by one (tbprobe.h): the plain formulas do not apply.
EDGE = 2


def near_edge(dtz: int, clock: int) -> bool:
    """A DTZ this close to the plies the clock leaves (winner's or loser's)."""
    return dtz != 0 and (abs(abs(dtz) + clock - 100) <= EDGE
                         or abs(2 * abs(dtz) + clock - 100) <= EDGE)


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
