/*
 * tb_variant_rules.c - what the variants' rules give the one search
 * (tb_search_body.h) and the root probes: the move generator (tb_movegen.h)
 * in the order the atomic and antichess families share, position validity, and one rules table
 * per variant (tb_rules, tb_search.h).  The rules themselves are in
 * tb_variant_atomic.c and tb_variant_antichess.c; python-chess 1.11.2's
 * chess.variant boards are the reference.
 */
#include "rules/tb_variant.h"

#include <string.h>

/* ---- moves --------------------------------------------------------------- */

/* python-chess's order, since the order decides which table a search
 * needs first (and so which answers a set missing some tables gives). */
int tb_variant_gen(const tb_pos *pos, unsigned which, int king_promotions,
                   tb_move_keep keep, tb_move *moves)
{
    tb_move_list list = {moves, 0};
    tb_movegen(pos, which, MOVEGEN_ORDER_PYTHON_CHESS, king_promotions, keep,
               tb_move_list_append, &list);
    return list.count;
}

int tb_variant_fill_pos(tb_pos *pos, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        int turn)
{
    if (!(white | black) ||
        !tb_pieces_partition(white, black, kings, queens, rooks, bishops, knights, pawns))
        return 0;
    if (tb_popcount(pawns & white) > 8 || tb_popcount(pawns & black) > 8)
        return 0;
    tb_pos_set(pos, white, black, kings, queens, rooks, bishops, knights, pawns, turn);
    return 1;
}

int tb_variant_pos_from_bitboards(int variant, tb_pos *pos, uint64_t white,
                                  uint64_t black, uint64_t kings,
                                  uint64_t queens, uint64_t rooks,
                                  uint64_t bishops, uint64_t knights,
                                  uint64_t pawns, unsigned ep, int turn)
{
    if (variant == FATHOM_VARIANT_ATOMIC)
        return tb_atomic_pos_from_bitboards(pos, white, black, kings, queens, rooks,
                                            bishops, knights, pawns, ep, turn);
    return tb_antichess_pos_from_bitboards(pos, white, black, kings, queens, rooks,
                                           bishops, knights, pawns, ep, turn);
}


/* ---- the rules tables ----------------------------------------------------- */

static uint64_t v_empty_squares(const tb_pos *pos)
{
    return ~(pos->color[0] | pos->color[1]);
}

/* Atomic: checks and a royal king, en passant after the table. */

static int atomic_gen_captures(const tb_pos *pos, tb_move *moves)
{
    return tb_atomic_gen_legal(pos, TB_GEN_CAPTURES, moves);
}

static int atomic_only_ep_moves(const tb_pos *pos)
{
    tb_move moves[TB_MAX_LEGAL];
    return tb_atomic_gen_legal(pos, TB_GEN_ALL & ~TB_GEN_EP, moves) == 0;
}

static int atomic_gen_all(const tb_pos *pos, tb_move *moves)
{
    return tb_atomic_gen_legal(pos, TB_GEN_ALL, moves);
}

static int atomic_gen_pawn_pushes(const tb_pos *pos, tb_move *moves)
{
    return tb_atomic_gen_legal(pos, TB_GEN_PAWN_PUSHES, moves);
}

static int atomic_gen_piece_quiets(const tb_pos *pos, tb_move *moves)
{
    return tb_atomic_gen_legal(pos, TB_GEN_PIECE_QUIETS, moves);
}

/* The game's end, then bare kings (python-chess's probe_wdl_table). */
static int atomic_decided(const tb_pos *pos, int *wdl)
{
    int end = tb_atomic_outcome(pos);
    if (end != TB_VARIANT_GOING_ON) {
        *wdl = end;
        return 1;
    }
    if (tb_only_kings(pos)) {
        *wdl = 0;
        return 1;
    }
    return 0;
}

static const tb_rules atomic_rules = {
    atomic_gen_captures, tb_atomic_gen_ep,        atomic_only_ep_moves,
    atomic_gen_pawn_pushes, atomic_gen_piece_quiets, atomic_gen_all,
    tb_atomic_do_move,   tb_atomic_is_checkmate,  atomic_decided,
    0,
    0, 0, 0, 0,
};

/* The antichess family: compulsory captures, no check; en passant is one
 * capture among the others (none comes after the table). */

static int antichess_gen_ep(const tb_pos *pos, tb_move *moves)
{
    (void)pos;
    (void)moves;
    return 0;
}

/* Never asked: only an en-passant capture gen_ep gives makes the search
 * ask, and it gives none. */
static int antichess_only_ep_moves(const tb_pos *pos)
{
    (void)pos;
    return 0;
}

static int antichess_gen_all(const tb_pos *pos, tb_move *moves)
{
    return tb_antichess_gen_legal(pos, ~0ULL, ~0ULL, moves);
}

static int antichess_gen_pawn_pushes(const tb_pos *pos, tb_move *moves)
{
    /* The legal pawn moves onto empty squares: the pushes where nothing
     * can be taken, else (captures being compulsory) en passant alone. */
    int n = tb_antichess_gen_legal(pos, pos->type[TB_PAWN], v_empty_squares(pos), moves);
    return n && (moves[0].flags & TB_MOVE_CAPTURE) ? 0 : n;
}

static int antichess_gen_piece_quiets(const tb_pos *pos, tb_move *moves)
{
    return tb_antichess_gen_legal(pos, ~pos->type[TB_PAWN], v_empty_squares(pos), moves);
}

static int antichess_is_checkmate(const tb_pos *pos)
{
    (void)pos;
    return 0;
}

static int decided_by_outcome(int end, int *wdl)
{
    if (end == TB_VARIANT_GOING_ON)
        return 0;
    *wdl = end;
    return 1;
}

static int suicide_decided(const tb_pos *pos, int *wdl)
{
    return decided_by_outcome(tb_antichess_outcome(pos, FATHOM_VARIANT_SUICIDE), wdl);
}

static int giveaway_decided(const tb_pos *pos, int *wdl)
{
    return decided_by_outcome(tb_antichess_outcome(pos, FATHOM_VARIANT_GIVEAWAY), wdl);
}

#define ANTICHESS_RULES(decided)                                                   \
    {                                                                             \
        tb_antichess_gen_captures, antichess_gen_ep, antichess_only_ep_moves,     \
        antichess_gen_pawn_pushes, antichess_gen_piece_quiets, antichess_gen_all, \
        tb_do_move, antichess_is_checkmate, decided, 1,                           \
        0, 0, 0, 0,                                                               \
    }
static const tb_rules suicide_rules = ANTICHESS_RULES(suicide_decided);
static const tb_rules giveaway_rules = ANTICHESS_RULES(giveaway_decided);
#undef ANTICHESS_RULES

const tb_rules *tb_variant_rules(int variant)
{
    switch (variant) {
    case FATHOM_VARIANT_ATOMIC: return &atomic_rules;
    case FATHOM_VARIANT_SUICIDE: return &suicide_rules;
    default: return &giveaway_rules;
    }
}
