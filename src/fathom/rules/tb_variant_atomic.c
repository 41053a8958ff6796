/*
 * tb_variant_atomic.c - the rules of atomic chess where probing needs them,
 * as python-chess's chess.variant.AtomicBoard plays them:
 *
 * - a capture explodes the capturing piece and every piece but pawns on
 *   the squares around the target (en passant: around the target square);
 * - a king cannot capture, nor blow up its own king; blowing up the enemy
 *   king wins at once, whatever checks there are;
 * - kings may stand side by side, and then neither is in check;
 * - the game is over when a king is gone.
 */
#include "rules/tb_variant.h"

static uint64_t king_of(const tb_pos *pos, int color)
{
    return pos->type[TB_KING] & pos->color[color];
}

static int kings_connected(const tb_pos *pos)
{
    uint64_t white = king_of(pos, TB_WHITE), black = king_of(pos, TB_BLACK);
    for (; white; white &= white - 1)
        if (bb_king_attacks(bb_lsb(white)) & black)
            return 1;
    return 0;
}

/* Attackers of `color`'s king (python-chess's checkers_mask for that side):
 * none when the kings touch or the king is gone. */
static uint64_t king_attackers(const tb_pos *pos, int color)
{
    uint64_t king = king_of(pos, color);
    if (!king || kings_connected(pos))
        return 0;
    uint64_t occ = pos->color[0] | pos->color[1];
    /* python-chess takes the king that was not promoted, the highest. */
    return tb_attackers(pos, tb_msb(king), !color, occ);
}

int tb_atomic_outcome(const tb_pos *pos)
{
    uint64_t kings = pos->type[TB_KING];
    if (!kings)
        return TB_VARIANT_GOING_ON;
    if (!(kings & pos->color[!pos->turn]))
        return 2;
    if (!(kings & pos->color[pos->turn]))
        return -2;
    return TB_VARIANT_GOING_ON;
}

void tb_atomic_do_move(const tb_pos *pos, tb_move m, tb_pos *child)
{
    tb_do_move(pos, m, child);
    if (!(m.flags & TB_MOVE_CAPTURE))
        return;
    /* The mover goes with its victim, and so does every piece but pawns
     * next to the target square. */
    uint64_t gone = (bb_king_attacks(m.to) & ~child->type[TB_PAWN]) | (1ULL << m.to);
    for (int t = TB_PAWN; t <= TB_KING; t++)
        child->type[t] &= ~gone;
    child->color[TB_WHITE] &= ~gone;
    child->color[TB_BLACK] &= ~gone;
}

/* python-chess's AtomicBoard.is_legal for a pseudo-legal move of a game
 * that is not over: the mover keeps a king; taking the enemy king wins
 * even from check; else the mover's king may not be left attacked. */
static int is_legal(const tb_pos *pos, tb_move m)
{
    tb_pos child;
    tb_atomic_do_move(pos, m, &child);
    if (!child.type[TB_KING] || !king_of(&child, pos->turn))
        return 0;
    if (!king_of(&child, child.turn))
        return 1;
    return king_attackers(&child, pos->turn) == 0;
}

int tb_atomic_gen_legal(const tb_pos *pos, unsigned which, tb_move *moves)
{
    if (tb_atomic_outcome(pos) != TB_VARIANT_GOING_ON)
        return 0;
    return tb_variant_gen(pos, which, 0, is_legal, moves);
}

/* generate_legal_ep asks only "into check?": a king blown up by its own
 * capture is not in check. */
static int ep_not_into_check(const tb_pos *pos, tb_move m)
{
    tb_pos child;
    tb_atomic_do_move(pos, m, &child);
    return king_attackers(&child, pos->turn) == 0;
}

int tb_atomic_gen_ep(const tb_pos *pos, tb_move *moves)
{
    if (!pos->ep || tb_atomic_outcome(pos) != TB_VARIANT_GOING_ON)
        return 0;
    return tb_variant_gen(pos, TB_GEN_EP, 0, ep_not_into_check, moves);
}

int tb_atomic_is_checkmate(const tb_pos *pos)
{
    tb_move moves[TB_MAX_LEGAL];
    return king_attackers(pos, pos->turn) != 0 &&
           tb_atomic_gen_legal(pos, TB_GEN_ALL, moves) == 0;
}

/*
 * AtomicBoard.status(): standard chess's rules except that the side to
 * move may have lost its king, the side not to move may stand "in check"
 * (its king can be taken, which wins), and checks are impossible only
 * after a double pawn push that could not have given them.
 */
int tb_atomic_pos_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                                 uint64_t kings, uint64_t queens, uint64_t rooks,
                                 uint64_t bishops, uint64_t knights,
                                 uint64_t pawns, unsigned ep, int turn)
{
    if (!tb_variant_fill_pos(pos, white, black, kings, queens, rooks, bishops,
                             knights, pawns, turn))
        return 0;
    if (tb_popcount(kings) > 2 || !(kings & (turn ? black : white)))
        return 0;
    if (ep == 0)
        return 1;
    if (!tb_ep_square_valid(pos, ep))
        return 0;
    pos->ep = (uint8_t)ep;

    uint64_t occ = white | black;
    uint64_t checkers = king_attackers(pos, pos->turn);
    if (checkers) {
        /* After a double push only that pawn, or a piece it uncovered,
         * can give check. */
        int pushed_to = (int)ep ^ 8, pushed_from = (int)ep ^ 24;
        uint64_t before = (occ & ~(1ULL << pushed_to)) | (1ULL << pushed_from);
        uint64_t ours = king_of(pos, pos->turn), attacked = 0;
        for (uint64_t k = ours; k; k &= k - 1)
            attacked |= tb_attackers(pos, bb_lsb(k), !pos->turn, before);
        if (tb_popcount(checkers) > 1 || (tb_msb(checkers) != pushed_to && attacked))
            return 0;
    }
    return 1;
}
