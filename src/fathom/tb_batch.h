/*
 * tb_batch.h - internal: what the batch probes (tb_batch.c, the thread
 * pool; tb_batch_sorted.c, the rows of one slice in table order) share
 * with tb_probe.c.  Not installed.
 */
#ifndef PYFATHOM_TB_BATCH_H
#define PYFATHOM_TB_BATCH_H

#include "tb_internal.h"

#include <stddef.h>
#include <stdint.h>

#include "fathom.h"
#include "tb_table.h"

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

/*
 * Where row i's own WDL value lies, as a number that orders rows by table,
 * stream and index (the index shifted right when a table has more than
 * 2^35 positions); the low 16 bits are 0.  Rows that cannot be located
 * without side effects (invalid, a table missing or not mapped yet) get a
 * key from what is known: the order only decides how much decoding the
 * memo saves, never an answer.
 */
TB_INTERNAL uint64_t tb_batch_order_key(const tb_batch_rows *rows, size_t i);

/* Rows one slice holds at most: the row's place fits the key's low 16 bits. */
#define TB_SLICE_ROWS 65536

/* One batch thread's working memory: the memo (48 KB; NULL when it could
 * not be had: rows are then decoded from their blocks' starts) and two key
 * arrays of `cap` entries (cap <= TB_SLICE_ROWS; 0 when they could not be
 * had). */
typedef struct tb_batch_scratch {
    size_t cap;
    uint64_t *keys, *spare;
    tb_block_memo *memo;
} tb_batch_scratch;

TB_INTERNAL void tb_batch_scratch_init(tb_batch_scratch *s, size_t rows);
TB_INTERNAL void tb_batch_scratch_free(tb_batch_scratch *s);

/* Probe rows [begin, end) (end - begin <= TB_SLICE_ROWS) in the order of
 * their keys, each answer stored in the row's own place. */
TB_INTERNAL void tb_batch_run_slice(const tb_batch_rows *rows, size_t begin, size_t end,
                                    tb_batch_scratch *s);

#endif /* PYFATHOM_TB_BATCH_H */
