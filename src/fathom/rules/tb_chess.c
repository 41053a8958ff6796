/*
 * tb_chess.c - standard chess's check, making moves, and position validity
 * for the prober (its legal moves: tb_movegen.c).
 */
#include "rules/tb_chess.h"

#include <string.h>

int tb_in_check(const tb_pos *pos)
{
    uint64_t occ = pos->color[0] | pos->color[1];
    return tb_attackers(pos, tb_king_square(pos, pos->turn), !pos->turn, occ) != 0;
}

void tb_do_move(const tb_pos *pos, tb_move m, tb_pos *child)
{
    uint64_t from = 1ULL << m.from, to = 1ULL << m.to;
    int us = pos->turn, them = !us;
    int moving = m.piece;

    *child = *pos;
    if (m.flags & TB_MOVE_EP) {
        /* The captured pawn stands beside the mover, behind the target. */
        uint64_t victim = us == TB_WHITE ? to >> 8 : to << 8;
        child->type[TB_PAWN] &= ~victim;
        child->color[them] &= ~victim;
    } else if (m.flags & TB_MOVE_CAPTURE) {
        for (int t = TB_PAWN; t <= TB_KING; t++)
            child->type[t] &= ~to;
        child->color[them] &= ~to;
    }
    child->type[moving] &= ~from;
    child->type[m.promo ? m.promo : moving] |= to;
    child->color[us] = (child->color[us] & ~from) | to;
    child->ep = (m.flags & TB_MOVE_DOUBLE) ? (uint8_t)((m.from + m.to) / 2) : 0;
    child->turn = (uint8_t)them;
    if (m.flags & (TB_MOVE_CAPTURE | TB_MOVE_PAWN))
        child->rule50 = 0;
    else if (child->rule50 < 255)
        child->rule50++;
}

/* The whole line through a and b, or 0 when they share none. */
static uint64_t line_through(int a, int b)
{
    if ((a >> 3) == (b >> 3))
        return TB_RANK_1 << (a & 56);
    if ((a & 7) == (b & 7))
        return TB_FILE_A << (a & 7);
    if ((a & 7) - (a >> 3) == (b & 7) - (b >> 3))
        return tb_diagonal_through(a);
    if ((a & 7) + (a >> 3) == (b & 7) + (b >> 3))
        return tb_antidiagonal_through(a);
    return 0;
}

int tb_ep_square_valid(const tb_pos *pos, unsigned ep)
{
    if (ep > 63)
        return 0;
    int white = pos->turn == TB_WHITE;
    if ((int)(ep >> 3) != (white ? 5 : 2))
        return 0;
    uint64_t occ = pos->color[0] | pos->color[1];
    uint64_t target = 1ULL << ep;
    uint64_t pushed = white ? target >> 8 : target << 8;
    uint64_t origin = white ? target << 8 : target >> 8;
    if (!(pos->type[TB_PAWN] & pos->color[!pos->turn] & pushed))
        return 0;
    return !(occ & target) && !(occ & origin);
}

int tb_pos_pieces_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                                 uint64_t kings, uint64_t queens, uint64_t rooks,
                                 uint64_t bishops, uint64_t knights, uint64_t pawns,
                                 int turn)
{
    if (!tb_pieces_partition(white, black, kings, queens, rooks, bishops, knights, pawns))
        return 0;
    /* One king a side: each mask a single bit (one test, not four). */
    uint64_t white_king = kings & white, black_king = kings & black;
    if (!white_king | !black_king | ((white_king & (white_king - 1)) != 0) |
        ((black_king & (black_king - 1)) != 0))
        return 0;

    tb_pos_set(pos, white, black, kings, queens, rooks, bishops, knights, pawns, turn);
    return 1;
}

int tb_pos_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                          uint64_t kings, uint64_t queens, uint64_t rooks,
                          uint64_t bishops, uint64_t knights, uint64_t pawns,
                          unsigned ep, int turn)
{
    uint64_t occ = white | black;
    if (!tb_pos_pieces_from_bitboards(pos, white, black, kings, queens, rooks, bishops,
                                      knights, pawns, turn))
        return 0;

    int ep_valid = 0;
    if (ep != 0) {
        if (!tb_ep_square_valid(pos, ep))
            return 0;
        ep_valid = 1;
        pos->ep = (uint8_t)ep;
    }

    /* The side that just moved may not be left in check. */
    if (tb_attackers(pos, tb_king_square(pos, !pos->turn), pos->turn, occ))
        return 0;

    int our_king = tb_king_square(pos, pos->turn);
    uint64_t checkers = tb_attackers(pos, our_king, !pos->turn, occ);
    if (checkers) {
        int n = tb_popcount(checkers);
        if (n > 2)
            return 0;
        if (ep_valid) {
            /* After a double push only that pawn, or a piece it
             * uncovered, can give check. */
            int pushed_to = (int)ep ^ 8, pushed_from = (int)ep ^ 24;
            uint64_t before = (occ & ~(1ULL << pushed_to)) | (1ULL << pushed_from);
            int last = tb_msb(checkers);
            if (n > 1 || (last != pushed_to &&
                          tb_attackers(pos, our_king, !pos->turn, before)))
                return 0;
        } else if (n == 2) {
            int a = bb_lsb(checkers), b = tb_msb(checkers);
            if (line_through(a, b) & (1ULL << our_king))
                return 0;
        }
    }
    return 1;
}
