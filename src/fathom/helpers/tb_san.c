/*
 * tb_san.c - a legal move written in Standard Algebraic Notation, as
 * python-chess 1.11.2's Board.san() writes it (pyfathom annotate names the
 * best move at each mistake in its comments).  Positions are those the
 * tables cover: no castling rights, so no castling moves.
 */
#include <string.h>

#include "fathom_helpers.h"
#include "rules/tb_chess.h"
#include "rules/tb_movegen.h"

int fathom_move_san(const fathom_board *board, unsigned from, unsigned to,
                    unsigned promotion, char *out, size_t cap)
{
    tb_pos pos;
    if (!out || cap < FATHOM_SAN_MAX)
        return -FATHOM_ERR_ARGUMENT;
    out[0] = '\0';
    if (!board || from > 63 || to > 63 || promotion > TB_KING)
        return -FATHOM_ERR_ARGUMENT;
    if (board->castling)
        return -FATHOM_ERR_CASTLING;
    if (tb_popcount(board->white | board->black) > FATHOM_MAX_PIECES)
        return -FATHOM_ERR_TOO_MANY_PIECES;
    if (!tb_pos_from_bitboards(&pos, board->white, board->black, board->kings,
                               board->queens, board->rooks, board->bishops,
                               board->knights, board->pawns, board->ep,
                               board->turn))
        return -FATHOM_ERR_INVALID_POSITION;
    tb_move legal[TB_MAX_LEGAL];
    int n = tb_gen_legal(&pos, TB_GEN_ALL, legal);
    const tb_move *move = NULL;
    uint64_t others = 0; /* squares of like pieces that may go there too */
    for (int i = 0; i < n; i++) {
        const tb_move *m = &legal[i];
        if (m->from == from && m->to == to && m->promo == promotion)
            move = m;
        else if (m->to == to && m->from != from && m->piece != TB_PAWN &&
                 (pos.type[m->piece] & (1ULL << from)))
            others |= 1ULL << m->from;
    }
    if (!move)
        return -FATHOM_ERR_ARGUMENT; /* not a legal move */

    size_t len = 0;
    int capture = (move->flags & TB_MOVE_CAPTURE) != 0;
    if (move->piece == TB_PAWN) {
        if (capture)
            out[len++] = (char)('a' + (from & 7));
    } else {
        out[len++] = TB_PIECE_LETTERS[move->piece];
        if (others) {
            /* A file tells the pieces apart unless one shares it; then the
             * rank, and both when pieces share each. */
            uint64_t rank = 0xFFULL << (from & 56), file = 0x0101010101010101ULL << (from & 7);
            int column = (others & rank) != 0, row = 0;
            if (others & file)
                row = 1;
            else
                column = 1;
            if (column)
                out[len++] = (char)('a' + (from & 7));
            if (row)
                out[len++] = (char)('1' + (from >> 3));
        }
    }
    if (capture)
        out[len++] = 'x';
    out[len++] = (char)('a' + (to & 7));
    out[len++] = (char)('1' + (to >> 3));
    if (move->promo) {
        out[len++] = '=';
        out[len++] = TB_PIECE_LETTERS[move->promo];
    }
    tb_pos child;
    tb_do_move(&pos, *move, &child);
    if (tb_in_check(&child))
        out[len++] = tb_has_legal(&child, TB_GEN_ALL) ? '+' : '#';
    out[len] = '\0';
    return (int)len;
}
