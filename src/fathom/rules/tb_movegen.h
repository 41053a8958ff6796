/*
 * tb_movegen.h - internal: the one move generator, for standard chess
 * (tb_movegen.c) and for the variants (tb_variant_rules.c).
 *
 * It produces the pseudo-legal moves of the side to move of the kinds a
 * `which` mask selects (TB_GEN_*, tb_chess.h), and is parametrised by what
 * the games do differently:
 *
 *   order            the order moves come out in (below);
 *   king_promotions  a pawn may also promote to a king (antichess);
 *   keep             the legality filter, asked once per move before it is
 *                    offered (standard chess: the mover's king is safe;
 *                    atomic: its own rules; NULL keeps every move);
 *   emit             takes each kept move, and stops the generation by
 *                    returning nonzero (a move list, or "is there any?").
 *
 * Everything is always inlined: where the caller passes constants (the
 * standard-chess generator in tb_chess.c does), the compiler folds the
 * order away and calls keep and emit directly, so the standard hot path has
 * no indirect call.
 *
 * The two orders.  A search that can stop early tries moves in list order,
 * and where the tables are incomplete that order decides which answers a
 * set gives, so neither may change:
 *
 *   MOVEGEN_ORDER_FATHOM: Fathom's generator: knights, bishops, rooks,
 *     queens, kings, each from the lowest square up, to the lowest target
 *     first; then each pawn from the lowest up with its captures, en
 *     passant, single and double push (the order of tb_gen_legal);
 *   MOVEGEN_ORDER_PYTHON_CHESS: python-chess's generate_pseudo_legal_moves:
 *     pieces from the highest square down, each to its highest target
 *     first; then every pawn's captures, every single push, every double
 *     push, every en passant, each from the highest pawn down.
 *
 * Promotions come as queen, rook, bishop, knight in both (python-chess's
 * antichess puts the king before the queen).
 */
#ifndef PYFATHOM_TB_MOVEGEN_H
#define PYFATHOM_TB_MOVEGEN_H

#include "rules/tb_chess.h"
#include "platform/tb_internal.h"

enum { MOVEGEN_ORDER_FATHOM = 0, MOVEGEN_ORDER_PYTHON_CHESS = 1 };

/* A move's legality in pos; must not depend on m.promo, which is asked
 * once for all promotions of a pawn move. */
typedef int (*tb_move_keep)(const tb_pos *pos, tb_move m);
/* Takes a kept move; nonzero stops the generation. */
typedef int (*tb_move_emit)(void *ctx, tb_move m);

/* The emit of a move list: appends (up to TB_MAX_LEGAL), never stops. */
typedef struct tb_move_list {
    tb_move *moves;
    int count;
} tb_move_list;

static inline int tb_move_list_append(void *ctx, tb_move m)
{
    tb_move_list *list = (tb_move_list *)ctx;
    if (list->count < TB_MAX_LEGAL)
        list->moves[list->count++] = m;
    return 0;
}

/* The pawn moves movegen_pawn makes: TB_GEN_CAPTURES, TB_GEN_EP, and the
 * two pushes apart (python-chess lists every single push before any
 * double one). */
#define MOVEGEN_SINGLE_PUSH 16u
#define MOVEGEN_DOUBLE_PUSH 32u

/* Take the first square of *rest in the order's scan direction off it. */
TB_ALWAYS_INLINE int movegen_pop(uint64_t *rest, int order)
{
    int sq;
    if (order == MOVEGEN_ORDER_PYTHON_CHESS) {
        sq = tb_msb(*rest);
        *rest ^= 1ULL << sq;
    } else {
        sq = bb_lsb(*rest);
        *rest &= *rest - 1;
    }
    return sq;
}

/* The type of the (non-pawn) piece on sq. */
TB_ALWAYS_INLINE int movegen_type_at(const tb_pos *pos, int sq)
{
    for (int t = TB_KNIGHT; t < TB_KING; t++)
        if ((pos->type[t] >> sq) & 1)
            return t;
    return TB_KING;
}

/* Offer m if keep allows it.  RETURN: nonzero when emit stops. */
TB_ALWAYS_INLINE int movegen_offer(const tb_pos *pos, tb_move m, tb_move_keep keep,
                                   tb_move_emit emit, void *ctx)
{
    return (!keep || keep(pos, m)) && emit(ctx, m);
}

/* A pawn move, as its promotions where it reaches the last rank. */
TB_ALWAYS_INLINE int movegen_offer_pawn(const tb_pos *pos, tb_move m, int king_promotions,
                                        tb_move_keep keep, tb_move_emit emit, void *ctx)
{
    if (!((1ULL << m.to) & (TB_RANK_1 | TB_RANK_8)))
        return movegen_offer(pos, m, keep, emit, ctx);
    m.promo = TB_QUEEN;
    if (keep && !keep(pos, m))
        return 0;
    if (king_promotions) {
        m.promo = TB_KING;
        if (emit(ctx, m))
            return 1;
    }
    for (int promo = TB_QUEEN; promo >= TB_KNIGHT; promo--) {
        m.promo = (uint8_t)promo;
        if (emit(ctx, m))
            return 1;
    }
    return 0;
}

/* The moves of the piece of `type` on `from` onto `targets`. */
TB_ALWAYS_INLINE int movegen_piece(const tb_pos *pos, int from, int type, uint64_t targets,
                                   int order, tb_move_keep keep, tb_move_emit emit,
                                   void *ctx)
{
    uint64_t theirs = pos->color[!pos->turn];
    uint64_t occ = pos->color[0] | pos->color[1];
    for (uint64_t rest = bb_piece_attacks(type, from, occ) & targets; rest;) {
        int to = movegen_pop(&rest, order);
        tb_move m = {(uint8_t)from, (uint8_t)to, (uint8_t)type, 0,
                     (uint8_t)((theirs >> to) & 1 ? TB_MOVE_CAPTURE : 0)};
        if (movegen_offer(pos, m, keep, emit, ctx))
            return 1;
    }
    return 0;
}

/* The moves of the pawn on `from` of the kinds selected (TB_GEN_CAPTURES,
 * TB_GEN_EP, MOVEGEN_*_PUSH), in that order. */
TB_ALWAYS_INLINE int movegen_pawn(const tb_pos *pos, int from, unsigned kinds, int order,
                                  int king_promotions, tb_move_keep keep,
                                  tb_move_emit emit, void *ctx)
{
    int us = pos->turn;
    uint64_t occ = pos->color[0] | pos->color[1];
    if (kinds & TB_GEN_CAPTURES) {
        for (uint64_t rest = bb_pawn_attacks(from, us) & pos->color[!us]; rest;) {
            tb_move m = {(uint8_t)from, (uint8_t)movegen_pop(&rest, order), TB_PAWN, 0,
                         TB_MOVE_CAPTURE | TB_MOVE_PAWN};
            if (movegen_offer_pawn(pos, m, king_promotions, keep, emit, ctx))
                return 1;
        }
    }
    /* The en-passant square of a valid position (and of a child after a
     * double push) is empty, with the capturing pawns on the fifth rank. */
    if ((kinds & TB_GEN_EP) && pos->ep && (bb_pawn_attacks(from, us) & (1ULL << pos->ep))) {
        tb_move m = {(uint8_t)from, pos->ep, TB_PAWN, 0,
                     TB_MOVE_CAPTURE | TB_MOVE_PAWN | TB_MOVE_EP};
        if (movegen_offer(pos, m, keep, emit, ctx))
            return 1;
    }
    if (!(kinds & (MOVEGEN_SINGLE_PUSH | MOVEGEN_DOUBLE_PUSH)))
        return 0;
    int step = us == TB_WHITE ? 8 : -8;
    int one = from + step;
    if (one < 0 || one > 63 || (occ >> one) & 1)
        return 0;
    if (kinds & MOVEGEN_SINGLE_PUSH) {
        tb_move m = {(uint8_t)from, (uint8_t)one, TB_PAWN, 0, TB_MOVE_PAWN};
        if (movegen_offer_pawn(pos, m, king_promotions, keep, emit, ctx))
            return 1;
    }
    int two = one + step;
    if ((kinds & MOVEGEN_DOUBLE_PUSH) && (from >> 3) == (us == TB_WHITE ? 1 : 6) &&
        !((occ >> two) & 1)) {
        tb_move m = {(uint8_t)from, (uint8_t)two, TB_PAWN, 0, TB_MOVE_PAWN | TB_MOVE_DOUBLE};
        if (movegen_offer(pos, m, keep, emit, ctx))
            return 1;
    }
    return 0;
}

/*
 * Whether some piece of the side to move attacks an enemy piece (en
 * passant aside): 0 means no capture at all.  Most tablebase positions have
 * none, and finding that out by generating takes every piece's attacks one
 * by one; here knights, kings and pawns are shifted as whole sets, and a
 * slider's attacks are computed only where an enemy piece stands on one
 * of its lines.  Geometry only, so it holds for every game's captures.
 */
TB_ALWAYS_INLINE int movegen_may_capture(const tb_pos *pos)
{
    int us = pos->turn;
    uint64_t mine = pos->color[us], theirs = pos->color[!us];
    uint64_t occ = mine | theirs;
    /* Not "near": windef.h defines it away (the MinGW build). */
    uint64_t leaper_attacks = tb_knight_span(mine & pos->type[TB_KNIGHT]) |
                              tb_king_span(mine & pos->type[TB_KING]) |
                              tb_pawn_span(mine & pos->type[TB_PAWN], us);
    if (leaper_attacks & theirs)
        return 1;
    uint64_t queens = pos->type[TB_QUEEN];
    for (uint64_t rest = mine & (pos->type[TB_BISHOP] | queens); rest; rest &= rest - 1) {
        int sq = bb_lsb(rest);
        if ((bb_diagonal_rays(sq) & theirs) && (bb_bishop_attacks(sq, occ) & theirs))
            return 1;
    }
    for (uint64_t rest = mine & (pos->type[TB_ROOK] | queens); rest; rest &= rest - 1) {
        int sq = bb_lsb(rest);
        if ((bb_straight_rays(sq) & theirs) && (bb_rook_attacks(sq, occ) & theirs))
            return 1;
    }
    return 0;
}

/*
 * The generator: offers the moves of the kinds in `which` (TB_GEN_*) in
 * the order's sequence.  RETURN: 1 if emit stopped it, else 0.
 */
TB_ALWAYS_INLINE int tb_movegen(const tb_pos *pos, unsigned which, int order,
                                int king_promotions, tb_move_keep keep, tb_move_emit emit,
                                void *ctx)
{
    if (which == TB_GEN_CAPTURES && !movegen_may_capture(pos))
        return 0;
    uint64_t mine = pos->color[pos->turn], theirs = pos->color[!pos->turn];
    uint64_t targets = 0;
    if (which & TB_GEN_CAPTURES)
        targets |= theirs;
    if (which & TB_GEN_PIECE_QUIETS)
        targets |= ~(mine | theirs);

    if (targets && order == MOVEGEN_ORDER_FATHOM) {
        for (int type = TB_KNIGHT; type <= TB_KING; type++)
            for (uint64_t rest = mine & pos->type[type]; rest;)
                if (movegen_piece(pos, movegen_pop(&rest, order), type, targets, order,
                                  keep, emit, ctx))
                    return 1;
    } else if (targets) {
        for (uint64_t rest = mine & ~pos->type[TB_PAWN]; rest;) {
            int from = movegen_pop(&rest, order);
            if (movegen_piece(pos, from, movegen_type_at(pos, from), targets, order, keep,
                              emit, ctx))
                return 1;
        }
    }

    unsigned kinds = which & (TB_GEN_CAPTURES | TB_GEN_EP);
    if (which & TB_GEN_PAWN_PUSHES)
        kinds |= MOVEGEN_SINGLE_PUSH | MOVEGEN_DOUBLE_PUSH;
    uint64_t pawns = mine & pos->type[TB_PAWN];
    if (order == MOVEGEN_ORDER_FATHOM) {
        for (uint64_t rest = pawns; rest;)
            if (movegen_pawn(pos, movegen_pop(&rest, order), kinds, order, king_promotions,
                             keep, emit, ctx))
                return 1;
        return 0;
    }
    static const unsigned phases[4] = {TB_GEN_CAPTURES, MOVEGEN_SINGLE_PUSH,
                                       MOVEGEN_DOUBLE_PUSH, TB_GEN_EP};
    for (int i = 0; i < 4; i++)
        for (uint64_t rest = (kinds & phases[i]) ? pawns : 0; rest;)
            if (movegen_pawn(pos, movegen_pop(&rest, order), phases[i], order,
                             king_promotions, keep, emit, ctx))
                return 1;
    return 0;
}

/* ---- standard chess's legal moves (tb_movegen.c) ------------------------- */

/* Legal moves of the kinds selected by `which` (TB_GEN_*), in Fathom's
 * order; returns the count. */
TB_INTERNAL int tb_gen_legal(const tb_pos *pos, unsigned which, tb_move *moves);

/* True if the side to move has any legal move of the kinds selected. */
TB_INTERNAL int tb_has_legal(const tb_pos *pos, unsigned which);

/* True when the side to move is checkmated. */
TB_INTERNAL int tb_is_checkmate(const tb_pos *pos);

#endif /* PYFATHOM_TB_MOVEGEN_H */
