/*
 * tb_variant_rules.c - what the variants' rules give the one search
 * (tb_search_body.h) and the root probes: the move generator shared by the
 * atomic and antichess families, position validity, and one rules table
 * per variant (tb_rules, tb_search.h).  The rules themselves are in
 * tb_variant_atomic.c and tb_variant_antichess.c; python-chess 1.11.2's
 * chess.variant boards are the reference.
 */
#include "tb_variant.h"

#include <string.h>

/* ---- moves --------------------------------------------------------------- */

static void v_add(tb_move *moves, int *n, int from, int to, int piece,
                int promo, unsigned flags)
{
    if (*n >= TB_MAX_LEGAL)
        return;
    tb_move m = {(uint8_t)from, (uint8_t)to, (uint8_t)piece, (uint8_t)promo,
                 (uint8_t)flags};
    moves[(*n)++] = m;
}

static void v_add_pawn_move(tb_move *moves, int *n, int from, int to,
                          unsigned flags, int king_promotions)
{
    if ((1ULL << to) & (TB_RANK_1 | TB_RANK_8)) {
        if (king_promotions)
            v_add(moves, n, from, to, TB_PAWN, TB_KING, flags);
        for (int promo = TB_QUEEN; promo >= TB_KNIGHT; promo--)
            v_add(moves, n, from, to, TB_PAWN, promo, flags);
    } else {
        v_add(moves, n, from, to, TB_PAWN, 0, flags);
    }
}

/*
 * In python-chess's order, since the order decides which table a search
 * needs first (and so which answers a set missing some tables gives):
 * pieces from the highest square down, each to its highest target first;
 * pawn captures; single, then double pushes (highest target first); en
 * passant.
 */
int tb_variant_pseudo_legal(const tb_pos *pos, int king_promotions,
                            tb_move *moves)
{
    int us = pos->turn, n = 0;
    uint64_t mine = pos->color[us], theirs = pos->color[!us];
    uint64_t occ = mine | theirs;
    for (uint64_t pieces = mine & ~pos->type[TB_PAWN]; pieces;
         pieces &= ~(1ULL << tb_msb(pieces))) {
        int from = tb_msb(pieces), type = TB_KING;
        for (int t = TB_KNIGHT; t < TB_KING; t++)
            if ((pos->type[t] >> from) & 1)
                type = t;
        uint64_t att;
        switch (type) {
        case TB_KNIGHT: att = bb_knight_attacks(from); break;
        case TB_BISHOP: att = bb_bishop_attacks(from, occ); break;
        case TB_ROOK: att = bb_rook_attacks(from, occ); break;
        case TB_QUEEN:
            att = bb_bishop_attacks(from, occ) | bb_rook_attacks(from, occ);
            break;
        default: att = bb_king_attacks(from); break;
        }
        for (att &= ~mine; att; att &= ~(1ULL << tb_msb(att))) {
            int to = tb_msb(att);
            v_add(moves, &n, from, to, type, 0, (theirs >> to) & 1 ? TB_MOVE_CAPTURE : 0);
        }
    }
    uint64_t pawns = mine & pos->type[TB_PAWN];
    for (uint64_t p = pawns; p; p &= ~(1ULL << tb_msb(p))) {
        int from = tb_msb(p);
        for (uint64_t att = bb_pawn_attacks(from, us) & theirs; att;
             att &= ~(1ULL << tb_msb(att)))
            v_add_pawn_move(moves, &n, from, tb_msb(att), TB_MOVE_CAPTURE | TB_MOVE_PAWN,
                          king_promotions);
    }
    int step = us == TB_WHITE ? 8 : -8;
    uint64_t single = (us == TB_WHITE ? pawns << 8 : pawns >> 8) & ~occ;
    uint64_t twice = (us == TB_WHITE ? (single << 8) & 0x00000000ff000000ULL
                                     : (single >> 8) & 0x000000ff00000000ULL) & ~occ;
    for (uint64_t t = single; t; t &= ~(1ULL << tb_msb(t)))
        v_add_pawn_move(moves, &n, tb_msb(t) - step, tb_msb(t), TB_MOVE_PAWN, king_promotions);
    for (uint64_t t = twice; t; t &= ~(1ULL << tb_msb(t)))
        v_add(moves, &n, tb_msb(t) - 2 * step, tb_msb(t), TB_PAWN, 0,
            TB_MOVE_PAWN | TB_MOVE_DOUBLE);
    /* En passant: onto an empty target, by a pawn on the fifth rank. */
    if (pos->ep && !((occ >> pos->ep) & 1)) {
        uint64_t fifth = us == TB_WHITE ? 0x000000ff00000000ULL : 0x00000000ff000000ULL;
        uint64_t capturers = bb_pawn_attacks(pos->ep, !us) & pawns & fifth;
        for (; capturers; capturers &= ~(1ULL << tb_msb(capturers)))
            v_add(moves, &n, tb_msb(capturers), pos->ep, TB_PAWN, 0,
                TB_MOVE_CAPTURE | TB_MOVE_PAWN | TB_MOVE_EP);
    }
    return n;
}

int tb_variant_fill_pos(tb_pos *pos, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        int turn)
{
    uint64_t occ = white | black;
    if ((white & black) || !occ)
        return 0;
    const uint64_t masks[6] = {kings, queens, rooks, bishops, knights, pawns};
    uint64_t seen = 0, twice = 0;
    for (int i = 0; i < 6; i++) {
        twice |= seen & masks[i];
        seen |= masks[i];
    }
    if (twice || seen != occ || (pawns & (TB_RANK_1 | TB_RANK_8)))
        return 0;
    if (tb_popcount(pawns & white) > 8 || tb_popcount(pawns & black) > 8)
        return 0;
    tb_pos_set(pos, white, black, kings, queens, rooks, bishops, knights, pawns, turn);
    return 1;
}

int tb_variant_ep_valid(const tb_pos *pos, unsigned ep)
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
    return (pos->type[TB_PAWN] & pos->color[!pos->turn] & pushed) &&
           !(occ & target) && !(occ & origin);
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

/* The moves of moves[0..n) whose from and to squares lie in the masks,
 * en-passant captures left out where skip_ep. */
static int v_keep(tb_move *moves, int n, uint64_t from_mask, uint64_t to_mask,
                  int skip_ep)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        if (((from_mask >> moves[i].from) & 1) && ((to_mask >> moves[i].to) & 1) &&
            !(skip_ep && (moves[i].flags & TB_MOVE_EP)))
            moves[count++] = moves[i];
    return count;
}

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
    int n = atomic_gen_all(pos, moves);
    return v_keep(moves, n, pos->type[TB_PAWN], v_empty_squares(pos), 1);
}

static int atomic_gen_piece_quiets(const tb_pos *pos, tb_move *moves)
{
    int n = atomic_gen_all(pos, moves);
    return v_keep(moves, n, ~pos->type[TB_PAWN], v_empty_squares(pos), 0);
}

/* The game's end, then bare kings (python-chess's probe_wdl_table). */
static int atomic_decided(const tb_pos *pos, int *wdl)
{
    int end = tb_atomic_outcome(pos);
    if (end != TB_VARIANT_GOING_ON) {
        *wdl = end;
        return 1;
    }
    if (pos->type[TB_KING] == (pos->color[0] | pos->color[1])) {
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
    tb_variant_search_wdl, tb_variant_search_dtz,
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
    int n = tb_antichess_gen_legal(pos, pos->type[TB_PAWN], v_empty_squares(pos), moves);
    return v_keep(moves, n, ~0ULL, ~0ULL, 1);
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
        tb_variant_search_wdl, tb_variant_search_dtz,                             \
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
