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

#include "batch/tb_batch.h"
#include "probe/tb_instance.h"
#include "probe/tb_search.h"

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

void tb_batch_scratch_init(tb_batch_scratch *s, size_t rows, int read_ahead, unsigned threads)
{
    s->memo = memo_new(rows);
    s->dir = (tb_stream_dir *)malloc(sizeof *s->dir);
    /* Not for slices too short to have rows ahead, nor when off. */
    s->ahead = read_ahead != FATHOM_READ_AHEAD_OFF && rows > TB_AHEAD_DISTANCE
                   ? (tb_read_ahead *)malloc(sizeof *s->ahead)
                   : NULL;
    if (s->ahead)
        tb_ahead_init(s->ahead, read_ahead, threads);
    s->cap = rows < TB_SLICE_ROWS ? rows : TB_SLICE_ROWS;
    s->keys = s->cap ? (uint64_t *)malloc(2 * s->cap * sizeof *s->keys) : NULL;
    if (!s->keys)
        s->cap = 0; /* no memory: rows are probed in the caller's order */
    s->spare = s->keys ? s->keys + s->cap : NULL;
    s->low = NULL;
}

void tb_batch_scratch_free(tb_batch_scratch *s)
{
    free(s->keys);
    memo_free(s->memo);
    free(s->dir);
    if (s->ahead)
        tb_ahead_release(s->ahead);
    free(s->ahead);
    free(s->low);
    s->low = NULL;
    s->keys = s->spare = NULL;
    s->memo = NULL;
    s->dir = NULL;
    s->ahead = NULL;
    s->cap = 0;
}

/*
 * Sort the n keys at src by their bits [lo, hi), stable, into dst (src is
 * scratch space, not dst): LSD radix a byte at a time, over only the
 * bytes in which the keys differ.
 */
static void radix_sort_into(uint64_t *src, uint64_t *dst, size_t n, int lo, int hi)
{
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        any |= src[i];
        all &= src[i];
    }
    uint64_t *from = src, *to = dst;
    for (int shift = lo; shift < hi; shift += 8) {
        unsigned mask = hi - shift < 8 ? (1u << (hi - shift)) - 1 : 0xffu;
        if ((((any ^ all) >> shift) & mask) == 0)
            continue;
        uint32_t count[256] = {0}; /* a slice holds at most 2^20 keys */
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift) & mask]++;
        uint32_t at = 0;
        for (unsigned d = 0; d <= mask; d++) {
            uint32_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & mask]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != dst)
        memcpy(dst, from, n * sizeof *dst);
}

#define GROUP_SHIFT (64 - TB_KEY_GROUP_BITS)
/* Under this many keys one radix sort over every byte is the faster: a
 * random WDL slice's keys fall in a hundred streams or so, and sorting a
 * hundred small groups costs more than the scatter it saves (fastest of
 * 200 runs on slices of the keys below: 8,192 keys 197 us against 222 us
 * grouped, 16,384 keys 359 against 323). */
#define GROUPED_SORT_MIN 16384

/*
 * Sort the slice's n keys by their bits above the low TB_SLICE_ROW_BITS
 * (a row's or a read's place), stable; the result is in s->keys.  One
 * counting pass groups them by their top bits, then each group, small
 * enough to stay in the caches, is sorted on its own over the index bytes
 * its keys differ in.  Sorting a whole slice a byte at a time instead
 * scattered every key across the slice's 8 MB in each of its five or six
 * passes: the grouped sort is 1.6x as fast on the 891,106 reads of
 * 1,000,000 random 3-4-5-piece WDL rows (45 -> 27 ms, 8 alternated runs)
 * and 2.8x on 100,000 DTZ rows' keys (1.8 -> 0.6 ms).
 */
static void sort_keys(tb_batch_scratch *s, size_t n)
{
    uint64_t *keys = s->keys, *spare = s->spare;
    if (n < 2)
        return;
    if (n < GROUPED_SORT_MIN) {
        memcpy(spare, keys, n * sizeof *keys);
        radix_sort_into(spare, keys, n, TB_SLICE_ROW_BITS, 64);
        return;
    }
    uint32_t end[1u << TB_KEY_GROUP_BITS] = {0};
    for (size_t i = 0; i < n; i++)
        end[keys[i] >> GROUP_SHIFT]++;
    uint32_t at = 0;
    for (unsigned g = 0; g < 1u << TB_KEY_GROUP_BITS; g++) {
        uint32_t c = end[g];
        end[g] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        spare[end[keys[i] >> GROUP_SHIFT]++] = keys[i]; /* end[g]: where group g ends */
    size_t begin = 0;
    for (unsigned g = 0; g < 1u << TB_KEY_GROUP_BITS; g++) {
        if (end[g] > begin)
            radix_sort_into(spare + begin, keys + begin, end[g] - begin, TB_SLICE_ROW_BITS,
                            GROUP_SHIFT);
        begin = end[g];
    }
}

#define ROW_MASK (TB_SLICE_ROWS - 1)
/* A deferred read's key: its stream's number, its index, its row. */
#define READ_INDEX_BITS (64 - TB_STREAM_DIR_BITS - TB_SLICE_ROW_BITS)

/* The number of a read's stream in the directory, given one the first
 * time it is met; 0 when the directory is full.  A stream of more than
 * 2^READ_INDEX_BITS values (a 7-piece table's) gets the shift that fits
 * its indices into the key: the key then orders its reads by all but the
 * lowest bits (reads that far apart share a block), and those bits wait
 * in s->low. */
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
            uint64_t last = read->table->enc[read->stream].size - 1;
            unsigned shift = 0;
            while (last >> shift >> READ_INDEX_BITS)
                shift++;
            dir->shift[k] = (uint8_t)shift;
            dir->hash[at] = (uint16_t)k;
            return k;
        }
        if (dir->table[k] == read->table && dir->stream[k] == read->stream)
            return k;
    }
}

/* A deferred read, from its key (and the low bits its key had no room for). */
static tb_wdl_read read_of_key(const tb_batch_scratch *s, uint64_t key)
{
    const tb_stream_dir *dir = s->dir;
    unsigned number = (unsigned)(key >> (64 - TB_STREAM_DIR_BITS));
    uint64_t idx = (key << TB_STREAM_DIR_BITS) >> (TB_STREAM_DIR_BITS + TB_SLICE_ROW_BITS);
    unsigned shift = dir->shift[number];
    if (shift)
        idx = idx << shift | s->low[key & ROW_MASK];
    tb_wdl_read read = {dir->table[number], dir->stream[number], idx};
    return read;
}

/* Read-ahead of the sorted reads (tb_read_ahead.h): the read at place k. */
static unsigned wdl_read_targets(const void *context, size_t k,
                                 tb_ahead_target out[TB_AHEAD_TARGETS])
{
    const tb_batch_scratch *s = (const tb_batch_scratch *)context;
    tb_wdl_read read = read_of_key(s, s->keys[k]);
    out[0].pairs = &read.table->enc[read.stream].pairs;
    out[0].map = &read.table->map;
    out[0].idx = read.idx;
    return 1;
}

/* The rows of a slice probed whole in key order, and their reads. */
typedef struct slice_order {
    const tb_batch_rows *rows;
    size_t begin;
    const uint64_t *keys;
} slice_order;

static unsigned row_targets(const void *context, size_t k,
                            tb_ahead_target out[TB_AHEAD_TARGETS])
{
    const slice_order *o = (const slice_order *)context;
    return tb_batch_row_targets(o->rows, o->begin + (size_t)(o->keys[k] & ROW_MASK), out);
}

static unsigned row_children(const void *context, size_t k, tb_ahead_target *out,
                             unsigned cap)
{
    const slice_order *o = (const slice_order *)context;
    return tb_batch_row_children_targets(o->rows, o->begin + (size_t)(o->keys[k] & ROW_MASK),
                                         out, cap);
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
        unsigned number = stream_number(dir, &read);
        unsigned shift = number ? dir->shift[number] : 0;
        if (shift && !s->low)
            s->low = (uint32_t *)malloc(s->cap * sizeof *s->low); /* once a thread */
        if (number == 0 || (shift && !s->low) || shift > 31) {
            /* Off the key's scale (the directory full, no memory): read now. */
            tb_batch_wdl_end(rows, begin + k, &read, s->memo);
            continue;
        }
        if (shift)
            s->low[k] = (uint32_t)(read.idx & (((uint64_t)1 << shift) - 1));
        s->keys[m++] = (uint64_t)number << (64 - TB_STREAM_DIR_BITS) |
                       (read.idx >> shift) << TB_SLICE_ROW_BITS | (uint64_t)k;
    }
    sort_keys(s, m);
    if (s->ahead)
        tb_ahead_begin(s->ahead, m, wdl_read_targets, NULL, s);
    for (size_t j = 0; j < m; j++) {
        if (s->ahead)
            tb_ahead_step(s->ahead, j);
        uint64_t key = s->keys[j];
        tb_wdl_read read = read_of_key(s, key);
        tb_batch_wdl_end(rows, begin + (size_t)(key & ROW_MASK), &read, s->memo);
    }
    if (s->ahead)
        tb_ahead_end(s->ahead);
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
    slice_order order = {rows, begin, s->keys};
    if (s->ahead)
        tb_ahead_begin(s->ahead, n, row_targets, rows->dtz_out ? row_children : NULL, &order);
    for (size_t k = 0; k < n; k++) {
        if (s->ahead)
            tb_ahead_step(s->ahead, k);
        tb_batch_probe_row(rows, begin + (size_t)(s->keys[k] & ROW_MASK), s->memo);
    }
    if (s->ahead)
        tb_ahead_end(s->ahead);
}
