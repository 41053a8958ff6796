/*
 * tb_movegen.c - standard chess's legal moves: the one generator of
 * tb_movegen.h, kept where the mover's king is safe.
 */
#include "rules/tb_movegen.h"

/* The mover's king is safe after the move.  Asked of every generated
 * move, so it looks at the board the move leaves without making it: the
 * king's square (its target if it moves), the occupancy with the mover
 * lifted, set down and the captured piece gone, and the opponent's
 * pieces but that one.  A promotion changes only the mover's own pieces. */
static int leaves_king_safe(const tb_pos *pos, tb_move m)
{
    int us = pos->turn;
    uint64_t from = 1ULL << m.from, to = 1ULL << m.to;
    uint64_t taken = 0;
    if (m.flags & TB_MOVE_EP)
        taken = us == TB_WHITE ? to >> 8 : to << 8;
    else if (m.flags & TB_MOVE_CAPTURE)
        taken = to;
    uint64_t them = pos->color[!us] & ~taken;
    uint64_t occ = ((pos->color[0] | pos->color[1]) & ~from & ~taken) | to;
    int king = m.piece == TB_KING ? m.to : tb_king_square(pos, us);
    uint64_t queens = pos->type[TB_QUEEN];
    uint64_t att = (bb_knight_attacks(king) & pos->type[TB_KNIGHT]) |
                   (bb_king_attacks(king) & pos->type[TB_KING]) |
                   (bb_pawn_attacks(king, us) & pos->type[TB_PAWN]);
    if (att & them)
        return 0;
    uint64_t diagonal = (pos->type[TB_BISHOP] | queens) & them & bb_diagonal_rays(king);
    uint64_t straight = (pos->type[TB_ROOK] | queens) & them & bb_straight_rays(king);
    return !((diagonal && (bb_bishop_attacks(king, occ) & diagonal)) ||
             (straight && (bb_rook_attacks(king, occ) & straight)));
}

static int stop_at_first(void *ctx, tb_move m)
{
    (void)ctx;
    (void)m;
    return 1;
}

/* The one generator (tb_movegen.h) in Fathom's order, king safety as the
 * filter: both the move list and "is there any" compile it with constant
 * parameters, so every call in it is direct. */
int tb_gen_legal(const tb_pos *pos, unsigned which, tb_move *moves)
{
    tb_move_list list = {moves, 0};
    tb_movegen(pos, which, MOVEGEN_ORDER_FATHOM, 0, leaves_king_safe, tb_move_list_append,
               &list);
    return list.count;
}

int tb_has_legal(const tb_pos *pos, unsigned which)
{
    return tb_movegen(pos, which, MOVEGEN_ORDER_FATHOM, 0, leaves_king_safe, stop_at_first,
                      NULL);
}

int tb_is_checkmate(const tb_pos *pos)
{
    return tb_in_check(pos) && !tb_has_legal(pos, TB_GEN_ALL);
}
