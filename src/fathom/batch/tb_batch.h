/*
 * tb_batch.h - internal: what the batch probes (tb_batch.c, the thread
 * pool; tb_batch_sorted.c, the rows of one slice in table order) share;
 * the rows and their probes come from the layer below (probe/tb_probe.h).
 * Not installed.
 */
#ifndef PYFATHOM_TB_BATCH_H
#define PYFATHOM_TB_BATCH_H

#include "platform/tb_internal.h"

#include <stddef.h>
#include <stdint.h>

#include "batch/tb_read_ahead.h"
#include "fathom.h"
#include "format/tb_table.h"
#include "probe/tb_probe.h" /* the rows, as the probes answer them */

/* Rows one slice holds at most: the row's place fits the key's low
 * TB_SLICE_ROW_BITS bits (probe/tb_probe.h).  The more rows a slice holds,
 * the more of them share a block (see tb_batch_sorted.c for what it gave). */
#define TB_SLICE_ROWS ((size_t)1 << TB_SLICE_ROW_BITS)

/* The streams a slice's deferred WDL reads go to, numbered from 1 in the
 * order met (tb_batch_sorted.c); about 13 KB. */
#define TB_STREAM_DIR_BITS TB_KEY_GROUP_BITS
#define TB_STREAM_DIR_SIZE (1u << TB_STREAM_DIR_BITS)
typedef struct tb_stream_dir {
    const tb_table *table[TB_STREAM_DIR_SIZE];
    uint8_t stream[TB_STREAM_DIR_SIZE];
    uint8_t shift[TB_STREAM_DIR_SIZE];     /* index bits below the key's (7-piece tables) */
    uint16_t hash[2 * TB_STREAM_DIR_SIZE]; /* numbers by (table, stream); 0: empty */
    unsigned count;                        /* numbers given out */
} tb_stream_dir;

/* One batch thread's working memory: the read-ahead (NULL: none), the memo (up to 192 KB of slots and
 * 516 KB of marks, a slot per 4 rows under 1,024 rows, tb_table.h; NULL when it could not be had: rows are then
 * decoded from their blocks' starts), the
 * stream directory (NULL: none) and two key arrays of `cap` entries (cap
 * <= TB_SLICE_ROWS; 0 when they could not be had). */
typedef struct tb_batch_scratch {
    size_t cap;
    uint64_t *keys, *spare;
    tb_block_memo *memo;
    tb_stream_dir *dir;
    uint32_t *low;  /* cap entries, made when a slice first needs them: per
                       deferred read, the index bits its key has no room
                       for (tb_batch_sorted.c); NULL: none yet */
    tb_read_ahead *ahead;
} tb_batch_scratch;

/* read_ahead: the instance's FATHOM_READ_AHEAD_* mode; threads: the
 * batch's probing threads (tb_ahead_init). */
TB_INTERNAL void tb_batch_scratch_init(tb_batch_scratch *s, size_t rows, int read_ahead,
                                       unsigned threads);
TB_INTERNAL void tb_batch_scratch_free(tb_batch_scratch *s);

/* Probe rows [begin, end) (end - begin <= TB_SLICE_ROWS) in the order of
 * their keys, each answer stored in the row's own place. */
TB_INTERNAL void tb_batch_run_slice(const tb_batch_rows *rows, size_t begin, size_t end,
                                    tb_batch_scratch *s);

#endif /* PYFATHOM_TB_BATCH_H */
