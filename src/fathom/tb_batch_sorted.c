/*
 * tb_batch_sorted.c - one slice of a batch, probed in table order, so
 * that rows falling in the same block are decoded by one walk forward
 * through it (through the thread's memo) and the tables' index and data
 * are read in order instead of at random.  The answers go to each row's
 * own place: the caller's order is kept.
 *
 * Standard-chess WDL rows go in two passes: the first probes each row up
 * to its own table read (captures resolved, the table found, the index
 * computed: tb_batch_wdl_begin) and keeps where that read lies as a key;
 * the second makes the reads in key order (tb_batch_wdl_end).  DTZ rows
 * and variants' rows are keyed by where their WDL value lies
 * (tb_batch_order_key) and then probed whole in that order.
 */
#include <stdlib.h>
#include <string.h>

#include "tb_batch.h"
#include "tb_instance.h"
#include "tb_search.h"

/* A batch thread's memo (tb_table.h) for up to `rows` rows: a slot per 4
 * rows, from 256 up to 1 << TB_MEMO_BATCH_SLOT_BITS (a small batch, as the
 * server's per-position ones, does not pay for clearing 0.7 MB), with
 * marks; without marks when there is no memory for them, NULL when there
 * is none for the slots either. */
static tb_block_memo *memo_new(size_t rows)
{
    unsigned bits = 8;
    while (bits < TB_MEMO_BATCH_SLOT_BITS && ((size_t)1 << bits) < 4 * rows)
        bits++;
    size_t slots = (size_t)1 << bits;
    tb_block_memo *memo = (tb_block_memo *)malloc(sizeof *memo);
    tb_memo_slot *slot = (tb_memo_slot *)malloc(slots * sizeof *slot);
    tb_memo_marks *marks = (tb_memo_marks *)malloc(slots * sizeof *marks);
    uint8_t *mark_count = (uint8_t *)malloc(slots);
    if (!marks || !mark_count) {
        free(marks);
        free(mark_count);
        marks = NULL;
        mark_count = NULL;
    }
    if (!memo || !slot) {
        free(memo);
        free(slot);
        free(marks);
        free(mark_count);
        return NULL;
    }
    tb_memo_init(memo, slot, marks, mark_count, bits);
    return memo;
}

static void memo_free(tb_block_memo *memo)
{
    if (!memo)
        return;
    free(memo->slot);
    free(memo->marks);
    free(memo->mark_count);
    free(memo);
}

void tb_batch_scratch_init(tb_batch_scratch *s, size_t rows)
{
    s->memo = memo_new(rows);
    s->dir = (tb_stream_dir *)malloc(sizeof *s->dir);
    s->cap = rows < TB_SLICE_ROWS ? rows : TB_SLICE_ROWS;
    s->keys = s->cap ? (uint64_t *)malloc(2 * s->cap * sizeof *s->keys) : NULL;
    if (!s->keys)
        s->cap = 0; /* no memory: rows are probed in the caller's order */
    s->spare = s->keys ? s->keys + s->cap : NULL;
}

void tb_batch_scratch_free(tb_batch_scratch *s)
{
    free(s->keys);
    memo_free(s->memo);
    free(s->dir);
    s->keys = s->spare = NULL;
    s->memo = NULL;
    s->dir = NULL;
    s->cap = 0;
}

/*
 * Sort n keys (stable LSD radix sort, a byte at a time, above the low
 * TB_SLICE_ROW_BITS bits that hold the row), passing over bytes that all
 * keys share; the result is in s->keys.
 */
static void sort_keys(tb_batch_scratch *s, size_t n)
{
    uint64_t *from = s->keys, *to = s->spare;
    if (n < 2)
        return;
    for (int shift = TB_SLICE_ROW_BITS; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift) & 0xff]++;
        if (count[(from[0] >> shift) & 0xff] == n)
            continue;
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & 0xff]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != s->keys)
        memcpy(s->keys, from, n * sizeof *from);
}

#define ROW_MASK (TB_SLICE_ROWS - 1)
/* A deferred read's key: its stream's number, its index, its row. */
#define READ_INDEX_BITS (64 - TB_STREAM_DIR_BITS - TB_SLICE_ROW_BITS)

/* The number of a read's stream in the directory, given one the first
 * time it is met; 0 when the directory is full. */
static unsigned stream_number(tb_stream_dir *dir, const tb_wdl_read *read)
{
    uint64_t h = ((uint64_t)(uintptr_t)read->table + read->stream) * 0x9e3779b97f4a7c15ULL;
    unsigned mask = 2 * TB_STREAM_DIR_SIZE - 1;
    for (unsigned at = (unsigned)(h >> 40) & mask;; at = (at + 1) & mask) {
        unsigned k = dir->hash[at];
        if (k == 0) {
            if (dir->count + 1 >= TB_STREAM_DIR_SIZE)
                return 0;
            k = ++dir->count;
            dir->table[k] = read->table;
            dir->stream[k] = (uint8_t)read->stream;
            dir->hash[at] = (uint16_t)k;
            return k;
        }
        if (dir->table[k] == read->table && dir->stream[k] == read->stream)
            return k;
    }
}

/* Standard-chess WDL rows: the reads left after the first pass, sorted. */
static void run_wdl_slice(const tb_batch_rows *rows, size_t begin, size_t end,
                          tb_batch_scratch *s)
{
    tb_stream_dir *dir = s->dir;
    size_t m = 0;
    dir->count = 0;
    memset(dir->hash, 0, sizeof dir->hash);
    for (size_t k = 0; k < end - begin; k++) {
        tb_wdl_read read;
        if (!tb_batch_wdl_begin(rows, begin + k, s->memo, &read))
            continue;
        unsigned number = read.idx >> READ_INDEX_BITS ? 0 : stream_number(dir, &read);
        if (number == 0) {
            /* Off the key's scale: read now. */
            tb_batch_wdl_end(rows, begin + k, &read, s->memo);
            continue;
        }
        s->keys[m++] = (uint64_t)number << (64 - TB_STREAM_DIR_BITS) |
                       read.idx << TB_SLICE_ROW_BITS | (uint64_t)k;
    }
    sort_keys(s, m);
    for (size_t j = 0; j < m; j++) {
        uint64_t key = s->keys[j];
        unsigned number = (unsigned)(key >> (64 - TB_STREAM_DIR_BITS));
        tb_wdl_read read = {dir->table[number], dir->stream[number],
                            (key << TB_STREAM_DIR_BITS) >> (TB_STREAM_DIR_BITS + TB_SLICE_ROW_BITS)};
        tb_batch_wdl_end(rows, begin + (size_t)(key & ROW_MASK), &read, s->memo);
    }
}

void tb_batch_run_slice(const tb_batch_rows *rows, size_t begin, size_t end,
                        tb_batch_scratch *s)
{
    size_t n = end - begin;
    if (n > s->cap) {
        for (size_t i = begin; i < end; i++)
            tb_batch_probe_row(rows, i, s->memo);
        return;
    }
    if (rows->wdl_out && s->dir && tb_rules_are_inline(rows->tb)) {
        run_wdl_slice(rows, begin, end, s);
        return;
    }
    for (size_t k = 0; k < n; k++)
        s->keys[k] = tb_batch_order_key(rows, begin + k) | (uint64_t)k;
    sort_keys(s, n);
    for (size_t k = 0; k < n; k++)
        tb_batch_probe_row(rows, begin + (size_t)(s->keys[k] & ROW_MASK), s->memo);
}
