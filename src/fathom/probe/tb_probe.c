/*
 * tb_probe.c - the probes' entry points, the batch rows, and root move
 * ranking (batch probes run these on threads: tb_batch.c); the search
 * itself, for standard chess and the variants, is tb_search.c's.
 * Semantics follow python-chess 1.11.2's chess.syzygy, the project's
 * oracle.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fathom_helpers.h"
#include "probe/tb_probe.h"
#include "probe/tb_instance.h"
#include "probe/tb_search.h"
#include "rules/tb_movegen.h"
#include "rules/tb_variant.h"

/* Where the search (tb_search.c) and the root probes below meet the
 * instance's game: through its rules table (rules/tb_rules.h).  The search
 * is the probe layer's to pick, not the rules': standard chess's, with its
 * rules inline (tb_rules_are_inline), or the one over a variant's table. */

TB_ALWAYS_INLINE int any_probe_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    if (tb_rules_are_inline(pr->tb))
        return tb_chess_probe_wdl(pr, pos, wdl);
    return tb_variant_search_wdl(pr, pos, wdl);
}

TB_ALWAYS_INLINE int any_probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    if (tb_rules_are_inline(pr->tb))
        return tb_chess_probe_dtz(pr, pos, dtz, precise);
    return tb_variant_search_dtz(pr, pos, dtz, precise);
}

static int any_gen_all(const fathom_tb *tb, const tb_pos *pos, tb_move *moves)
{
    return tb_rules_of(tb)->gen_all(pos, moves);
}

static void any_do_move(const fathom_tb *tb, const tb_pos *pos, tb_move m,
                        tb_pos *child)
{
    tb_rules_of(tb)->do_move(pos, m, child);
}

static int any_is_checkmate(const fathom_tb *tb, const tb_pos *pos)
{
    return tb_rules_of(tb)->is_checkmate(pos);
}

/* Standard chess's search, for the root probes' own uses of it (the
 * 50-move edge, fathom_best_move). */
static int probe_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    return tb_chess_probe_wdl(pr, pos, wdl);
}

static int probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    return tb_chess_probe_dtz(pr, pos, dtz, precise);
}

static int probe_dtz_no_ep(probe *pr, const tb_pos *pos, int floor, int *dtz,
                           int *precise)
{
    return tb_chess_probe_dtz_no_ep(pr, pos, floor, dtz, precise);
}

static int is_checkmate(const tb_pos *pos)
{
    return tb_is_checkmate(pos);
}

/* For the precise flag of a DTZ of 1 read rounded (1 or 2 plies): winning
 * captures and pawn moves answer before the table, so it is exactly 1 when
 * a move mates.  Checked only on the answer of a public probe, not inside
 * the searches (it would cost every probe that meets such a position). */
static int has_mate_in_one(const tb_pos *pos)
{
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_ALL, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        tb_do_move(pos, moves[i], &child);
        if (is_checkmate(&child))
            return 1;
    }
    return 0;
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
    /* A bad prefix file is named in place of its table's file. */
    const char *path = slot ? (slot->prefix_failed ? slot->prefix : slot->path) : NULL;
    if (path) {
        size_t len = strlen(path);
        if (len >= sizeof detail->path)
            len = sizeof detail->path - 1;
        memcpy(detail->path, path, len);
        detail->path[len] = '\0';
    }
}

static fathom_result pack(int status, int value, int precise)
{
    return (fathom_result)value * 65536 + (precise ? 256 : 0) + status;
}

/* prepare() for an instance of a variant (kept out of line: standard
 * chess's prepare stays small enough to inline).  As python-chess: one
 * piece more than any table holds, where captures lead into the tables
 * (which they must in antichess); validity by the variant's rules. */
TB_NOINLINE
static int prepare_variant(const fathom_tb *tb, tb_pos *pos, uint64_t white,
                           uint64_t black, uint64_t kings, uint64_t queens,
                           uint64_t rooks, uint64_t bishops, uint64_t knights,
                           uint64_t pawns, unsigned ep, int turn)
{
    if (tb_popcount(white | black) > FATHOM_MAX_PIECES + 1)
        return FATHOM_ERR_TOO_MANY_PIECES;
    return tb_variant_pos_from_bitboards(tb->consts.variant, pos, white, black,
                                         kings, queens, rooks, bishops, knights,
                                         pawns, ep, turn)
               ? FATHOM_OK
               : FATHOM_ERR_INVALID_POSITION;
}

/* Checks shared by all probes; fills pos.  Inlined into each entry point
 * (the variant hook must not push it out of line). */
TB_ALWAYS_INLINE int prepare(const fathom_tb *tb, tb_pos *pos, uint64_t white,
                   uint64_t black, uint64_t kings, uint64_t queens,
                   uint64_t rooks, uint64_t bishops, uint64_t knights,
                   uint64_t pawns, unsigned ep, int turn)
{
    if (!tb)
        return FATHOM_ERR_ARGUMENT;
    int pieces = tb_popcount(white | black);
    if (!tb_rules_are_inline(tb))
        return prepare_variant(tb, pos, white, black, kings, queens, rooks,
                               bishops, knights, pawns, ep, turn);
    /* Only past what any Syzygy table holds.  A position with more pieces
     * than the loaded tables is probed like any other, as python-chess and
     * Fathom probe it: captures are resolved first, so a capture into the
     * loaded tables that decides the result answers, and otherwise the
     * probe fails with FATHOM_ERR_MISSING_TABLE naming the table. */
    if (pieces > FATHOM_MAX_PIECES)
        return FATHOM_ERR_TOO_MANY_PIECES;
    if (!tb_pos_from_bitboards(pos, white, black, kings, queens, rooks,
                               bishops, knights, pawns, ep, turn))
        return FATHOM_ERR_INVALID_POSITION;
    return FATHOM_OK;
}

/* A DTZ probe's own memo (tb_table.h), on its stack: its one-ply searches
 * read the WDL and DTZ tables of its children again and again, in few
 * blocks.  Set up by probe_memo_start for each probe. */
typedef struct probe_memo {
    tb_block_memo memo;
    tb_memo_slot slot[1u << TB_MEMO_PROBE_SLOT_BITS];
    tb_memo_marks marks[1u << TB_MEMO_PROBE_SLOT_BITS];
    uint8_t mark_count[1u << TB_MEMO_PROBE_SLOT_BITS];
} probe_memo;

static inline tb_block_memo *probe_memo_start(probe_memo *pm)
{
    tb_memo_init(&pm->memo, pm->slot, pm->marks, pm->mark_count, TB_MEMO_PROBE_SLOT_BITS);
    return &pm->memo;
}

/* prepare() for the public entry points, which take a board: castling
 * rights are refused first (no table holds them), as python-chess checks
 * them before the piece count. */
TB_ALWAYS_INLINE int prepare_board(const fathom_tb *tb, tb_pos *pos,
                                   const fathom_board *board)
{
    if (!tb || !board)
        return FATHOM_ERR_ARGUMENT;
    if (board->castling)
        return FATHOM_ERR_CASTLING;
    return prepare(tb, pos, board->white, board->black, board->kings, board->queens,
                   board->rooks, board->bishops, board->knights, board->pawns,
                   board->ep, board->turn);
}

/* The DTZ of a prepared position, with the mate-in-one mark. */
TB_ALWAYS_INLINE int prepared_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    int status = any_probe_dtz(pr, pos, dtz, precise);
    if (status == FATHOM_OK && *dtz == 1 && !*precise && !pr->as_stored &&
        tb_rules_of(pr->tb)->marks_mate_in_one)
        *precise = has_mate_in_one(pos);
    return status;
}

/* The probes behind the lean entry points and the batch rows. */
TB_ALWAYS_INLINE int position_wdl(probe *pr, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        unsigned ep, int turn, int *wdl)
{
    tb_pos pos;
    int status = prepare(pr->tb, &pos, white, black, kings, queens, rooks,
                         bishops, knights, pawns, ep, turn);
    return status == FATHOM_OK ? any_probe_wdl(pr, &pos, wdl) : status;
}

TB_ALWAYS_INLINE int position_dtz(probe *pr, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        unsigned ep, int turn, int *dtz, int *precise)
{
    tb_pos pos;
    int status = prepare(pr->tb, &pos, white, black, kings, queens, rooks,
                         bishops, knights, pawns, ep, turn);
    return status == FATHOM_OK ? prepared_dtz(pr, &pos, dtz, precise) : status;
}

fathom_result fathom_probe_wdl(fathom_tb *tb, const fathom_board *board,
                               fathom_detail *detail)
{
    probe pr = {tb, {0, NULL, 0}, NULL, 0, 0};
    tb_pos pos;
    int wdl = 0;
    int status = prepare_board(tb, &pos, board);
    if (status == FATHOM_OK)
        status = any_probe_wdl(&pr, &pos, &wdl);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return pack(status, 0, 0);
    }
    return pack(FATHOM_OK, wdl, 1);
}

/* fathom_probe_dtz and fathom_probe_dtz_as_stored (as_stored: lichess's
 * precise flag). */
TB_ALWAYS_INLINE fathom_result board_dtz(fathom_tb *tb, const fathom_board *board,
                                         int as_stored, fathom_detail *detail)
{
    probe_memo pm;
    probe pr = {tb, {0, NULL, 0}, probe_memo_start(&pm), 0, as_stored};
    tb_pos pos;
    int dtz = 0, precise = 0;
    int status = prepare_board(tb, &pos, board);
    if (status == FATHOM_OK)
        status = prepared_dtz(&pr, &pos, &dtz, &precise);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return pack(status, 0, 0);
    }
    return pack(FATHOM_OK, dtz, precise);
}

fathom_result fathom_probe_dtz(fathom_tb *tb, const fathom_board *board,
                               fathom_detail *detail)
{
    return board_dtz(tb, board, 0, detail);
}

/* fathom_probe_dtz with lichess's precise flag (shakmaty-syzygy's): no
 * mate-in-one mark, and ties in the one-ply searches settled by its move
 * order (offer).  Kept apart so the public probes keep their answers. */
fathom_result fathom_probe_dtz_as_stored(fathom_tb *tb, const fathom_board *board,
                                         fathom_detail *detail)
{
    return board_dtz(tb, board, 1, detail);
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
    probe pr = {tb, {0, NULL, 0}, NULL, 0, 0};
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
    probe_memo pm;
    probe pr = {tb, {0, NULL, 0}, probe_memo_start(&pm), 0, 0};
    int dtz = 0, precise = 0;
    int status = position_dtz(
        &pr, white, black, kings_of(white, black, queens, rooks, bishops, knights, pawns),
        queens, rooks, bishops, knights, pawns, ep, turn, &dtz, &precise);
    return status == FATHOM_OK ? dtz * 2 + precise : FATHOM_LEAN_FAILED + status;
}

/* ------------------------------------------------------------------ */
/* Batch rows (the pool and the ordering: tb_batch.c, tb_batch_sorted.c) */
/* ------------------------------------------------------------------ */

/* A WDL row's answer into the output arrays. */
static void store_wdl(const tb_batch_rows *rows, size_t i, int status, int value)
{
    rows->wdl_out[i] = status == FATHOM_OK ? (int8_t)value : (int8_t)FATHOM_BATCH_WDL_FAILED;
    if (rows->status_out)
        rows->status_out[i] = (uint8_t)status;
}

void tb_batch_probe_row(const tb_batch_rows *rows, size_t i, tb_block_memo *memo)
{
    probe pr = {rows->tb, {0, NULL, 0}, memo, 0, rows->as_stored};
    const uint64_t *const *bb = rows->bb;
    int value = 0, precise = 0, status;
    if (rows->wdl_out) {
        status = position_wdl(&pr, bb[0][i], bb[1][i], bb[2][i], bb[3][i], bb[4][i],
                              bb[5][i], bb[6][i], bb[7][i], rows->ep[i], rows->turn[i],
                              &value);
        store_wdl(rows, i, status, value);
        return;
    }
    status = position_dtz(&pr, bb[0][i], bb[1][i], bb[2][i], bb[3][i], bb[4][i],
                          bb[5][i], bb[6][i], bb[7][i], rows->ep[i], rows->turn[i],
                          &value, &precise);
    /* Past int16 only a damaged table goes (real DTZ stays under 2,100
     * plies; a file's 16-bit maps allow 131,070): fail the row, never
     * wrap it into another valid-looking DTZ. */
    if (status == FATHOM_OK && (value > INT16_MAX || value <= FATHOM_BATCH_DTZ_FAILED))
        status = FATHOM_ERR_CORRUPT;
    rows->dtz_out[i] = status == FATHOM_OK ? (int16_t)value
                                           : (int16_t)FATHOM_BATCH_DTZ_FAILED;
    if (rows->precise_out)
        rows->precise_out[i] = status == FATHOM_OK ? (uint8_t)precise : 0;
    if (rows->status_out)
        rows->status_out[i] = (uint8_t)status;
}

int tb_batch_wdl_begin(const tb_batch_rows *rows, size_t i, tb_block_memo *memo,
                       tb_wdl_read *read)
{
    const uint64_t *const *bb = rows->bb;
    probe pr = {rows->tb, {0, NULL, 0}, memo, 0, rows->as_stored};
    tb_pos pos;
    int value = 0;
    int status = prepare(rows->tb, &pos, bb[0][i], bb[1][i], bb[2][i], bb[3][i], bb[4][i],
                         bb[5][i], bb[6][i], bb[7][i], rows->ep[i], rows->turn[i]);
    if (status == FATHOM_OK && pos.ep) {
        /* En passant is searched after the table read: probed whole here
         * (a few rows in a hundred). */
        status = tb_chess_probe_wdl(&pr, &pos, &value);
    } else if (status == FATHOM_OK) {
        tb_key key = 0;
        uint64_t size = 0;
        status = tb_chess_wdl_split(&pr, &pos, &value, &read->table, &key);
        if (status == FATHOM_OK && read->table) {
            if (tb_table_locate(read->table, &rows->tb->consts, &pos, key, &read->stream,
                                &read->idx, &size)) {
                rows->wdl_out[i] = (int8_t)value; /* until tb_batch_wdl_end */
                return 1;
            }
            status = FATHOM_ERR_CORRUPT; /* as tb_table_wdl */
        }
    }
    store_wdl(rows, i, status, value);
    return 0;
}

void tb_batch_wdl_end(const tb_batch_rows *rows, size_t i, const tb_wdl_read *read,
                      tb_block_memo *memo)
{
    int best = rows->wdl_out[i], v = 0;
    int status = tb_table_wdl_at(read->table, read->stream, read->idx, memo, &v);
    store_wdl(rows, i, status, v > best ? v : best);
}

/* A mapped slot's table, or NULL (never maps one: read-ahead must not
 * fail a row, nor map a table its probe would not have needed). */
static const tb_table *mapped_table(const tb_slot *slot)
{
    return tb_atomic_load_acquire((tb_atomic_int *)&slot->state) == SLOT_READY ? &slot->table
                                                                              : NULL;
}

/* Row i as a position, standard chess only: 1 (*pos set), or 0. */
static int row_position(const tb_batch_rows *rows, size_t i, tb_pos *pos)
{
    const uint64_t *const *bb = rows->bb;
    return tb_rules_are_inline(rows->tb) &&
           prepare(rows->tb, pos, bb[0][i], bb[1][i], bb[2][i], bb[3][i], bb[4][i], bb[5][i],
                   bb[6][i], bb[7][i], rows->ep[i], rows->turn[i]) == FATHOM_OK;
}

unsigned tb_position_targets(const fathom_tb *tb, const tb_pos *pos, int with_dtz,
                             tb_ahead_target out[TB_AHEAD_TARGETS], int *unstored)
{
    tb_key key = tb_key_of(pos, 0);
    const tb_entry *e = tb_lookup(tb, key);
    *unstored = 0;
    if (!e)
        return 0;
    unsigned n = 0, stream = 0;
    uint64_t idx = 0, size = 0;
    const tb_table *wdl = mapped_table(&e->wdl);
    if (wdl && tb_table_locate(wdl, &tb->consts, pos, key, &stream, &idx, &size)) {
        out[n].pairs = &wdl->enc[stream].pairs;
        out[n].map = &wdl->map;
        out[n++].idx = idx;
    }
    const tb_table *dtz = with_dtz ? mapped_table(&e->dtz) : NULL;
    const tb_pairs *p = dtz ? tb_table_dtz_locate(dtz, &tb->consts, pos, key, &idx) : NULL;
    if (p) {
        out[n].pairs = p;
        out[n].map = &dtz->map;
        out[n++].idx = idx;
    }
    *unstored = dtz && !p;
    return n;
}

unsigned tb_batch_row_targets(const tb_batch_rows *rows, size_t i,
                              tb_ahead_target out[TB_AHEAD_TARGETS])
{
    tb_pos pos;
    int unstored;
    return row_position(rows, i, &pos)
               ? tb_position_targets(rows->tb, &pos, rows->dtz_out != NULL, out, &unstored)
               : 0;
}

unsigned tb_capture_targets(const fathom_tb *tb, const tb_pos *pos, int depth,
                            tb_ahead_target *out, unsigned cap)
{
    int unstored;
    unsigned count = 0;
    tb_move moves[TB_MAX_LEGAL];
    int n = depth > 0 ? tb_gen_legal(pos, TB_GEN_CAPTURES, moves) : 0;
    /* Every capture's own value before any capture's captures: where cap
     * cuts, it cuts the deeper reads, which fewer probes make. */
    for (int m = 0; m < n && count + TB_AHEAD_TARGETS <= cap; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        count += tb_position_targets(tb, &child, 0, out + count, &unstored);
    }
    for (int m = 0; depth > 1 && m < n && count < cap; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        count += tb_capture_targets(tb, &child, depth - 1, out + count, cap - count);
    }
    return count;
}

unsigned tb_batch_row_children_targets(const tb_batch_rows *rows, size_t i,
                                       tb_ahead_target *out, unsigned cap)
{
    tb_pos pos;
    if (!rows->dtz_out || !row_position(rows, i, &pos))
        return 0;
    /* Not the children's own captures: in a batch, asking for them cost
     * more time than the reads they spared. */
    return tb_search_targets(rows->tb, &pos, 0, 0, out, cap);
}

/* The WDL value pos's table stores for it, when the table is mapped and the
 * value lies in memory or on its way (the read-ahead's own reads): 1 and
 * *v set, else 0.  Captures are not tried: a guess, as the read-ahead's. */
static int stored_wdl(const fathom_tb *tb, const tb_pos *pos, int *v)
{
    tb_key key = tb_key_of(pos, 0);
    const tb_entry *e = tb_lookup(tb, key);
    const tb_table *wdl = e ? mapped_table(&e->wdl) : NULL;
    unsigned stream;
    uint64_t idx, size;
    return wdl && tb_table_locate(wdl, &tb->consts, pos, key, &stream, &idx, &size) &&
           tb_table_wdl_at(wdl, stream, idx, NULL, v) == FATHOM_OK;
}

/* Bounds on a position's WDL value (its probe's: the best of its stored
 * value and its captures'), from stored values alone, `plies` of captures
 * deep: 1 where the bound is sure, 0 where it is not or not known.  A
 * stored value is a floor (a position whose best move captures may store
 * any value up to the capture's), so a value at least b needs one floor
 * at b; at most b needs the floor and every capture under it, to the end
 * of the captures within plies. */
static int value_at_least(const fathom_tb *tb, const tb_pos *pos, int b, int plies);

static int value_at_most(const fathom_tb *tb, const tb_pos *pos, int b, int plies)
{
    int v;
    if (!stored_wdl(tb, pos, &v) || v > b)
        return 0;
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_CAPTURES, moves);
    if (n && plies <= 0)
        return 0;
    for (int m = 0; m < n; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        if (!value_at_least(tb, &child, -b, plies - 1))
            return 0;
    }
    return 1;
}

static int value_at_least(const fathom_tb *tb, const tb_pos *pos, int b, int plies)
{
    int v;
    if (stored_wdl(tb, pos, &v) && v >= b)
        return 1;
    tb_move moves[TB_MAX_LEGAL];
    int n = plies > 0 ? tb_gen_legal(pos, TB_GEN_CAPTURES, moves) : 0;
    for (int m = 0; m < n; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        if (value_at_most(tb, &child, -b, plies - 1))
            return 1;
    }
    return 0;
}

/* Whether a capture from pos surely reaches `value` for the side to move,
 * and at least a draw, by the stored values of the capture's child and of
 * its captures, plies deep in all (the plies the waves asked for): then
 * pos's probe takes the capture's value and reads neither its DTZ table
 * nor searches (a zeroing win, or a draw).  A capture that reaches a loss
 * does not spare the search, which looks for the longest loss. */
static int capture_reaches(const fathom_tb *tb, const tb_pos *pos, int value, int plies)
{
    if (value < 0)
        value = 0;
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_CAPTURES, moves);
    for (int m = 0; m < n; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        if (value_at_most(tb, &child, -value, plies - 1))
            return 1;
    }
    return 0;
}

unsigned tb_search_targets(const fathom_tb *tb, const tb_pos *pos, int capture_depth,
                           int captures_asked, tb_ahead_target *out, unsigned cap)
{
    /* Every DTZ probe's WDL probe tries its captures first. */
    unsigned count = tb_capture_targets(tb, pos, 1, out, cap);
    tb_key key = tb_key_of(pos, 0);
    const tb_entry *e = tb_lookup(tb, key);
    const tb_table *dtz = e ? mapped_table(&e->dtz) : NULL;
    uint64_t idx;
    int v = 0;
    /* No search for a draw (by the table's value: a capture may still
     * change it, rarely), nor where the DTZ table holds the side, nor where
     * a capture reaches the value (where those values were asked for: in
     * a batch they were not, and reading them here would wait for each in
     * turn).  270 recorded cold KQRBvKQR /standard requests, each from
     * every page out: those whose moves all capture to win had asked
     * 131-363 pages where their probes read 15-31; now 348 MB read in all
     * instead of 400, the probes' major faults the same (6,516 and
     * 6,520), the cold extra p50 3.67 -> 3.35 ms, p90 15.3 -> 13.3, 4
     * alternated runs.  With the captures' own captures asked too
     * (PREFETCH_CAPTURE_DEPTH) their values bound a capture that has
     * captures of its own (value_at_most): 352.5 -> 313.8 MB, the probes'
     * faults 31 -> 34, cold extra p50 2.84 -> 2.57, p90 10.7 -> 9.2, 2
     * alternated runs (the requests that answer a check, whose captures
     * all have captures, asked 129-173 pages for 17-25 read, now 21-32). */
    if (!dtz || !stored_wdl(tb, pos, &v) || v == 0 ||
        tb_table_dtz_locate(dtz, &tb->consts, pos, key, &idx) ||
        (captures_asked > 0 && capture_reaches(tb, pos, v, captures_asked)))
        return count;
    int unstored;
    tb_move moves[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_PIECE_QUIETS, moves);
    /* Every quiet child's values before any child's captures (as in
     * tb_capture_targets). */
    for (int m = 0; m < n && count + TB_AHEAD_TARGETS <= cap; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        count += tb_position_targets(tb, &child, 1, out + count, &unstored);
    }
    for (int m = 0; capture_depth > 0 && m < n && count < cap; m++) {
        tb_pos child;
        tb_do_move(pos, moves[m], &child);
        count += tb_capture_targets(tb, &child, capture_depth, out + count, cap - count);
    }
    return count;
}

/* Index bits a batch key keeps (tb_batch_order_key): what the table's
 * TB_KEY_GROUP_BITS, the stream's 3 and the row's leave. */
#define ORDER_INDEX_BITS (64 - TB_KEY_GROUP_BITS - 3 - TB_SLICE_ROW_BITS)

uint64_t tb_batch_order_key(const tb_batch_rows *rows, size_t i)
{
    const uint64_t *const *bb = rows->bb;
    tb_pos pos;
    /* Standard chess: well-formed pieces are enough to index (the probe
     * checks the rest); variants have their own rules for that. */
    int placed = !tb_rules_of(rows->tb)->indexes_from_pieces
        ? prepare(rows->tb, &pos, bb[0][i], bb[1][i], bb[2][i], bb[3][i], bb[4][i],
                  bb[5][i], bb[6][i], bb[7][i], rows->ep[i], rows->turn[i]) == FATHOM_OK
        : tb_popcount(bb[0][i] | bb[1][i]) <= FATHOM_MAX_PIECES &&
              tb_pos_pieces_from_bitboards(&pos, bb[0][i], bb[1][i], bb[2][i], bb[3][i],
                                           bb[4][i], bb[5][i], bb[6][i], bb[7][i],
                                           rows->turn[i]);
    if (!placed)
        return 0;
    tb_key key = tb_key_of(&pos, 0);
    const tb_entry *e = tb_lookup(rows->tb, key);
    if (!e)
        return 0;
    /* Both colour orientations of a material share its entry. */
    uint64_t table = ((e->mat.key * 0x9e3779b97f4a7c15ULL) >> (64 - TB_KEY_GROUP_BITS))
                     << (64 - TB_KEY_GROUP_BITS);
    unsigned stream = 0;
    uint64_t idx = 0, size = 0;
    /* Only a table already mapped: mapping one here could fail a row whose
     * probe would not have needed it. */
    if (tb_atomic_load_acquire((tb_atomic_int *)&e->wdl.state) == SLOT_READY &&
        tb_table_locate(&e->wdl.table, &rows->tb->consts, &pos, key, &stream, &idx, &size)) {
        int shift = 0;
        while (shift < 64 - ORDER_INDEX_BITS && (size - 1) >> shift >> ORDER_INDEX_BITS)
            shift++;
        idx >>= shift;
    }
    return table | (uint64_t)stream << (64 - TB_KEY_GROUP_BITS - 3) | idx << TB_SLICE_ROW_BITS;
}

/* ------------------------------------------------------------------ */
/* Root                                                                */
/* ------------------------------------------------------------------ */

/* WDL under the 50-move rule of a DTZ counted from a clock of rule50, a
 * rounded DTZ taken at its face value (fathom_root_move.wdl). */
static int wdl_with_clock(int rule50, int dtz)
{
    return fathom_clock_wdl(fathom_clock_result(dtz, 1, (unsigned)rule50));
}

/* Is a DTZ counted from a clock of rule50 on the 50-move edge: rounded,
 * and its zeroing move exactly at ply 100, so that the rounding decides
 * between a win (loss) and a 50-move draw? */
static int on_clock_edge(int dtz, int precise, int rule50)
{
    int r = fathom_clock_result(dtz, precise, (unsigned)rule50);
    return r == FATHOM_CLOCK_MAYBE_WIN || r == FATHOM_CLOCK_MAYBE_LOSS;
}

/* Stockfish/Fathom's tbRank: certain wins tie at the top, losses that a
 * 50-move draw may still save rank above certain losses.  A win is certain
 * when it ends by ply 100 of the clock even if its DTZ, stored rounded to
 * moves, is one ply short; Fathom's test (dtz + rule50 <= 99) ignores the
 * precise flag, so near the limit it may prefer a rounded DTZ that turns
 * out one ply too long over an exact one that fits. */
static int root_rank(int dtz, int precise, int rule50)
{
    if (dtz > 0)
        return fathom_clock_result(dtz, precise, (unsigned)rule50) == FATHOM_CLOCK_WIN
                   ? FATHOM_RANK_MAX
                   : FATHOM_RANK_MAX - (dtz + rule50);
    if (dtz < 0)
        return -dtz * 2 + rule50 < 100 ? -FATHOM_RANK_MAX : -FATHOM_RANK_MAX + (-dtz + rule50);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Root moves at the 50-move edge                                       */
/* ------------------------------------------------------------------ */

/*
 * A root move whose DTZ v (plies from the root) comes from a table that
 * stores moves is won (lost) in v or v + 1 plies.  When v is exactly the
 * plies the clock leaves, that ply decides between a win and a 50-move
 * draw, and only a search below the move tells which: can the winner
 * force, within k plies and whatever the loser does, a mate or a zeroing
 * move that keeps an unconditional win?  A zeroing move of the loser that
 * leaves it lost counts as well (the clock restarts with the win in hand):
 * these are the events DTZ counts, so each node's own DTZ answers the
 * question unless the node sits on the edge again (rounded, DTZ == k), and
 * the search descends only through such nodes.
 *
 * Bounded, so that no root probe stalls a game: EDGE_WORK_BUDGET units of
 * work for the whole search of one root probe, a unit being a table read
 * (probe.reads: WDL and DTZ lookups) or a node searched (its move
 * generation and its children's memo lookups), counted, so deterministic
 * unlike time.  Most of the time goes to the reads' Huffman decoding
 * (callgrind: 77% of a call that ran out of budget, 80% of it inside the
 * one-ply DTZ searches of children whose table stores the other side), so
 * the search decodes through its own block memo (tb_table.h): a read in a
 * block it walked before goes on from there (32% fewer instructions on the
 * five slowest calls of benchmarks/bench_root.py).  With the budget the
 * worst root probe there costs 4 to 5 plain root probes of its position in
 * instructions, a few ms (README, "Wins at the 50-move edge", has the
 * figures); unbounded, some edges need millions of reads (KQvKR, KBBvK:
 * seconds).  Past the budget, or where a probe fails, a move stays
 * uncertain as without the search, and unsettled says so.  The budget is
 * checked before every probe, so a search overshoots it by at most one
 * DTZ probe's reads (57 units at most on bench_root.py's positions).  The
 * recursion is at most the plies left deep (< 100), one move list (about
 * 1.5 KB) on the stack per level, plus the search's state (edge_search,
 * about 80 KB: the position memo and the block memo) for the whole search;
 * nothing is allocated, and ordinary root probes never get here.  Standard
 * chess only: variant instances rank as before.
 */
#ifndef EDGE_WORK_BUDGET
#define EDGE_WORK_BUDGET 3072
#endif
#ifdef EDGE_WORK_REPORT
/* A test's hook (tests/test_root_edge_budget.py): told the work each
 * settling search took, and its budget. */
void EDGE_WORK_REPORT(unsigned long work, unsigned long budget);
#endif

/* Verdicts; EDGE_OPEN: a child on the edge again, to be searched. */
enum { EDGE_NO = 0, EDGE_YES = 1, EDGE_UNKNOWN = 2, EDGE_OPEN = 3 };

/* The DTZ probes and verdicts met so far, by position: neighbouring nodes
 * share most children, and king moves transpose all the time.  A node's k
 * is its own DTZ, so the position alone decides its verdict.  Direct
 * mapped, newest kept; the key is the position itself, packed exactly. */
#ifndef EDGE_MEMO_BITS
#define EDGE_MEMO_BITS 11
#endif
enum { EDGE_DTZ_BOUND = 2 };
typedef struct edge_memo {
    uint64_t occupied;
    uint32_t pieces;  /* turn, then 4 bits (colour, type) per occupied square;
                       * 0 for an empty slot (a turn bit or a king is set) */
    int16_t dtz;      /* the position's DTZ probe */
    uint8_t precise;  /* its precise flag, or EDGE_DTZ_BOUND: the loser's
                       * search stopped early, the DTZ is dtz or lower */
    uint8_t verdict;  /* EDGE_NO or EDGE_YES once searched, else EDGE_UNKNOWN */
} edge_memo;

typedef struct edge_search {
    probe pr;       /* failures here do not fail the root probe */
    unsigned long nodes;       /* nodes searched so far (edge_node_search) */
    unsigned long work_budget; /* reads (pr.reads) + nodes the search may take */
    tb_block_memo blocks;      /* pr.memo: where its decoding stopped, by block */
    tb_memo_slot block_slots[1u << TB_MEMO_EDGE_SLOT_BITS];
    tb_memo_marks block_marks[1u << TB_MEMO_EDGE_SLOT_BITS];
    uint8_t block_mark_count[1u << TB_MEMO_EDGE_SLOT_BITS];
    uint16_t killer[101]; /* by plies left: 1 + (from << 6 | to), 0 none */
    edge_memo memo[1 << EDGE_MEMO_BITS];
} edge_search;

/* Has the search used up its budget of work? */
static int edge_out_of_work(const edge_search *es)
{
    return es->pr.reads + es->nodes >= es->work_budget;
}

/* The memo slot of pos; *found says whether it holds pos, else it is
 * keyed for pos (and its old content dropped). */
static edge_memo *edge_slot(edge_search *es, const tb_pos *pos, int *found)
{
    uint64_t occupied = pos->color[TB_WHITE] | pos->color[TB_BLACK];
    uint32_t pieces = pos->turn;
    int shift = 1;
    for (uint64_t b = occupied; b; b &= b - 1) {
        uint64_t bit = b & (~b + 1);
        uint32_t code = (pos->color[TB_WHITE] & bit) ? 8u : 0u;
        for (int t = TB_PAWN; t <= TB_KING; t++)
            if (pos->type[t] & bit)
                code |= (uint32_t)t;
        pieces |= code << shift;
        shift += 4;
    }
    uint64_t h = (occupied ^ ((uint64_t)pieces << 32 | pieces)) * 0x9E3779B97F4A7C15ull;
    edge_memo *slot = &es->memo[h >> (64 - EDGE_MEMO_BITS)];
    *found = slot->occupied == occupied && slot->pieces == pieces;
    if (!*found) {
        slot->occupied = occupied;
        slot->pieces = pieces;
        slot->verdict = EDGE_UNKNOWN;
    }
    return slot;
}

/* What a child settles without a search: EDGE_YES or EDGE_NO, EDGE_OPEN if
 * it is on the edge again (not searched yet), EDGE_UNKNOWN if a probe
 * failed.  winner_moved: the move into child was the winner's; k: the
 * plies left after it. */
static int edge_settle_child(edge_search *es, const tb_pos *child,
                             int winner_moved, int k)
{
    if (child->rule50 == 0) {
        /* A zeroing move converts if it leaves an unconditional win. */
        int wdl;
        if (edge_out_of_work(es) || probe_wdl(&es->pr, child, &wdl) != FATHOM_OK)
            return EDGE_UNKNOWN;
        return wdl == (winner_moved ? -2 : 2) ? EDGE_YES : EDGE_NO;
    }
    if (winner_moved && is_checkmate(child))
        return EDGE_YES;
    if (k < 1)
        return EDGE_NO;
    int found;
    edge_memo *slot = edge_slot(es, child, &found);
    /* A bound kept from a search with another k decides only if the loss
     * it bounds is too long for this k as well. */
    if (found && slot->precise == EDGE_DTZ_BOUND && -slot->dtz <= k)
        found = 0;
    if (!found && edge_out_of_work(es)) {
        slot->pieces = 0;
        return EDGE_UNKNOWN;
    }
    if (!found) {
        int dtz, precise, status;
        /* The loser to move (no en passant after a quiet move): its
         * search may stop at the first escape longer than k plies. */
        if (winner_moved && !child->ep)
            status = probe_dtz_no_ep(&es->pr, child, -k, &dtz, &precise);
        else
            status = probe_dtz(&es->pr, child, &dtz, &precise);
        if (status != FATHOM_OK) {
            slot->pieces = 0;
            return EDGE_UNKNOWN;
        }
        slot->dtz = (int16_t)dtz;
        slot->precise = (uint8_t)(winner_moved && dtz < -k ? EDGE_DTZ_BOUND : precise);
    }
    int plies = winner_moved ? -slot->dtz : slot->dtz; /* for the winner */
    if (plies <= 0 || plies > 100 || plies > k)
        return EDGE_NO;
    if (plies + !slot->precise <= k)
        return EDGE_YES;
    return slot->verdict != EDGE_UNKNOWN ? (int)slot->verdict : (int)EDGE_OPEN;
}

/* Does the winner convert within k plies from pos, whoever is to move
 * (winner_to_move), pos being on the edge (its DTZ rounded, exactly k)?
 * Every child is settled by its DTZ first, so that one decisive child
 * spares the search of the others. */
static int edge_node_search(edge_search *es, const tb_pos *pos,
                            int winner_to_move, int k);

static int edge_node(edge_search *es, const tb_pos *pos, int winner_to_move,
                     int k)
{
    int found;
    edge_memo *slot = edge_slot(es, pos, &found);
    if (found && slot->verdict != EDGE_UNKNOWN)
        return slot->verdict;
    /* Its DTZ is known: the search below may meet pos again (a king
     * stepping back), where the DTZ alone settles it. */
    int16_t dtz = (int16_t)(winner_to_move ? k : -k);
    slot->dtz = dtz;
    slot->precise = 0;
    int r = edge_node_search(es, pos, winner_to_move, k);
    if (r != EDGE_UNKNOWN) {
        /* The slot may have gone to another position meanwhile. */
        slot = edge_slot(es, pos, &found);
        slot->dtz = dtz;
        slot->precise = 0;
        slot->verdict = (uint8_t)r;
    }
    return r;
}

static int edge_node_search(edge_search *es, const tb_pos *pos,
                            int winner_to_move, int k)
{
    if (edge_out_of_work(es) || k < 0 || k > 100)
        return EDGE_UNKNOWN; /* k indexes killer[]: settle_edge_moves keeps it in range */
    es->nodes++;
    tb_move moves[TB_MAX_LEGAL];
    uint8_t open[TB_MAX_LEGAL];
    int n = tb_gen_legal(pos, TB_GEN_ALL, moves), n_open = 0, unknown = 0;
    /* The verdict one child decides: the winner needs one converting move,
     * the loser one escape. */
    int decisive = winner_to_move ? EDGE_YES : EDGE_NO;
    for (int i = 0; i < n; i++) {
        tb_pos child;
        tb_do_move(pos, moves[i], &child);
        int r = edge_settle_child(es, &child, winner_to_move, k - 1);
        if (r == decisive)
            return r;
        if (r == EDGE_OPEN)
            open[n_open++] = (uint8_t)i;
        unknown |= r == EDGE_UNKNOWN;
    }
    /* The move that decided a sibling at this depth first (a killer: the
     * loser's king escapes, or the winner converts, the same way in the
     * many positions that differ only by a piece the move does not use). */
    unsigned killer = es->killer[k];
    for (int j = 1; j < n_open && killer; j++) {
        const tb_move *m = &moves[open[j]];
        if ((unsigned)(m->from << 6 | m->to) + 1 == killer) {
            uint8_t first = open[0];
            open[0] = open[j];
            open[j] = first;
            break;
        }
    }
    for (int j = 0; j < n_open; j++) {
        tb_pos child;
        const tb_move *m = &moves[open[j]];
        tb_do_move(pos, *m, &child);
        int r = edge_node(es, &child, !winner_to_move, k - 1);
        if (r == decisive) {
            es->killer[k] = (uint16_t)((m->from << 6 | m->to) + 1);
            return r;
        }
        unknown |= r == EDGE_UNKNOWN;
    }
    if (n == 0 || unknown)
        return n == 0 ? EDGE_NO : EDGE_UNKNOWN;
    return decisive == EDGE_YES ? EDGE_NO : EDGE_YES;
}

/*
 * Settle the root moves on the edge: dtz (signed, plies from the root,
 * rounded) with |dtz| exactly the plies the clock leaves.  A move's true
 * size is |dtz| if the side that wins converts by then, |dtz| + 1
 * otherwise; either way it becomes exact, and its wdl and rank follow.
 * Out of line: its memo stays off the stack of ordinary root probes.
 */
TB_NOINLINE
static void settle_edge_moves(fathom_tb *tb, const tb_pos *root,
                              fathom_root_move *moves, int n, int plies_left)
{
    edge_search es;
    es.pr.tb = tb;
    memset(&es.pr.failure, 0, sizeof es.pr.failure);
    es.pr.memo = &es.blocks;
    es.pr.reads = 0;
    es.pr.as_stored = 0;
    es.nodes = 0;
    es.work_budget = EDGE_WORK_BUDGET;
    tb_memo_init(&es.blocks, es.block_slots, es.block_marks, es.block_mark_count,
                 TB_MEMO_EDGE_SLOT_BITS);
    memset(es.memo, 0, sizeof es.memo);
    memset(es.killer, 0, sizeof es.killer);
    tb_move legal[TB_MAX_LEGAL];
    int n_legal = tb_gen_legal(root, TB_GEN_PIECE_QUIETS, legal);
    for (int i = 0; i < n; i++) {
        fathom_root_move *m = &moves[i];
        int v = m->dtz, j = 0;
        if (!on_clock_edge(v, m->dtz_precise, (int)root->rule50))
            continue;
        /* Moves on the edge neither capture nor move a pawn. */
        while (j < n_legal && (legal[j].from != m->from || legal[j].to != m->to))
            j++;
        if (j == n_legal)
            continue;
        tb_pos child;
        tb_do_move(root, legal[j], &child);
        int r = edge_node(&es, &child, v < 0, plies_left - 1);
        if (r == EDGE_UNKNOWN) {
            m->unsettled = 1;
            continue;
        }
        if (r == EDGE_NO)
            v += v > 0 ? 1 : -1;
        m->dtz = v;
        m->dtz_precise = 1;
        m->wdl = (int8_t)wdl_with_clock((int)root->rule50, v);
        m->rank = root_rank(v, 1, (int)root->rule50);
    }
#ifdef EDGE_WORK_REPORT
    EDGE_WORK_REPORT(es.pr.reads + es.nodes, es.work_budget);
#endif
}

/* The move part of a root move record. */
static fathom_root_move *describe_move(fathom_root_move *m, tb_move move)
{
    m->from = move.from;
    m->to = move.to;
    m->promotion = move.promo;
    m->is_ep = (move.flags & TB_MOVE_EP) != 0;
    m->unsettled = 0;
    m->reserved = 0;
    return m;
}

/* Sort key, best first: certain wins by shortest DTZ, other wins by
 * shortest DTZ (rank says which is which), draws, losses by longest.  At
 * equal DTZ an exact win goes first, and a rounded loss (it may last a ply
 * longer). */
static int root_order(const fathom_root_move *a, const fathom_root_move *b)
{
    int ta = a->dtz > 0 ? 0 : a->dtz == 0 ? 1 : 2;
    int tb = b->dtz > 0 ? 0 : b->dtz == 0 ? 1 : 2;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (ta == 0 && a->rank != b->rank)
        return a->rank > b->rank ? -1 : 1;
    if (a->dtz != b->dtz)
        return a->dtz < b->dtz ? -1 : 1;
    if (a->dtz_precise != b->dtz_precise)
        return (a->dtz_precise > b->dtz_precise) == (ta == 0) ? -1 : 1;
    return 0;
}

/* Sort key, best first: higher rank. */
static int by_rank(const fathom_root_move *a, const fathom_root_move *b)
{
    return a->rank > b->rank ? -1 : a->rank < b->rank ? 1 : 0;
}

/* Insertion sort: stable (moves that compare equal keep the move
 * generator's order), and the lists are short. */
static void sort_root_moves(fathom_root_move *moves, int n,
                            int (*order)(const fathom_root_move *,
                                         const fathom_root_move *))
{
    for (int i = 1; i < n; i++) {
        fathom_root_move m = moves[i];
        int j = i;
        while (j > 0 && order(&m, &moves[j - 1]) < 0) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = m;
    }
}

/* The root's DTZ from its moves' (counted from the root), for a root whose
 * own DTZ table is missing: the quickest win, else the longest loss. */
static void root_dtz_of_moves(const fathom_root_move *moves, int n, int wdl,
                              int *dtz, int *precise)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        int v = moves[i].dtz;
        if ((wdl <= 0 || v > 0) && (best < 0 || v < moves[best].dtz))
            best = i;
    }
    *dtz = best < 0 || wdl == 0 ? 0 : moves[best].dtz;
    *precise = best < 0 || moves[best].dtz_precise;
}

int fathom_probe_root(fathom_tb *tb, const fathom_board *board,
                      fathom_root_move *moves, unsigned *count, int *wdl,
                      int *dtz, int *dtz_precise, fathom_detail *detail)
{
    return tb_probe_root_moves(tb, board, 0, moves, count, wdl, dtz, dtz_precise,
                               detail);
}

int fathom_read_ahead_moves(fathom_tb *tb, const fathom_board *board)
{
    tb_pos pos;
    if (!tb || !board)
        return FATHOM_ERR_ARGUMENT;
    int status = prepare_board(tb, &pos, board);
    if (status == FATHOM_OK && tb_rules_are_inline(tb) &&
        tb_atomic_load_relaxed(&tb->read_ahead) != FATHOM_READ_AHEAD_OFF)
        tb_prefetch_moves(tb, &pos);
    return status;
}

int tb_probe_root_moves(fathom_tb *tb, const fathom_board *board, int wdl_root,
                        fathom_root_move *moves, unsigned *count, int *wdl,
                        int *dtz, int *dtz_precise, fathom_detail *detail)
{
    tb_pos pos;
    probe_memo pm;
    probe pr = {tb, {0, NULL, 0}, probe_memo_start(&pm), 0, 0};
    if (!moves || !count || !wdl || !dtz || !dtz_precise)
        return FATHOM_ERR_ARGUMENT;
    *count = 0;
    int status = prepare_board(tb, &pos, board);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return status;
    }
    pos.rule50 = (uint8_t)(board->halfmove > 255 ? 255 : board->halfmove);
    tb_prefetch_watch watch;
    tb_prefetch_begin(tb, &pos, TB_PREFETCH_ROOT, &watch);
    int root_dtz, root_precise, root_wdl = 0, from_moves = 0;
    status = any_probe_dtz(&pr, &pos, &root_dtz, &root_precise);
    if (status == FATHOM_ERR_MISSING_TABLE && pr.failure.is_dtz && wdl_root &&
        any_probe_wdl(&pr, &pos, &root_wdl) == FATHOM_OK) {
        /* Only the root's WDL file: its moves still answer where each
         * zeroes, mates or meets a DTZ table (Fathom's root probe never
         * reads the root's own DTZ); the root's DTZ then follows from them. */
        status = FATHOM_OK;
        from_moves = 1;
        root_dtz = root_wdl > 0 ? 1 : -(root_wdl < 0);
        root_precise = 1;
    }

    tb_move legal[TB_MAX_LEGAL];
    int n = status == FATHOM_OK ? any_gen_all(tb, &pos, legal) : 0;
    int plies_left = 100 - (int)pos.rule50, on_edge = 0;
    for (int i = 0; i < n && status == FATHOM_OK; i++) {
        tb_pos child;
        int v = 0, p = 1;
        any_do_move(tb, &pos, legal[i], &child);
        if (root_dtz > 0 && any_is_checkmate(tb, &child)) {
            v = 1;
            root_precise |= root_dtz == 1; /* mate in one: exactly 1 */
        } else if (child.rule50 != 0) {
            status = any_probe_dtz(&pr, &child, &v, &p);
            if (status != FATHOM_OK)
                break;
            v = -v;
            v += v > 0 ? 1 : v < 0 ? -1 : 0;
            on_edge += on_clock_edge(v, p, (int)pos.rule50);
        } else {
            status = any_probe_wdl(&pr, &child, &v);
            if (status != FATHOM_OK)
                break;
            v = dtz_before_zeroing(-v);
        }
        fathom_root_move *m = describe_move(&moves[i], legal[i]);
        m->dtz = v;
        m->dtz_precise = (int8_t)p;
        m->wdl = (int8_t)wdl_with_clock((int)pos.rule50, v);
        m->rank = root_rank(v, p, (int)pos.rule50);
    }
    tb_prefetch_end(tb, &watch);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return status;
    }
    if (from_moves)
        root_dtz_of_moves(moves, n, root_wdl, &root_dtz, &root_precise);
    if (from_moves && n == 0)
        root_dtz = tb_in_check(&pos) ? -1 : 0;
    /* With the clock at 100 or past it no win fits any more: nothing is on
     * the edge, and the search below needs at least one ply to look at. */
    if (on_edge && plies_left > 0 && tb_rules_of(tb)->settles_clock_edge)
        settle_edge_moves(tb, &pos, moves, n, plies_left);
    sort_root_moves(moves, n, root_order);
    *count = (unsigned)n;
    *dtz = root_dtz;
    *dtz_precise = root_precise;
    *wdl = wdl_with_clock((int)pos.rule50, root_dtz);
    if (n > 0 && on_clock_edge(root_dtz, root_precise, (int)pos.rule50) &&
        tb_rules_of(tb)->settles_clock_edge) {
        /* The root's own rounded DTZ leaves its outcome open; its best
         * move's (settled above where it was on the edge) is the root's. */
        *wdl = moves[0].wdl;
        for (int i = 1; i < n; i++)
            if (moves[i].wdl > *wdl)
                *wdl = moves[i].wdl;
    }
    return FATHOM_OK;
}

int fathom_probe_root_wdl(fathom_tb *tb, const fathom_board *board,
                          fathom_root_move *moves, unsigned *count, int *wdl,
                          fathom_detail *detail)
{
    static const int wdl_rank[5] = {-FATHOM_RANK_MAX, -FATHOM_RANK_MAX + 101, 0,
                                    FATHOM_RANK_MAX - 101, FATHOM_RANK_MAX};
    tb_pos pos;
    probe pr = {tb, {0, NULL, 0}, NULL, 0, 0};
    if (!moves || !count || !wdl)
        return FATHOM_ERR_ARGUMENT;
    *count = 0;
    int status = prepare_board(tb, &pos, board);
    tb_prefetch_watch watch = {0, 0, 0, 0};
    if (status == FATHOM_OK) {
        tb_prefetch_begin(tb, &pos, TB_PREFETCH_WDL, &watch);
        status = any_probe_wdl(&pr, &pos, wdl);
    }
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
    tb_prefetch_end(tb, &watch);
    if (status != FATHOM_OK) {
        fill_detail(&pr.failure, detail);
        return status;
    }
    sort_root_moves(moves, n, by_rank);
    *count = (unsigned)n;
    return FATHOM_OK;
}

/* ------------------------------------------------------------------ */
/* Best move under the game's clock (pyfathom annotate)                */
/* ------------------------------------------------------------------ */

/* A move's key for fathom_best_move, compared as a tuple, higher is
 * better: the mover's result under the clock (1, 0, -1), then the fastest
 * win / the longest loss; among draws, one the 50-move rule saves the
 * opponent from before a plain draw (pyfathom.annotate._move_rank). */
typedef struct best_key {
    int result, side, length;
} best_key;

static int compare_keys(best_key a, best_key b)
{
    if (a.result != b.result)
        return a.result < b.result ? -1 : 1;
    if (a.side != b.side)
        return a.side < b.side ? -1 : 1;
    if (a.length != b.length)
        return a.length < b.length ? -1 : 1;
    return 0;
}

/* The key of a move with DTZ v (counted from the root, mover's side). */
static best_key move_key(int v, int zeroing, int rule50)
{
    best_key k = {0, 0, 0};
    int wdl = wdl_with_clock(rule50, v);
    if (v == 1 && !zeroing)
        k.result = 1; /* a mate: only a mate wins in one ply without zeroing */
    else
        k.result = wdl == 2 ? 1 : wdl == -2 ? -1 : 0; /* a win or loss in time */
    if (k.result == 0)
        k.side = (v > 0) - (v < 0);
    k.length = -v; /* a short win, a long loss; among draws -|v| or |v| */
    return k;
}

/* For a winning quiet move (DTZ v >= 2 from the root, so its child's DTZ
 * is 1 - v): the child DTZ below which the move's key is lower than best,
 * INT_MIN where no DTZ is (move keys fall as v grows: a faster win first,
 * then a win the 50-move rule turns into a draw, the faster the better). */
static int loss_floor(best_key best, int rule50)
{
    int limit; /* the largest v whose key reaches best */
    if (best.result == 1)
        limit = -best.length < 100 - rule50 ? -best.length : 100 - rule50;
    else if (best.result == 0 && best.side == 1)
        limit = -best.length > 100 - rule50 ? -best.length : 100 - rule50;
    else
        return INT_MIN;
    return 1 - limit;
}

/* The moves of one fathom_best_move call, as far as they are known. */
typedef struct best_search {
    fathom_tb *tb;
    probe pr;
    tb_pos pos;
    int clock;   /* the root's halfmove clock (at most 255, as tb_pos keeps it) */
    int n;       /* legal moves */
    int top;     /* the best move known so far, -1 for none */
    unsigned dtz_probes;
    tb_move legal[TB_MAX_LEGAL];
    fathom_root_move moves[TB_MAX_LEGAL];
    best_key keys[TB_MAX_LEGAL];   /* where known */
    best_key bounds[TB_MAX_LEGAL]; /* where not: the best key the move can have */
    unsigned char known[TB_MAX_LEGAL]; /* 0 no, 1 yes, 2 below the aim (dropped) */
    unsigned char winning[TB_MAX_LEGAL], on_the_edge[TB_MAX_LEGAL];
} best_search;

/* Is evaluated move i better than evaluated move j: key, then
 * fathom_probe_root's order (root_order, stable over the generator's)? */
static int better_move(const best_search *s, int i, int j)
{
    int c = compare_keys(s->keys[i], s->keys[j]);
    if (c != 0)
        return c > 0;
    c = root_order(&s->moves[i], &s->moves[j]);
    return c < 0 || (c == 0 && i < j);
}

static void take_if_best(best_search *s, int i)
{
    if (s->top < 0 || better_move(s, i, s->top))
        s->top = i;
}

/* The key of every move from its WDL probe: exact for zeroing moves,
 * mates and draws, a bound for the others. */
static int best_from_wdl(best_search *s)
{
    for (int i = 0; i < s->n; i++) {
        tb_pos child;
        int w = 0, v = 0;
        any_do_move(s->tb, &s->pos, s->legal[i], &child);
        int status = any_probe_wdl(&s->pr, &child, &w);
        if (status != FATHOM_OK)
            return status;
        int zeroing = child.rule50 == 0;
        s->known[i] = 1;
        s->winning[i] = w < 0;
        s->on_the_edge[i] = 0;
        if (zeroing)
            v = dtz_before_zeroing(-w);
        else if (w == -2 && any_is_checkmate(s->tb, &child))
            v = 1;
        else if (w != 0)
            s->known[i] = 0; /* w == 0: a draw, DTZ 0 */
        fathom_root_move *m = describe_move(&s->moves[i], s->legal[i]);
        if (s->known[i]) {
            m->dtz = v;
            m->dtz_precise = 1;
            m->rank = root_rank(v, 1, s->clock);
            s->keys[i] = move_key(v, zeroing, s->clock);
            take_if_best(s, i);
        } else if (w < 0) {
            /* A winning quiet move: DTZ >= 2 from the root. */
            best_key win = {1, 0, -2}, fifty = {0, 1, -2};
            s->bounds[i] = wdl_with_clock(s->clock, 2) == 2 ? win : fifty;
        } else {
            /* A losing quiet move: a draw by the 50-move rule at best. */
            best_key saved = {0, -1, 0x7fffffff};
            s->bounds[i] = saved;
        }
    }
    return FATHOM_OK;
}

/* The DTZ of move i (not known yet); have_aim/aim: the key it must reach
 * to matter, so that a winning move's DTZ search may stop early. */
static int best_probe_dtz(best_search *s, int i, int have_aim, best_key aim)
{
    tb_pos child;
    int v = 0, p = 1, status;
    any_do_move(s->tb, &s->pos, s->legal[i], &child);
    if (s->winning[i] && have_aim && tb_rules_of(s->tb)->dtz_floor_search && !child.ep) {
        /* The opponent's loss may be dropped as soon as it is known to
         * last longer than the aim's: its key is then lower. */
        status = probe_dtz_no_ep(&s->pr, &child, loss_floor(aim, s->clock), &v, &p);
    } else {
        status = any_probe_dtz(&s->pr, &child, &v, &p);
    }
    if (status != FATHOM_OK)
        return status;
    ++s->dtz_probes;
    v = -v;
    v += v > 0 ? 1 : v < 0 ? -1 : 0;
    /* fathom_probe_root would settle this move by a search
     * (settle_edge_moves): see best_needs_root. */
    s->on_the_edge[i] = on_clock_edge(v, p, s->clock) && tb_rules_of(s->tb)->settles_clock_edge;
    s->known[i] = 1;
    s->moves[i].dtz = v;
    s->moves[i].dtz_precise = (int8_t)p;
    s->moves[i].rank = root_rank(v, p, s->clock);
    s->keys[i] = move_key(v, 0, s->clock);
    if (compare_keys(s->keys[i], s->bounds[i]) > 0) {
        /* The WDL and the DTZ disagree (never seen): no bound holds, so
         * every move gets its DTZ. */
        best_key any = {2, 0, 0};
        for (int j = 0; j < s->n; j++)
            s->bounds[j] = any;
    }
    if (have_aim && compare_keys(s->keys[i], aim) < 0)
        s->known[i] = 2; /* below the aim: maybe dropped early */
    if (s->known[i] == 1)
        take_if_best(s, i);
    return FATHOM_OK;
}

/* DTZ probes for the moves not known yet, best bound first, while the
 * bound can reach the best key (an equal key may still win the tie).  The
 * first pass also takes the root's DTZ (dtz_hint) as a goal (a move with
 * that DTZ is what the root's DTZ says exists), so that winning quiet
 * moves that win slower are dropped from the start; if no move reaches
 * the goal (the DTZ was rounded), a second pass without it takes up the
 * dropped moves. */
static int best_from_dtz(best_search *s, int dtz_hint)
{
    best_key goal = move_key(dtz_hint, 0, s->clock);
    for (int pass = dtz_hint >= 2 ? 0 : 1; pass < 2; pass++) {
        for (;;) {
            int next = -1;
            for (int i = 0; i < s->n; i++)
                if (!s->known[i] && (next < 0 || compare_keys(s->bounds[i], s->bounds[next]) > 0))
                    next = i;
            /* What a move must reach to matter: the best so far, and in
             * the first pass the goal. */
            int have_aim = s->top >= 0 || pass == 0;
            best_key aim = s->top >= 0 ? s->keys[s->top] : goal;
            if (pass == 0 && compare_keys(goal, aim) > 0)
                aim = goal;
            if (next < 0 || (have_aim && compare_keys(s->bounds[next], aim) < 0))
                break;
            int status = best_probe_dtz(s, next, have_aim, aim);
            if (status != FATHOM_OK)
                return status;
        }
        if (pass == 1 || (s->top >= 0 && compare_keys(s->keys[s->top], goal) >= 0))
            break;
        /* Nothing reached the goal: the moves dropped below it come back. */
        for (int i = 0; i < s->n; i++)
            if (s->known[i] == 2)
                s->known[i] = 0;
    }
    return FATHOM_OK;
}

/* A move on the 50-move edge keeps its DTZ or gets one ply more once
 * settled (a win may become a 50-move draw, a loss a 50-move save), and
 * whether the root probe's search settles it depends on its budget, shared
 * by all such moves.  Only where such a move is the best one, or could tie
 * or pass it after settling, is the root probe's answer needed; below the
 * best move, settling cannot change the answer. */
static int best_needs_root(const best_search *s)
{
    for (int i = 0; i < s->n && s->top >= 0; i++) {
        if (!s->on_the_edge[i])
            continue;
        int v = s->moves[i].dtz, longer = v + (v > 0 ? 1 : -1);
        best_key most = move_key(v, 0, s->clock), settled = move_key(longer, 0, s->clock);
        if (compare_keys(settled, most) > 0)
            most = settled;
        if (i == s->top || compare_keys(most, s->keys[s->top]) >= 0)
            return 1;
    }
    return 0;
}

/*
 * fathom_best_move (declared in fathom_helpers.h): the move
 * fathom_probe_root's list would give pyfathom annotate, with far fewer
 * DTZ probes.  Every child gets a WDL probe (a few hundred ns); the WDL
 * alone fixes the DTZ of zeroing moves, mates and draws, and bounds the
 * key of the others (a winning quiet move has DTZ >= 2, a losing one is at
 * best a draw), so only the quiet moves whose bound reaches the best key
 * known so far get a DTZ probe: none when a zeroing win or a mate exists,
 * the winning quiet moves otherwise.  Ties go to the move
 * fathom_probe_root sorts first (root_order, then the move generator's
 * order), so the answer is the one a full root probe gives.  The search
 * state (about 13 KB) lives on the stack, as a root probe's move lists do.
 */
int fathom_best_move(fathom_tb *tb, const fathom_board *board, int dtz_hint,
                     fathom_best *out, fathom_detail *detail)
{
    best_search s;
    probe_memo pm;
    tb_prefetch_watch watch;
    if (!board || !out)
        return FATHOM_ERR_ARGUMENT;
    out->count = 0;
    out->dtz_probes = 0;
    out->on_edge = 0;
    s.tb = tb;
    s.pr.tb = tb;
    memset(&s.pr.failure, 0, sizeof s.pr.failure);
    s.pr.memo = probe_memo_start(&pm);
    s.pr.reads = 0;
    s.pr.as_stored = 0;
    int status = prepare_board(tb, &s.pos, board);
    if (status == FATHOM_OK) {
        s.pos.rule50 = (uint8_t)(board->halfmove > 255 ? 255 : board->halfmove);
        s.clock = (int)s.pos.rule50;
        s.n = any_gen_all(tb, &s.pos, s.legal);
        s.top = -1;
        s.dtz_probes = 0;
        tb_prefetch_begin(tb, &s.pos, 1, &watch);
        status = best_from_wdl(&s);
        if (status == FATHOM_OK)
            status = best_from_dtz(&s, dtz_hint);
        tb_prefetch_end(tb, &watch);
    }
    if (status != FATHOM_OK) {
        fill_detail(&s.pr.failure, detail);
        return status;
    }
    int edge = best_needs_root(&s);
    out->count = (unsigned)s.n;
    out->dtz_probes = s.dtz_probes;
    out->on_edge = edge;
    if (s.top < 0 || edge)
        return FATHOM_OK;
    fathom_root_move *best = &out->move;
    *best = s.moves[s.top];
    if (!best->dtz_precise && best->dtz == -2 && tb_rules_of(tb)->marks_mate_in_one) {
        /* The child's DTZ 1 is exact where it mates in one, as the
         * public DTZ probe (position_dtz) reports it. */
        tb_pos child;
        any_do_move(tb, &s.pos, s.legal[s.top], &child);
        best->dtz_precise = (int8_t)has_mate_in_one(&child);
    }
    best->wdl = (int8_t)wdl_with_clock(s.clock, best->dtz);
    out->result = s.keys[s.top].result;
    return FATHOM_OK;
}
