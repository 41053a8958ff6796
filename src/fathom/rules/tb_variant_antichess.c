/*
 * tb_variant_antichess.c - the rules of the antichess family where probing
 * needs them, as python-chess's chess.variant.SuicideBoard and
 * GiveawayBoard (AntichessBoard) play them:
 *
 * - the king is an ordinary piece: any number of them, no check, and a
 *   pawn may promote to one;
 * - a capture, when there is one, must be made (en passant included);
 * - a side without pieces has won; a side without moves (stalemate) has
 *   won in giveaway, and in suicide wins, draws or loses as it has fewer,
 *   as many or more pieces than the other side.
 */
#include "rules/tb_variant.h"

static int variant_end(const tb_pos *pos)
{
    return !pos->color[TB_WHITE] || !pos->color[TB_BLACK];
}

/* Pseudo-legal captures of the side to move, en passant included. */
static int pseudo_captures(const tb_pos *pos, tb_move *moves)
{
    return tb_variant_gen(pos, TB_GEN_CAPTURES | TB_GEN_EP, 1, NULL, moves);
}

/* The moves of moves[0..n) whose from and to squares lie in the masks. */
static int within(tb_move *moves, int n, uint64_t from_mask, uint64_t to_mask)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        if (((from_mask >> moves[i].from) & 1) && ((to_mask >> moves[i].to) & 1))
            moves[count++] = moves[i];
    return count;
}

int tb_antichess_gen_legal(const tb_pos *pos, uint64_t from_mask,
                           uint64_t to_mask, tb_move *moves)
{
    if (variant_end(pos))
        return 0;
    /* The generator's order is one: the captures alone come out in the
     * order they have among all moves. */
    int n = pseudo_captures(pos, moves);
    if (!n)
        n = tb_variant_gen(pos, TB_GEN_PAWN_PUSHES | TB_GEN_PIECE_QUIETS, 1, NULL, moves);
    return within(moves, n, from_mask, to_mask);
}

int tb_antichess_gen_captures(const tb_pos *pos, tb_move *moves)
{
    if (variant_end(pos))
        return 0;
    return pseudo_captures(pos, moves);
}

int tb_antichess_outcome(const tb_pos *pos, int variant)
{
    int us = pos->turn;
    if (!pos->color[us])
        return 2;
    tb_move moves[TB_MAX_LEGAL];
    /* Stalemate: no move, and the other side still has pieces. */
    if (variant_end(pos) || tb_antichess_gen_legal(pos, ~0ULL, ~0ULL, moves) > 0)
        return TB_VARIANT_GOING_ON;
    if (variant == FATHOM_VARIANT_GIVEAWAY)
        return 2;
    int balance = tb_popcount(pos->color[us]) - tb_popcount(pos->color[!us]);
    return balance < 0 ? 2 : balance > 0 ? -2 : 0;
}

/* SuicideBoard.status(): standard chess's rules without the ones about
 * kings and checks. */
int tb_antichess_pos_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                                    uint64_t kings, uint64_t queens,
                                    uint64_t rooks, uint64_t bishops,
                                    uint64_t knights, uint64_t pawns,
                                    unsigned ep, int turn)
{
    if (!tb_variant_fill_pos(pos, white, black, kings, queens, rooks, bishops,
                             knights, pawns, turn))
        return 0;
    if (tb_popcount(white) > 16 || tb_popcount(black) > 16)
        return 0;
    if (ep != 0) {
        if (!tb_ep_square_valid(pos, ep))
            return 0;
        pos->ep = (uint8_t)ep;
    }
    return 1;
}
