"""FEN and SAN of endgame positions, faster than python-chess's, with the
same text (for :mod:`pyfathom.annotate`'s comments and report)."""

from __future__ import annotations

import chess

from pyfathom._bindings import lowlevel_helpers as _helpers

_EMPTY_RUNS = [("1" * n, str(n)) for n in range(8, 1, -1)]


def _fen(board: chess.Board) -> str:
    """``board.fen()``, placing only the pieces there are (python-chess's
    loop asks each of the 64 squares: 30-40 us; this about 7 us on an
    endgame position); the same text."""
    cells = ["1"] * 64
    white = board.occupied_co[chess.WHITE]
    for pieces, letters in ((board.pawns, "Pp"), (board.knights, "Nn"), (board.bishops, "Bb"),
                            (board.rooks, "Rr"), (board.queens, "Qq"), (board.kings, "Kk")):
        while pieces:
            square = (pieces & -pieces).bit_length() - 1
            pieces &= pieces - 1
            cells[square ^ 56] = letters[0] if white >> square & 1 else letters[1]
    placement = "/".join(["".join(cells[i:i + 8]) for i in range(0, 64, 8)])
    for ones, digit in _EMPTY_RUNS:
        if ones in placement:
            placement = placement.replace(ones, digit)
    ep = board.ep_square
    ep_text = chess.SQUARE_NAMES[ep] if ep is not None and board.has_legal_en_passant() else "-"
    castling = board.castling_xfen() if board.castling_rights else "-"
    return (f"{placement} {'w' if board.turn == chess.WHITE else 'b'} {castling} {ep_text} "
            f"{board.halfmove_clock} {board.fullmove_number}")


def _san(board: chess.Board, move: chess.Move) -> str:
    """``board.san(move)``, written by the C core (2 us against python-chess's
    10 us: most of the cost of naming a best move) where it can: positions
    without castling rights; python-chess otherwise."""
    if not board.castling_rights:
        occ = board.occupied_co
        san = _helpers.move_san(occ[1], occ[0], board.kings, board.queens, board.rooks,
                                board.bishops, board.knights, board.pawns, board.ep_square or 0,
                                board.turn, move.from_square, move.to_square, move.promotion or 0)
        if san is not None:
            return san
    return board.san(move)
