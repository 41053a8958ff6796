/*
 * tb_probe.h - internal: a batch's rows as tb_probe.c probes them, for the
 * batch layer above (batch/tb_batch.h: the thread pool and the slices in
 * table order), and the layout of the key that orders them.  Not installed.
 */
#ifndef PYFATHOM_TB_PROBE_H
#define PYFATHOM_TB_PROBE_H

#include "platform/tb_internal.h"

#include <stddef.h>
#include <stdint.h>

#include "fathom.h"
#include "format/tb_table.h"

/* A row's order key (tb_batch_order_key) keeps the row's place in a slice
 * in its low TB_SLICE_ROW_BITS bits... */
#define TB_SLICE_ROW_BITS 20

/* ...and its top TB_KEY_GROUP_BITS bits name its group, which the sort
 * orders first (batch/tb_batch_sorted.c): a deferred WDL read's stream
 * number, or a row's table hash. */
#define TB_KEY_GROUP_BITS 10

/* A batch call's rows and outputs (the caller's arrays). */
typedef struct tb_batch_rows {
    fathom_tb *tb;
    const uint64_t *bb[8]; /* white black kings queens rooks bishops knights pawns */
    const uint8_t *ep, *turn;
    int8_t *wdl_out;       /* exactly one of wdl_out, dtz_out is set */
    int16_t *dtz_out;
    uint8_t *precise_out;  /* NULL: not wanted (DTZ batches only) */
    uint8_t *status_out;   /* NULL: not wanted */
    int as_stored;         /* FATHOM_BATCH_AS_STORED: lichess's precise flags */
} tb_batch_rows;

/*
 * Probe row i as fathom_probe_wdl / fathom_probe_dtz would (same status,
 * value and precise flag), decoding through memo (NULL: none), and store
 * the answer in the output arrays.
 */
TB_INTERNAL void tb_batch_probe_row(const tb_batch_rows *rows, size_t i, tb_block_memo *memo);

/* Where a standard-chess WDL row's own table read lies (tb_table_locate). */
typedef struct tb_wdl_read {
    const tb_table *table;
    unsigned stream;
    uint64_t idx;
} tb_wdl_read;

/*
 * A standard-chess WDL row in two steps (tb_chess_wdl_split), so that
 * the slice's table reads can be made in table order without the row's
 * position being set up and indexed twice.  tb_batch_wdl_begin probes row
 * i up to its own table read: RETURN 1 with *read set and the best
 * capture's value parked in rows->wdl_out[i] when that read is left to do,
 * 0 when the row is answered (en-passant rows are probed whole).
 * tb_batch_wdl_end makes the read and answers the row.  Together: what
 * tb_batch_probe_row gives.
 */
TB_INTERNAL int tb_batch_wdl_begin(const tb_batch_rows *rows, size_t i, tb_block_memo *memo,
                                   tb_wdl_read *read);
TB_INTERNAL void tb_batch_wdl_end(const tb_batch_rows *rows, size_t i,
                                  const tb_wdl_read *read, tb_block_memo *memo);

/*
 * Where row i's own WDL value lies, as a number that orders rows by table,
 * stream and index (the index shifted right when a table has more than
 * 2^(51 - TB_SLICE_ROW_BITS) positions); the low TB_SLICE_ROW_BITS bits
 * are 0.  Rows that cannot be located
 * without side effects (invalid, a table missing or not mapped yet) get a
 * key from what is known: the order only decides how much decoding the
 * memo saves, never an answer.
 */
TB_INTERNAL uint64_t tb_batch_order_key(const tb_batch_rows *rows, size_t i);

/* One table read a row will make: value idx of stream pairs of map. */
typedef struct tb_ahead_target {
    const tb_pairs *pairs;
    const tb_map *map;
    uint64_t idx;
} tb_ahead_target;

/* A row's own reads that are known ahead: its WDL value, and a DTZ row's
 * DTZ value. */
#define TB_AHEAD_TARGETS 2

/* Row i's own table reads that can be known before it is probed (read
 * ahead, tb_read_ahead.h): its WDL value and, for a DTZ row, its DTZ
 * value, in tables already mapped; standard chess only.  Nothing is
 * mapped, faulted in or decoded.  RETURN how many went into out. */
TB_INTERNAL unsigned tb_batch_row_targets(const tb_batch_rows *rows, size_t i,
                                          tb_ahead_target out[TB_AHEAD_TARGETS]);

/* A DTZ row whose DTZ table (mapped) holds the other side to move: its
 * probe searches one ply, reading each quiet child's WDL and DTZ values.
 * Those reads go into out (at most cap of them; the rest are left out);
 * RETURN how many.  None for other rows, nor for a row drawn by its
 * table's value (read here: the batch asks for the row's own block well
 * before it asks for its children).  Nothing is mapped, faulted in beyond
 * that value, or decoded. */
TB_INTERNAL unsigned tb_batch_row_children_targets(const tb_batch_rows *rows, size_t i,
                                                   tb_ahead_target *out, unsigned cap);

/* Where pos's WDL value and (with_dtz) DTZ value lie, in tables already
 * mapped, into out; RETURN how many; *unstored: the DTZ table is mapped
 * and holds the other side to move (the DTZ probe searches a ply).
 * Standard chess.  Nothing is mapped, faulted in or decoded. */
TB_INTERNAL unsigned tb_position_targets(const fathom_tb *tb, const tb_pos *pos, int with_dtz,
                                         tb_ahead_target out[TB_AHEAD_TARGETS], int *unstored);

/* The WDL reads of pos's captures, each in its own (smaller) table, and,
 * depth plies deep, of their captures (a capture's probe tries its own
 * captures first, and makes its read unless they settle it), into out (at
 * most cap, every ply's own reads before the next ply's); RETURN how
 * many; depth 0: none. */
TB_INTERNAL unsigned tb_capture_targets(const fathom_tb *tb, const tb_pos *pos, int depth,
                                        tb_ahead_target *out, unsigned cap);

/* The reads of pos's DTZ probe beyond its own values: its captures' WDL
 * values and, where its DTZ table holds the other side to move and its
 * WDL value (read here) is not a draw, every quiet child's WDL and DTZ
 * values (the ply it searches), and the WDL values of those children's
 * captures, capture_depth plies deep (tb_capture_targets: each child's
 * WDL probe tries them first; 0: none).  captures_asked: the plies of
 * pos's captures whose values were asked for before, as the root waves
 * do (0: none, as in a batch); then no search where one of those
 * captures, by the values read here, surely reaches pos's value (its
 * probe then neither reads DTZ nor searches).  At most cap, into out;
 * RETURN how many. */
TB_INTERNAL unsigned tb_search_targets(const fathom_tb *tb, const tb_pos *pos,
                                       int capture_depth, int captures_asked,
                                       tb_ahead_target *out, unsigned cap);

/* ---- A root probe's reads asked for together (tb_prefetch.c) ---- */

/* What tb_prefetch_begin decided, for tb_prefetch_end. */
typedef struct tb_prefetch_watch {
    int watching;          /* counting the thread's faults (AUTO) */
    int asked;             /* the waves ran */
    uint64_t major, minor; /* the thread's faults before */
} tb_prefetch_watch;

/* Which reads tb_prefetch_root asks for. */
enum {
    TB_PREFETCH_WDL,   /* WDL probes' only (fathom_probe_root_wdl: no DTZ, no search) */
    TB_PREFETCH_ROOT,  /* and the DTZ probes of the position and of the moves that do
                        * not zero: a root probe ranks a zeroing move by its WDL */
    TB_PREFETCH_MOVES  /* and every move's DTZ probe (fathom_read_ahead_moves: its
                        * caller probes each move's DTZ, a capture's too) */
};

/* Ask for the reads of pos's probe and of every probe of the position
 * after each legal move (`what`: TB_PREFETCH_*), in waves (index entries,
 * then block-length entries, then blocks), then those of the children's
 * searches. */
TB_INTERNAL void tb_prefetch_root(fathom_tb *tb, const tb_pos *pos, int what);

/* fathom_read_ahead_moves: tb_prefetch_root of TB_PREFETCH_MOVES, which in
 * the AUTO mode asks nothing while the pages it would ask are found in
 * memory (tb_prefetch.c says how it looks). */
TB_INTERNAL void tb_prefetch_moves(fathom_tb *tb, const tb_pos *pos);

/* Ask for the reads of the DTZ probes of pos[0 .. n) (each one's WDL and
 * DTZ values, its captures' WDL values, its search's reads), a few
 * positions a wave: a game's positions, probed one after another next. */
TB_INTERNAL void tb_prefetch_positions(fathom_tb *tb, const tb_pos *pos, size_t n);

/* Whether probes of positions of `pieces` pieces are to be read ahead
 * now, by the instance's read-ahead mode (tb_prefetch.c: ALWAYS; AUTO for
 * 6 pieces or more while the instance's probes before took faults), with
 * the watch started; RETURN 1: ask; either way tb_prefetch_end after the
 * probes. */
TB_INTERNAL int tb_prefetch_decide(fathom_tb *tb, int pieces, tb_prefetch_watch *watch);

/* Before a root probe of pos: tb_prefetch_root (`what` as there) if the
 * instance's read-ahead mode says so (tb_prefetch_decide); after it,
 * tb_prefetch_end. */
TB_INTERNAL void tb_prefetch_begin(fathom_tb *tb, const tb_pos *pos, int what,
                                   tb_prefetch_watch *watch);
TB_INTERNAL void tb_prefetch_end(fathom_tb *tb, const tb_prefetch_watch *watch);

#endif /* PYFATHOM_TB_PROBE_H */
