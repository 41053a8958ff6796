/*
 * tb_probe.c - probing: WDL with capture resolution and en passant, DTZ
 * with the one-ply search for the side a table does not store, root move
 * ranking, and batch probes.  Semantics follow python-chess 1.11.2's
 * chess.syzygy, the project's oracle.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1
#endif

#include <stdlib.h>
#include <string.h>

#include "tb_instance.h"
#include "tb_variant.h"

#if !defined(_WIN32)
#include <pthread.h>
#include <unistd.h>
#endif

/* A probe in progress: the instance and where a failure came from. */
typedef struct probe {
    fathom_tb *tb;
    tb_failure failure;
} probe;

static int fail(probe *pr, int status, tb_key key, const tb_entry *entry,
                int is_dtz)
{
    pr->failure.key = key;
    pr->failure.entry = entry;
    pr->failure.is_dtz = is_dtz;
    return status;
}

/* DTZ of a position whose zeroing move comes next, by its WDL. */
static int dtz_before_zeroing(int wdl)
{
    switch (wdl) {
    case 2: return 1;
    case 1: return 101;
    case -1: return -101;
    case -2: return -1;
    default: return 0;
    }
}

static int only_kings(const tb_pos *pos)
{
    return pos->type[TB_KING] == (pos->color[0] | pos->color[1]);
}

/* The table's WDL value (which may be a "don't care" where a capture
 * decides; probe_ab resolves those). */
static int table_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    if (only_kings(pos)) {
        *wdl = 0;
        return FATHOM_OK;
    }
    tb_key key = tb_key_of(pos, 0);
    tb_entry *e = tb_lookup(pr->tb, key);
    if (!e || !e->wdl.path)
        return fail(pr, FATHOM_ERR_MISSING_TABLE, key, e, 0);
    int status = tb_slot_ready(pr->tb, e, &e->wdl, 0);
    if (status == FATHOM_OK)
        status = tb_table_wdl(&e->wdl.table, &pr->tb->consts, pos, key, wdl);
    return status == FATHOM_OK ? status : fail(pr, status, key, e, 0);
}

static int table_dtz(probe *pr, const tb_pos *pos, int wdl, int *dtz,
                     int *precise, int *stored)
{
    tb_key key = tb_key_of(pos, 0);
    tb_entry *e = tb_lookup(pr->tb, key);
    if (!e || !e->dtz.path)
        return fail(pr, FATHOM_ERR_MISSING_TABLE, key, e, 1);
    int status = tb_slot_ready(pr->tb, e, &e->dtz, 1);
    if (status == FATHOM_OK)
        status = tb_table_dtz(&e->dtz.table, &pr->tb->consts, pos, key, wdl,
                              dtz, precise, stored);
    return status == FATHOM_OK ? status : fail(pr, status, key, e, 1);
}

/* How probe_ab reached its value. */
enum { FROM_TABLE = 1, FROM_CAPTURE = 2 };

/*
 * WDL by alpha-beta over captures (en passant aside), falling back to the
 * table.  *how says whether the best line starts with a capture, in which
 * case the DTZ table holds no meaningful value for the position.
 */
static int probe_ab(probe *pr, const tb_pos *pos, int alpha, int beta,
                    int *value, int *how)
{
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_CAPTURES, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, ignored;
        tb_do_move(pos, moves[i], &child);
        int status = probe_ab(pr, &child, -beta, -alpha, &v, &ignored);
        if (status != FATHOM_OK)
            return status;
        v = -v;
        if (v > alpha) {
            if (v >= beta) {
                *value = v;
                *how = FROM_CAPTURE;
                return FATHOM_OK;
            }
            alpha = v;
        }
    }
    int v;
    int status = table_wdl(pr, pos, &v);
    if (status != FATHOM_OK)
        return status;
    if (alpha >= v) {
        *value = alpha;
        *how = alpha > 0 ? FROM_CAPTURE : FROM_TABLE;
    } else {
        *value = v;
        *how = FROM_TABLE;
    }
    return FATHOM_OK;
}

/* Best WDL over the legal en-passant captures, -3 if there are none. */
static int best_ep_capture(probe *pr, const tb_pos *pos, int *best)
{
    *best = -3;
    if (!pos->ep)
        return FATHOM_OK;
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_EP, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, how;
        tb_do_move(pos, moves[i], &child);
        int status = probe_ab(pr, &child, -2, 2, &v, &how);
        if (status != FATHOM_OK)
            return status;
        if (-v > *best)
            *best = -v;
    }
    return FATHOM_OK;
}

/* No legal move except en-passant captures. */
static int only_ep_moves(const tb_pos *pos)
{
    return !tb_has_legal(pos, TB_GEN_ALL & ~TB_GEN_EP);
}

static int probe_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    int how, v1;
    int status = probe_ab(pr, pos, -2, 2, wdl, &how);
    if (status != FATHOM_OK || !pos->ep)
        return status;
    status = best_ep_capture(pr, pos, &v1);
    if (status != FATHOM_OK)
        return status;
    /* The table assumes no en passant: an ep capture may be better, or
     * forced when it is the only move. */
    if (v1 > -3 && (v1 >= *wdl || (*wdl == 0 && only_ep_moves(pos))))
        *wdl = v1;
    return FATHOM_OK;
}

static int is_checkmate(const tb_pos *pos)
{
    return tb_in_check(pos) && !tb_has_legal(pos, TB_GEN_ALL);
}

static int probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise);

static int probe_dtz_no_ep(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    int wdl, how;
    int status = probe_ab(pr, pos, -2, 2, &wdl, &how);
    if (status != FATHOM_OK)
        return status;
    *precise = 1;
    if (wdl == 0) {
        *dtz = 0;
        return FATHOM_OK;
    }
    if (how == FROM_CAPTURE) {
        *dtz = dtz_before_zeroing(wdl);
        return FATHOM_OK;
    }

    tb_move moves[TB_MAX_LEGAL];
    if (wdl > 0) {
        /* A winning pawn move zeroes at once. */
        int n = tb_gen_legal(pos, TB_GEN_PAWN_PUSHES, moves);
        for (int i = 0; i < n; i++) {
            tb_pos child;
            int v;
            tb_do_move(pos, moves[i], &child);
            status = probe_wdl(pr, &child, &v);
            if (status != FATHOM_OK)
                return status;
            if (-v == wdl) {
                *dtz = dtz_before_zeroing(wdl);
                return FATHOM_OK;
            }
        }
    }

    int value, stored;
    status = table_dtz(pr, pos, wdl, &value, precise, &stored);
    if (status != FATHOM_OK)
        return status;
    if (stored) {
        *dtz = dtz_before_zeroing(wdl) + (wdl > 0 ? value : -value);
        return FATHOM_OK;
    }

    /* The table holds the other side to move: search one ply. */
    if (wdl > 0) {
        int best = 0xffff, best_precise = 1;
        int n = tb_gen_legal(pos, TB_GEN_PIECE_QUIETS, moves);
        for (int i = 0; i < n; i++) {
            tb_pos child;
            int v, p;
            tb_do_move(pos, moves[i], &child);
            status = probe_dtz(pr, &child, &v, &p);
            if (status != FATHOM_OK)
                return status;
            v = -v;
            if (v == 1 && is_checkmate(&child)) {
                best = 1;
                best_precise = 1;
            } else if (v > 0 && v + 1 < best) {
                best = v + 1;
                best_precise = p;
            } else if (v > 0 && v + 1 == best) {
                /* An exact child pins the minimum down. */
                best_precise |= p;
            }
        }
        *dtz = best;
        *precise = best_precise;
        return FATHOM_OK;
    }

    int best = -1, best_precise = 1;
    int n = tb_gen_legal(pos, TB_GEN_ALL, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, p = 1;
        tb_do_move(pos, moves[i], &child);
        if (child.rule50 == 0) {
            if (wdl == -2) {
                v = -1;
            } else {
                int how_child;
                status = probe_ab(pr, &child, 1, 2, &v, &how_child);
                if (status != FATHOM_OK)
                    return status;
                v = v == 2 ? 0 : -101;
            }
        } else {
            status = probe_dtz(pr, &child, &v, &p);
            if (status != FATHOM_OK)
                return status;
            v = -v - 1;
        }
        if (v < best) {
            best = v;
            best_precise = p;
        } else if (v == best) {
            /* A rounded child could be one ply longer. */
            best_precise &= p;
        }
    }
    *dtz = best;
    *precise = best_precise;
    return FATHOM_OK;
}

static int probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    static const int wdl_to_dtz[5] = {-1, -101, 0, 101, 1};
    int status = probe_dtz_no_ep(pr, pos, dtz, precise);
    if (status != FATHOM_OK || !pos->ep)
        return status;
    int best;
    status = best_ep_capture(pr, pos, &best);
    if (status != FATHOM_OK || best == -3)
        return status;

    int v = *dtz, ep = wdl_to_dtz[best + 2], take;
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
        take = only_ep_moves(pos);
    if (take) {
        *dtz = ep;
        *precise = 1;
    }
    return FATHOM_OK;
}

/* ------------------------------------------------------------------ */
/* Variants: an instance opened for a variant probes by its rules       */
/* (tb_variant_*.c); these hooks are the only place the two meet.       */
/* ------------------------------------------------------------------ */

static int any_probe_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    if (pr->tb->consts.variant)
        return tb_variant_probe_wdl(pr->tb, &pr->failure, pos, wdl);
    return probe_wdl(pr, pos, wdl);
}

static int any_probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    if (pr->tb->consts.variant)
        return tb_variant_probe_dtz(pr->tb, &pr->failure, pos, dtz, precise);
    return probe_dtz(pr, pos, dtz, precise);
}

static int any_gen_all(const fathom_tb *tb, const tb_pos *pos, tb_move *moves)
{
    if (tb->consts.variant)
        return tb_variant_gen_all(tb->consts.variant, pos, moves);
    return tb_gen_legal(pos, TB_GEN_ALL, moves);
}

static void any_do_move(const fathom_tb *tb, const tb_pos *pos, tb_move m,
                        tb_pos *child)
{
    if (tb->consts.variant)
        tb_variant_do_move(tb->consts.variant, pos, m, child);
    else
        tb_do_move(pos, m, child);
}

static int any_is_checkmate(const fathom_tb *tb, const tb_pos *pos)
{
    if (tb->consts.variant)
        return tb_variant_is_checkmate(tb->consts.variant, pos);
    return is_checkmate(pos);
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                 */
/* ------------------------------------------------------------------ */

static void fill_detail(const tb_failure *f, fathom_detail *detail)
{
    if (!detail)
        return;
    memset(detail, 0, sizeof *detail);
    if (f->key == 0)
        return;
    tb_key_name(f->key, detail->table, sizeof detail->table);
    strcpy(detail->metric, f->is_dtz ? "dtz" : "wdl");
    const tb_slot *slot = f->entry ? (f->is_dtz ? &f->entry->dtz : &f->entry->wdl) : NULL;
    if (slot && slot->path) {
        size_t len = strlen(slot->path);
        if (len >= sizeof detail->path)
            len = sizeof detail->path - 1;
        memcpy(detail->path, slot->path, len);
        detail->path[len] = '\0';
    }
}

static fathom_result pack(int status, int value, int precise)
{
    return (fathom_result)value * 65536 + (precise ? 256 : 0) + status;
}

/* Checks shared by all probes; fills pos. */
static int prepare(const fathom_tb *tb, tb_pos *pos, uint64_t white,
                   uint64_t black, uint64_t kings, uint64_t queens,
                   uint64_t rooks, uint64_t bishops, uint64_t knights,
                   uint64_t pawns, unsigned ep, int turn)
{
    if (!tb)
        return FATHOM_ERR_ARGUMENT;
    int pieces = tb_popcount(white | black);
    /* Variants as python-chess: one piece more than any table holds, when
     * captures lead into tables (which they must in antichess). */
    if (tb->consts.variant) {
        if (pieces > FATHOM_MAX_PIECES + 1)
            return FATHOM_ERR_TOO_MANY_PIECES;
        return tb_variant_pos_from_bitboards(tb->consts.variant, pos, white, black,
                                             kings, queens, rooks, bishops, knights,
                                             pawns, ep, turn)
                   ? FATHOM_OK
                   : FATHOM_ERR_INVALID_POSITION;
    }
    /* Like Fathom, refuse positions larger than the largest table, even
     * where a capture would lead into one. */
    if (pieces > FATHOM_MAX_PIECES || (tb->largest >= 3 && pieces > (int)tb->largest))
        return FATHOM_ERR_TOO_MANY_PIECES;
    if (!tb_pos_from_bitboards(pos, white, black, kings, queens, rooks,
                               bishops, knights, pawns, ep, turn))
        return FATHOM_ERR_INVALID_POSITION;
    return FATHOM_OK;
}

/* The probes behind both the full and the lean entry points. */
static int position_wdl(probe *pr, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        unsigned ep, int turn, int *wdl)
{
    tb_pos pos;
    int status = prepare(pr->tb, &pos, white, black, kings, queens, rooks,
                         bishops, knights, pawns, ep, turn);
    return status == FATHOM_OK ? any_probe_wdl(pr, &pos, wdl) : status;
}

static int position_dtz(probe *pr, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        unsigned ep, int turn, int *dtz, int *precise)
{
    tb_pos pos;
    int status = prepare(pr->tb, &pos, white, black, kings, queens, rooks,
                         bishops, knights, pawns, ep, turn);
    return status == FATHOM_OK ? any_probe_dtz(pr, &pos, dtz, precise) : status;
}

fathom_result fathom_probe_wdl(fathom_tb *tb, uint64_t white, uint64_t black,
                               uint64_t kings, uint64_t queens, uint64_t rooks,
                               uint64_t bishops, uint64_t knights,
                               uint64_t pawns, unsigned ep, int turn,
                               fathom_detail *detail)
{
    probe pr = {tb, {0, NULL, 0}};
    int wdl = 0;
    int status = position_wdl(&pr, white, black, kings, queens, rooks,
                              bishops, knights, pawns, ep, turn, &wdl);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return pack(status, 0, 0);
    }
    return pack(FATHOM_OK, wdl, 1);
}

fathom_result fathom_probe_dtz(fathom_tb *tb, uint64_t white, uint64_t black,
                               uint64_t kings, uint64_t queens, uint64_t rooks,
                               uint64_t bishops, uint64_t knights,
                               uint64_t pawns, unsigned ep, int turn,
                               fathom_detail *detail)
{
    probe pr = {tb, {0, NULL, 0}};
    int dtz = 0, precise = 0;
    int status = position_dtz(&pr, white, black, kings, queens, rooks,
                              bishops, knights, pawns, ep, turn, &dtz, &precise);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return pack(status, 0, 0);
    }
    return pack(FATHOM_OK, dtz, precise);
}

/* The kings of a lean probe: the occupied squares in no other piece set. */
static uint64_t kings_of(uint64_t white, uint64_t black, uint64_t queens,
                         uint64_t rooks, uint64_t bishops, uint64_t knights,
                         uint64_t pawns)
{
    return (white | black) & ~(queens | rooks | bishops | knights | pawns);
}

int32_t fathom_probe_wdl_lean(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks, uint64_t bishops,
                              uint64_t knights, uint64_t pawns, unsigned ep,
                              int turn)
{
    probe pr = {tb, {0, NULL, 0}};
    int wdl = 0;
    int status = position_wdl(
        &pr, white, black, kings_of(white, black, queens, rooks, bishops, knights, pawns),
        queens, rooks, bishops, knights, pawns, ep, turn, &wdl);
    return status == FATHOM_OK ? wdl + 2 : FATHOM_LEAN_FAILED + status;
}

int32_t fathom_probe_dtz_lean(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks, uint64_t bishops,
                              uint64_t knights, uint64_t pawns, unsigned ep,
                              int turn)
{
    probe pr = {tb, {0, NULL, 0}};
    int dtz = 0, precise = 0;
    int status = position_dtz(
        &pr, white, black, kings_of(white, black, queens, rooks, bishops, knights, pawns),
        queens, rooks, bishops, knights, pawns, ep, turn, &dtz, &precise);
    return status == FATHOM_OK ? dtz * 2 + precise : FATHOM_LEAN_FAILED + status;
}

/* ------------------------------------------------------------------ */
/* Root                                                                */
/* ------------------------------------------------------------------ */

#define RANK_MAX_DTZ (1 << 18)

/* WDL under the 50-move rule of a DTZ counted from a clock of rule50. */
static int wdl_with_clock(int rule50, int dtz)
{
    if (dtz > 0)
        return dtz + rule50 <= 100 ? 2 : 1;
    if (dtz < 0)
        return -dtz + rule50 <= 100 ? -2 : -1;
    return 0;
}

/* Stockfish/Fathom's tbRank: certain wins tie at the top, losses that a
 * 50-move draw may still save rank above certain losses. */
static int root_rank(int dtz, int rule50)
{
    if (dtz > 0)
        return dtz + rule50 <= 99 ? RANK_MAX_DTZ : RANK_MAX_DTZ - (dtz + rule50);
    if (dtz < 0)
        return -dtz * 2 + rule50 < 100 ? -RANK_MAX_DTZ : -RANK_MAX_DTZ + (-dtz + rule50);
    return 0;
}

/* The move part of a root move record. */
static fathom_root_move *describe_move(fathom_root_move *m, tb_move move)
{
    m->from = move.from;
    m->to = move.to;
    m->promotion = move.promo;
    m->is_ep = (move.flags & TB_MOVE_EP) != 0;
    return m;
}

/* Sort key, best first: wins by shortest DTZ, draws, losses by longest. */
static int root_order(const fathom_root_move *a, const fathom_root_move *b)
{
    int ta = a->dtz > 0 ? 0 : a->dtz == 0 ? 1 : 2;
    int tb = b->dtz > 0 ? 0 : b->dtz == 0 ? 1 : 2;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (a->dtz != b->dtz)
        return a->dtz < b->dtz ? -1 : 1;
    return 0;
}

int fathom_probe_root(fathom_tb *tb, uint64_t white, uint64_t black,
                      uint64_t kings, uint64_t queens, uint64_t rooks,
                      uint64_t bishops, uint64_t knights, uint64_t pawns,
                      unsigned ep, int turn, unsigned rule50,
                      fathom_root_move *moves, unsigned *count, int *wdl,
                      int *dtz, int *dtz_precise, fathom_detail *detail)
{
    tb_pos pos;
    probe pr = {tb, {0, NULL, 0}};
    if (!moves || !count || !wdl || !dtz || !dtz_precise)
        return FATHOM_ERR_ARGUMENT;
    *count = 0;
    int status = prepare(tb, &pos, white, black, kings, queens, rooks, bishops,
                         knights, pawns, ep, turn);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return status;
    }
    pos.rule50 = (uint8_t)(rule50 > 255 ? 255 : rule50);
    int root_dtz, root_precise;
    status = any_probe_dtz(&pr, &pos, &root_dtz, &root_precise);

    tb_move legal[TB_MAX_LEGAL];
    int n = status == FATHOM_OK ? any_gen_all(tb, &pos, legal) : 0;
    for (int i = 0; i < n && status == FATHOM_OK; i++) {
        tb_pos child;
        int v = 0, p = 1;
        any_do_move(tb, &pos, legal[i], &child);
        if (root_dtz > 0 && any_is_checkmate(tb, &child)) {
            v = 1;
        } else if (child.rule50 != 0) {
            status = any_probe_dtz(&pr, &child, &v, &p);
            if (status != FATHOM_OK)
                break;
            v = -v;
            v += v > 0 ? 1 : v < 0 ? -1 : 0;
        } else {
            static const int wdl_to_dtz[5] = {-1, -101, 0, 101, 1};
            status = any_probe_wdl(&pr, &child, &v);
            if (status != FATHOM_OK)
                break;
            v = wdl_to_dtz[-v + 2];
        }
        fathom_root_move *m = describe_move(&moves[i], legal[i]);
        m->dtz = v;
        m->dtz_precise = (int8_t)p;
        m->wdl = (int8_t)wdl_with_clock((int)pos.rule50, v);
        m->rank = root_rank(v, (int)pos.rule50);
    }
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return status;
    }
    /* Insertion sort: stable, and the lists are short. */
    for (int i = 1; i < n; i++) {
        fathom_root_move m = moves[i];
        int j = i;
        while (j > 0 && root_order(&m, &moves[j - 1]) < 0) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = m;
    }
    *count = (unsigned)n;
    *dtz = root_dtz;
    *dtz_precise = root_precise;
    *wdl = wdl_with_clock((int)pos.rule50, root_dtz);
    return FATHOM_OK;
}

int fathom_probe_root_wdl(fathom_tb *tb, uint64_t white, uint64_t black,
                          uint64_t kings, uint64_t queens, uint64_t rooks,
                          uint64_t bishops, uint64_t knights, uint64_t pawns,
                          unsigned ep, int turn, fathom_root_move *moves,
                          unsigned *count, int *wdl, fathom_detail *detail)
{
    static const int wdl_rank[5] = {-RANK_MAX_DTZ, -RANK_MAX_DTZ + 101, 0,
                                    RANK_MAX_DTZ - 101, RANK_MAX_DTZ};
    tb_pos pos;
    probe pr = {tb, {0, NULL, 0}};
    if (!moves || !count || !wdl)
        return FATHOM_ERR_ARGUMENT;
    *count = 0;
    int status = prepare(tb, &pos, white, black, kings, queens, rooks, bishops,
                         knights, pawns, ep, turn);
    if (status == FATHOM_OK)
        status = any_probe_wdl(&pr, &pos, wdl);
    tb_move legal[TB_MAX_LEGAL];
    int n = status == FATHOM_OK ? any_gen_all(tb, &pos, legal) : 0;
    for (int i = 0; i < n && status == FATHOM_OK; i++) {
        tb_pos child;
        int v = 0;
        any_do_move(tb, &pos, legal[i], &child);
        status = any_probe_wdl(&pr, &child, &v);
        if (status != FATHOM_OK)
            break;
        fathom_root_move *m = describe_move(&moves[i], legal[i]);
        m->wdl = (int8_t)-v;
        m->dtz = 0;
        m->dtz_precise = 0;
        m->rank = wdl_rank[-v + 2];
    }
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return status;
    }
    for (int i = 1; i < n; i++) {
        fathom_root_move m = moves[i];
        int j = i;
        while (j > 0 && m.rank > moves[j - 1].rank) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = m;
    }
    *count = (unsigned)n;
    return FATHOM_OK;
}

/* ------------------------------------------------------------------ */
/* Batch                                                               */
/* ------------------------------------------------------------------ */

/* One batch call: the rows, the outputs, and the first row no thread has
 * claimed yet.  Threads claim BATCH_CHUNK rows at a time until none are
 * left, so a core slowed down by something else (another process, another
 * tenant of the machine) does fewer rows instead of holding up the call,
 * as a fixed split into equal shares would. */
typedef struct batch_work {
    fathom_tb *tb;
    size_t n;
    size_t next_row; /* claimed with an atomic add (claim_rows) */
    const uint64_t *bb[8];
    const uint8_t *ep, *turn;
    int8_t *wdl_out;
    int16_t *dtz_out;
    uint8_t *status_out; /* NULL: not wanted */
} batch_work;

/* 64 rows: about 40 us of WDL probes or 400 us of DTZ probes, so the atomic
 * add is rare and a call ends at most a few hundred microseconds after its
 * first thread runs out of rows. */
#define BATCH_CHUNK 64

/* Without GCC/Clang atomics, batches run on one thread (see batch()). */
#if defined(__GNUC__) || defined(__clang__)
#define BATCH_CAN_SHARE 1
#else
#define BATCH_CAN_SHARE 0
#endif

static int claim_rows(batch_work *work, size_t *begin, size_t *end)
{
#if BATCH_CAN_SHARE
    size_t first = __atomic_fetch_add(&work->next_row, BATCH_CHUNK, __ATOMIC_RELAXED);
#else
    size_t first = work->next_row;
    work->next_row += BATCH_CHUNK;
#endif
    if (first >= work->n)
        return 0;
    *begin = first;
    *end = work->n - first > BATCH_CHUNK ? first + BATCH_CHUNK : work->n;
    return 1;
}

static void run_batch(batch_work *work)
{
    const uint64_t *const *bb = work->bb;
    size_t begin, end;
    while (claim_rows(work, &begin, &end)) {
        for (size_t i = begin; i < end; i++) {
            probe pr = {work->tb, {0, NULL, 0}};
            int status;
            if (work->wdl_out) {
                int wdl = 0;
                status = position_wdl(&pr, bb[0][i], bb[1][i], bb[2][i], bb[3][i],
                                      bb[4][i], bb[5][i], bb[6][i], bb[7][i],
                                      work->ep[i], work->turn[i], &wdl);
                work->wdl_out[i] = status == FATHOM_OK ? (int8_t)wdl
                                                       : (int8_t)FATHOM_BATCH_WDL_FAILED;
            } else {
                int dtz = 0, precise;
                status = position_dtz(&pr, bb[0][i], bb[1][i], bb[2][i], bb[3][i],
                                      bb[4][i], bb[5][i], bb[6][i], bb[7][i],
                                      work->ep[i], work->turn[i], &dtz, &precise);
                work->dtz_out[i] = status == FATHOM_OK ? (int16_t)dtz
                                                       : (int16_t)FATHOM_BATCH_DTZ_FAILED;
            }
            if (work->status_out)
                work->status_out[i] = (uint8_t)status;
        }
    }
}

#if !defined(_WIN32)
static void *batch_thread(void *arg)
{
    run_batch((batch_work *)arg);
    return NULL;
}
#endif

static unsigned online_cpus(void)
{
#if defined(_WIN32)
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwNumberOfProcessors ? (unsigned)info.dwNumberOfProcessors : 1;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
#endif
}

#define MAX_BATCH_THREADS 256

static int batch(fathom_tb *tb, size_t n, const uint64_t *const bb[8],
                 const uint8_t *ep, const uint8_t *turn, int8_t *wdl_out,
                 int16_t *dtz_out, uint8_t *status_out, unsigned threads)
{
    if (!tb || (n && (!ep || !turn || (!wdl_out && !dtz_out))))
        return FATHOM_ERR_ARGUMENT;
    for (int i = 0; i < 8; i++)
        if (n && !bb[i])
            return FATHOM_ERR_ARGUMENT;
    if (threads == 0)
        threads = online_cpus();
    if (threads > MAX_BATCH_THREADS)
        threads = MAX_BATCH_THREADS;
    /* No more threads than chunks: tiny batches are not worth a thread start. */
    if ((size_t)threads > (n + BATCH_CHUNK - 1) / BATCH_CHUNK)
        threads = (unsigned)((n + BATCH_CHUNK - 1) / BATCH_CHUNK);
#if defined(_WIN32) || !BATCH_CAN_SHARE
    threads = 1;
#endif

    batch_work work;
    work.tb = tb;
    work.n = n;
    work.next_row = 0;
    memcpy(work.bb, bb, sizeof work.bb);
    work.ep = ep;
    work.turn = turn;
    work.wdl_out = wdl_out;
    work.dtz_out = dtz_out;
    work.status_out = status_out;
#if !defined(_WIN32)
    /* This thread works too; threads that cannot start leave their share
     * to the others (the rows are claimed, not assigned). */
    pthread_t ids[MAX_BATCH_THREADS];
    unsigned started = 0;
    while (started + 1 < threads &&
           pthread_create(&ids[started], NULL, batch_thread, &work) == 0)
        started++;
    run_batch(&work);
    for (unsigned t = 0; t < started; t++)
        pthread_join(ids[t], NULL);
#else
    run_batch(&work);
#endif
    return FATHOM_OK;
}

int fathom_probe_wdl_batch(fathom_tb *tb, size_t n, const uint64_t *white,
                           const uint64_t *black, const uint64_t *kings,
                           const uint64_t *queens, const uint64_t *rooks,
                           const uint64_t *bishops, const uint64_t *knights,
                           const uint64_t *pawns, const uint8_t *ep,
                           const uint8_t *turn, int8_t *out, uint8_t *status,
                           unsigned threads)
{
    const uint64_t *const bb[8] = {white, black, kings, queens,
                                   rooks, bishops, knights, pawns};
    if (!out && n)
        return FATHOM_ERR_ARGUMENT;
    return batch(tb, n, bb, ep, turn, out, NULL, status, threads);
}

int fathom_probe_dtz_batch(fathom_tb *tb, size_t n, const uint64_t *white,
                           const uint64_t *black, const uint64_t *kings,
                           const uint64_t *queens, const uint64_t *rooks,
                           const uint64_t *bishops, const uint64_t *knights,
                           const uint64_t *pawns, const uint8_t *ep,
                           const uint8_t *turn, int16_t *out, uint8_t *status,
                           unsigned threads)
{
    const uint64_t *const bb[8] = {white, black, kings, queens,
                                   rooks, bishops, knights, pawns};
    if (!out && n)
        return FATHOM_ERR_ARGUMENT;
    return batch(tb, n, bb, ep, turn, NULL, out, status, threads);
}
