/*
 * tb_batch_sorted.c - one slice of a batch, probed in table order: each
 * row's key (where its WDL value lies), the rows sorted by key, then
 * probed in that order through the thread's memo, so that rows falling in
 * the same block are decoded by one walk forward through it (and the
 * tables' index and data are read in order instead of at random).  The
 * answers go to each row's own place: the caller's order is kept.
 */
#include <stdlib.h>
#include <string.h>

#include "tb_batch.h"

void tb_batch_scratch_init(tb_batch_scratch *s, size_t rows)
{
    s->memo = (tb_block_memo *)calloc(1, sizeof *s->memo);
    s->cap = rows < TB_SLICE_ROWS ? rows : TB_SLICE_ROWS;
    s->keys = s->cap ? (uint64_t *)malloc(2 * s->cap * sizeof *s->keys) : NULL;
    if (!s->keys)
        s->cap = 0; /* no memory: rows are probed in the caller's order */
    s->spare = s->keys ? s->keys + s->cap : NULL;
}

void tb_batch_scratch_free(tb_batch_scratch *s)
{
    free(s->keys);
    free(s->memo);
    s->keys = s->spare = NULL;
    s->memo = NULL;
    s->cap = 0;
}

/*
 * Sort n keys (stable LSD radix sort, a byte at a time, above the low 16
 * bits that hold the row), passing over bytes that all keys share; the
 * result is in s->keys.
 */
static void sort_keys(tb_batch_scratch *s, size_t n)
{
    uint64_t *from = s->keys, *to = s->spare;
    if (n < 2)
        return;
    for (int shift = 16; shift < 64; shift += 8) {
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

void tb_batch_run_slice(const tb_batch_rows *rows, size_t begin, size_t end,
                        tb_batch_scratch *s)
{
    size_t n = end - begin;
    if (n > s->cap) {
        for (size_t i = begin; i < end; i++)
            tb_batch_probe_row(rows, i, s->memo);
        return;
    }
    for (size_t k = 0; k < n; k++)
        s->keys[k] = tb_batch_order_key(rows, begin + k) | (uint64_t)k;
    sort_keys(s, n);
    for (size_t k = 0; k < n; k++)
        tb_batch_probe_row(rows, begin + (size_t)(s->keys[k] & 0xffff), s->memo);
}
