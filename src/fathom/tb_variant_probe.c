/*
 * tb_variant_probe.c - probing the tables of chess variants, with the
 * answers of python-chess 1.11.2 (chess.syzygy with a VariantBoard):
 *
 * - WDL resolves captures by alpha-beta before reading the table; in
 *   atomic as in standard chess (plus en passant afterwards), in the
 *   antichess family with compulsory captures and, where the table may
 *   hold a "don't care" value, the threats of a capture one move later
 *   (python-chess's sprobe_ab / sprobe_capts);
 * - DTZ reads the table or searches one ply, as for standard chess, and
 *   knows that a won antichess position reached by such a threat zeroes in
 *   two plies.
 *
 * The rules themselves are in tb_variant_atomic.c and
 * tb_variant_antichess.c; standard chess never comes here.
 */
#include "tb_variant.h"

#include <string.h>

/* A probe in progress. */
typedef struct vprobe {
    fathom_tb *tb;
    tb_failure *failure;
    int variant;
    tb_block_memo *memo; /* the batch thread's, or NULL */
} vprobe;

/* How a WDL search reached its value (python-chess's "success"). */
enum { VFROM_TABLE = 1, VFROM_CAPTURE = 2, VFROM_THREAT = 3 };

static int v_compulsory(const vprobe *vp)
{
    return vp->variant == FATHOM_VARIANT_SUICIDE ||
           vp->variant == FATHOM_VARIANT_GIVEAWAY;
}

static int v_fail(vprobe *vp, int status, tb_key key, const tb_entry *entry,
                int is_dtz)
{
    vp->failure->key = key;
    vp->failure->entry = entry;
    vp->failure->is_dtz = is_dtz;
    return status;
}

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

int tb_variant_gen_all(int variant, const tb_pos *pos, tb_move *moves)
{
    if (variant == FATHOM_VARIANT_ATOMIC)
        return tb_atomic_gen_legal(pos, TB_GEN_ALL, moves);
    return tb_antichess_gen_legal(pos, ~0ULL, ~0ULL, moves);
}

void tb_variant_do_move(int variant, const tb_pos *pos, tb_move m, tb_pos *child)
{
    if (variant == FATHOM_VARIANT_ATOMIC)
        tb_atomic_do_move(pos, m, child);
    else
        tb_do_move(pos, m, child);
}

int tb_variant_is_checkmate(int variant, const tb_pos *pos)
{
    /* No checks in antichess. */
    return variant == FATHOM_VARIANT_ATOMIC && tb_atomic_is_checkmate(pos);
}

static int v_outcome(const vprobe *vp, const tb_pos *pos)
{
    if (vp->variant == FATHOM_VARIANT_ATOMIC)
        return tb_atomic_outcome(pos);
    return tb_antichess_outcome(pos, vp->variant);
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

/* ---- table reads ----------------------------------------------------------- */

/* python-chess's probe_wdl_table: the game's end first, then the table. */
static int v_table_wdl(vprobe *vp, const tb_pos *pos, int *wdl)
{
    int end = v_outcome(vp, pos);
    if (end != TB_VARIANT_GOING_ON) {
        *wdl = end;
        return FATHOM_OK;
    }
    if (vp->variant == FATHOM_VARIANT_ATOMIC &&
        pos->type[TB_KING] == (pos->color[0] | pos->color[1])) {
        *wdl = 0; /* bare kings */
        return FATHOM_OK;
    }
    tb_key key = tb_key_of(pos, 0);
    tb_entry *e = tb_lookup(vp->tb, key);
    if (!e || !e->wdl.path)
        return v_fail(vp, FATHOM_ERR_MISSING_TABLE, key, e, 0);
    int status = tb_slot_ready(vp->tb, e, &e->wdl, 0);
    if (status == FATHOM_OK)
        status = tb_table_wdl(&e->wdl.table, &vp->tb->consts, pos, key, vp->memo, wdl);
    return status == FATHOM_OK ? status : v_fail(vp, status, key, e, 0);
}

static int v_table_dtz(vprobe *vp, const tb_pos *pos, int wdl, int *dtz,
                     int *precise, int *stored)
{
    tb_key key = tb_key_of(pos, 0);
    tb_entry *e = tb_lookup(vp->tb, key);
    if (!e || !e->dtz.path)
        return v_fail(vp, FATHOM_ERR_MISSING_TABLE, key, e, 1);
    int status = tb_slot_ready(vp->tb, e, &e->dtz, 1);
    if (status == FATHOM_OK)
        status = tb_table_dtz(&e->dtz.table, &vp->tb->consts, pos, key, wdl,
                              vp->memo, dtz, precise, stored);
    return status == FATHOM_OK ? status : v_fail(vp, status, key, e, 1);
}

/* ---- WDL search ---------------------------------------------------------- */

static int v_sprobe_ab(vprobe *vp, const tb_pos *pos, int alpha, int beta,
                     int threats, int *value, int *how);

/* Best of the captures (compulsory ones) for the side to move; *found says
 * whether there was any. */
static int v_sprobe_captures(vprobe *vp, const tb_pos *pos, int alpha, int beta,
                           int *value, int *found)
{
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_antichess_gen_captures(pos, moves);
    *found = n > 0;
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, how;
        tb_do_move(pos, moves[i], &child);
        int status = v_sprobe_ab(vp, &child, -beta, -alpha, 0, &v, &how);
        if (status != FATHOM_OK)
            return status;
        if (-v > alpha)
            alpha = -v;
        if (alpha >= beta)
            break;
    }
    *value = alpha;
    return FATHOM_OK;
}

static int v_sprobe_ab(vprobe *vp, const tb_pos *pos, int alpha, int beta,
                     int threats, int *value, int *how)
{
    int status;
    if (tb_popcount(pos->color[!pos->turn]) > 1) {
        int v, found;
        status = v_sprobe_captures(vp, pos, alpha, beta, &v, &found);
        if (status != FATHOM_OK)
            return status;
        if (found) {
            *value = v;
            *how = VFROM_CAPTURE;
            return FATHOM_OK;
        }
    } else {
        /* Taking the last enemy piece hands the opponent the win. */
        tb_move moves[TB_MAX_LEGAL];
        if (tb_antichess_gen_captures(pos, moves) > 0) {
            *value = -2;
            *how = VFROM_CAPTURE;
            return FATHOM_OK;
        }
    }

    /* No capture now: a quiet move that forces the opponent into one
     * decides where the table may store a "don't care". */
    int threats_found = 0;
    if (threats || tb_popcount(pos->color[0] | pos->color[1]) >= 6) {
        tb_move moves[TB_MAX_LEGAL];
        int n = tb_antichess_gen_legal(pos, ~pos->type[TB_PAWN], ~0ULL, moves);
        for (int i = 0; i < n; i++) {
            tb_pos child;
            int v, found;
            tb_do_move(pos, moves[i], &child);
            status = v_sprobe_captures(vp, &child, -beta, -alpha, &v, &found);
            if (status != FATHOM_OK)
                return status;
            if (found && -v > alpha) {
                threats_found = 1;
                alpha = -v;
                if (alpha >= beta) {
                    *value = -v;
                    *how = VFROM_THREAT;
                    return FATHOM_OK;
                }
            }
        }
    }

    int v;
    status = v_table_wdl(vp, pos, &v);
    if (status != FATHOM_OK)
        return status;
    if (v > alpha) {
        *value = v;
        *how = VFROM_TABLE;
    } else {
        *value = alpha;
        *how = threats_found ? VFROM_THREAT : VFROM_TABLE;
    }
    return FATHOM_OK;
}

/* python-chess's probe_ab for a variant. */
static int v_probe_ab(vprobe *vp, const tb_pos *pos, int alpha, int beta,
                    int threats, int *value, int *how)
{
    if (v_compulsory(vp)) {
        int end = v_outcome(vp, pos);
        if (end != TB_VARIANT_GOING_ON) {
            *value = end;
            *how = VFROM_CAPTURE;
            return FATHOM_OK;
        }
        return v_sprobe_ab(vp, pos, alpha, beta, threats, value, how);
    }

    tb_move moves[TB_MAX_LEGAL];
    int n = tb_atomic_gen_legal(pos, TB_GEN_CAPTURES, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, ignored;
        tb_atomic_do_move(pos, moves[i], &child);
        int status = v_probe_ab(vp, &child, -beta, -alpha, 0, &v, &ignored);
        if (status != FATHOM_OK)
            return status;
        v = -v;
        if (v > alpha) {
            if (v >= beta) {
                *value = v;
                *how = VFROM_CAPTURE;
                return FATHOM_OK;
            }
            alpha = v;
        }
    }
    int v;
    int status = v_table_wdl(vp, pos, &v);
    if (status != FATHOM_OK)
        return status;
    if (alpha >= v) {
        *value = alpha;
        *how = alpha > 0 ? VFROM_CAPTURE : VFROM_TABLE;
    } else {
        *value = v;
        *how = VFROM_TABLE;
    }
    return FATHOM_OK;
}

/* Atomic only (the antichess family ignores en passant here): the best
 * en-passant capture, -3 if there is none. */
static int v_best_ep_capture(vprobe *vp, const tb_pos *pos, int *best)
{
    *best = -3;
    if (!pos->ep || v_compulsory(vp))
        return FATHOM_OK;
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_atomic_gen_ep(pos, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, how;
        tb_atomic_do_move(pos, moves[i], &child);
        int status = v_probe_ab(vp, &child, -2, 2, 0, &v, &how);
        if (status != FATHOM_OK)
            return status;
        if (-v > *best)
            *best = -v;
    }
    return FATHOM_OK;
}

/* Every legal move is an en-passant capture (or there is none). */
static int v_only_ep_moves(const tb_pos *pos)
{
    tb_move moves[TB_MAX_LEGAL];
    return tb_atomic_gen_legal(pos, TB_GEN_ALL & ~TB_GEN_EP, moves) == 0;
}

static int v_probe_wdl(vprobe *vp, const tb_pos *pos, int *wdl)
{
    int how, v1;
    int status = v_probe_ab(vp, pos, -2, 2, 0, wdl, &how);
    if (status != FATHOM_OK)
        return status;
    status = v_best_ep_capture(vp, pos, &v1);
    if (status != FATHOM_OK)
        return status;
    if (v1 > -3 && (v1 >= *wdl || (*wdl == 0 && v_only_ep_moves(pos))))
        *wdl = v1;
    return FATHOM_OK;
}

/* ---- DTZ ------------------------------------------------------------------ */

static int v_dtz_before_zeroing(int wdl)
{
    static const int dtz[5] = {-1, -101, 0, 101, 1};
    return dtz[wdl + 2];
}

static int v_probe_dtz(vprobe *vp, const tb_pos *pos, int *dtz, int *precise);

static int v_legal_moves(const vprobe *vp, const tb_pos *pos, uint64_t from_mask,
                       uint64_t to_mask, tb_move *moves)
{
    if (v_compulsory(vp))
        return tb_antichess_gen_legal(pos, from_mask, to_mask, moves);
    tb_move all[TB_MAX_LEGAL];
    int n = tb_atomic_gen_legal(pos, TB_GEN_ALL, all), count = 0;
    for (int i = 0; i < n; i++)
        if (((from_mask >> all[i].from) & 1) && ((to_mask >> all[i].to) & 1))
            moves[count++] = all[i];
    return count;
}

static int v_probe_dtz_no_ep(vprobe *vp, const tb_pos *pos, int *dtz, int *precise)
{
    int wdl, how;
    int status = v_probe_ab(vp, pos, -2, 2, 1, &wdl, &how);
    if (status != FATHOM_OK)
        return status;
    *precise = 1;
    if (wdl == 0) {
        *dtz = 0;
        return FATHOM_OK;
    }
    /* A capture zeroes; so does any move of a side with only pawns. */
    if (how == VFROM_CAPTURE || !(pos->color[pos->turn] & ~pos->type[TB_PAWN])) {
        *dtz = v_dtz_before_zeroing(wdl);
        return FATHOM_OK;
    }

    uint64_t occ = pos->color[0] | pos->color[1];
    tb_move moves[TB_MAX_LEGAL];
    if (wdl > 0) {
        /* A threat forces a capture, which zeroes, next move. */
        if (how == VFROM_THREAT) {
            *dtz = wdl == 2 ? 2 : 102;
            return FATHOM_OK;
        }
        int n = v_legal_moves(vp, pos, pos->type[TB_PAWN], ~occ, moves);
        for (int i = 0; i < n; i++) {
            if (moves[i].flags & TB_MOVE_CAPTURE)
                continue; /* en passant */
            tb_pos child;
            int v;
            tb_variant_do_move(vp->variant, pos, moves[i], &child);
            status = v_probe_wdl(vp, &child, &v);
            if (status != FATHOM_OK)
                return status;
            if (-v == wdl) {
                *dtz = v_dtz_before_zeroing(wdl);
                return FATHOM_OK;
            }
        }
    }

    int value, stored;
    status = v_table_dtz(vp, pos, wdl, &value, precise, &stored);
    if (status != FATHOM_OK)
        return status;
    if (stored) {
        *dtz = v_dtz_before_zeroing(wdl) + (wdl > 0 ? value : -value);
        return FATHOM_OK;
    }

    if (wdl > 0) {
        int best = 0xffff, best_precise = 1;
        int n = v_legal_moves(vp, pos, ~pos->type[TB_PAWN], ~occ, moves);
        for (int i = 0; i < n; i++) {
            tb_pos child;
            int v, p;
            tb_variant_do_move(vp->variant, pos, moves[i], &child);
            status = v_probe_dtz(vp, &child, &v, &p);
            if (status != FATHOM_OK)
                return status;
            v = -v;
            if (v == 1 && tb_variant_is_checkmate(vp->variant, &child)) {
                best = 1;
                best_precise = 1;
            } else if (v > 0 && v + 1 < best) {
                best = v + 1;
                best_precise = p;
            } else if (v > 0 && v + 1 == best) {
                best_precise |= p;
            }
        }
        *dtz = best;
        *precise = best_precise;
        return FATHOM_OK;
    }

    int best = -1, best_precise = 1;
    int n = tb_variant_gen_all(vp->variant, pos, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, p = 1;
        tb_variant_do_move(vp->variant, pos, moves[i], &child);
        if (child.rule50 == 0) {
            if (wdl == -2) {
                v = -1;
            } else {
                int how_child;
                status = v_probe_ab(vp, &child, 1, 2, 1, &v, &how_child);
                if (status != FATHOM_OK)
                    return status;
                v = v == 2 ? 0 : -101;
            }
        } else {
            status = v_probe_dtz(vp, &child, &v, &p);
            if (status != FATHOM_OK)
                return status;
            v = -v - 1;
        }
        if (v < best) {
            best = v;
            best_precise = p;
        } else if (v == best) {
            best_precise &= p;
        }
    }
    *dtz = best;
    *precise = best_precise;
    return FATHOM_OK;
}

static int v_probe_dtz(vprobe *vp, const tb_pos *pos, int *dtz, int *precise)
{
    int status = v_probe_dtz_no_ep(vp, pos, dtz, precise);
    if (status != FATHOM_OK)
        return status;
    int best;
    status = v_best_ep_capture(vp, pos, &best);
    if (status != FATHOM_OK || best == -3)
        return status;

    int v = *dtz, ep = v_dtz_before_zeroing(best), take;
    if (v < -100)
        take = ep >= 0;
    else if (v < 0)
        take = ep >= 0 || ep < -100;
    else if (v > 100)
        take = ep > 0;
    else if (v > 0)
        take = ep == 1;
    else if (ep >= 0)
        take = 1;
    else
        take = v_only_ep_moves(pos);
    if (take) {
        *dtz = ep;
        *precise = 1;
    }
    return FATHOM_OK;
}

/* ---- entry points (called from tb_probe.c) ------------------------------ */

int tb_variant_probe_wdl(fathom_tb *tb, tb_failure *failure, tb_block_memo *memo,
                         const tb_pos *pos, int *wdl)
{
    vprobe vp = {tb, failure, tb->consts.variant, memo};
    return v_probe_wdl(&vp, pos, wdl);
}

int tb_variant_probe_dtz(fathom_tb *tb, tb_failure *failure, tb_block_memo *memo,
                         const tb_pos *pos, int *dtz, int *precise)
{
    vprobe vp = {tb, failure, tb->consts.variant, memo};
    return v_probe_dtz(&vp, pos, dtz, precise);
}
