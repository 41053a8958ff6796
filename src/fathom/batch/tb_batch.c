/*
 * tb_batch.c - the batch probes (fathom_probe_batch and its three short
 * forms fathom_probe_wdl_batch, fathom_probe_dtz_batch,
 * fathom_probe_dtz_batch_precise): a pool of threads, started per call,
 * that claim slices of the caller's rows and probe each slice in table
 * order (tb_batch_sorted.c), or, with FATHOM_BATCH_ROW_ORDER, each row in
 * turn with the per-position probes of tb_probe.c.
 */
#include <string.h>

#include "batch/tb_batch.h"
#include "platform/tb_platform.h"

/* One batch call: the rows, the outputs, and the first row no thread has
 * claimed yet.  Threads claim `chunk` rows at a time until none are
 * left, so a core slowed down by something else (another process, another
 * tenant of the machine) does fewer rows instead of holding up the call,
 * as a fixed split into equal shares would. */
typedef struct batch_work {
    tb_batch_rows rows;
    size_t n;
    size_t chunk;    /* rows per claim (batch_chunk) */
    int row_order;   /* FATHOM_BATCH_ROW_ORDER */
    unsigned threads; /* probing threads */
    /* The one field written while the threads run, on a cache line of its
     * own: a claim does not take the line the threads read the rows'
     * arrays from away from them. */
    char before[64];
    tb_atomic_size next_row; /* claimed with an atomic add (claim_rows) */
    char after[64];
} batch_work;

/* Row order: 64 rows, about 40 us of WDL probes or 400 us of DTZ probes, so
 * the atomic add is rare and a call ends at most a few hundred
 * microseconds after its first thread runs out of rows. */
#define BATCH_CHUNK 64

/*
 * Table order: the larger a slice, the more of its rows share blocks, up
 * to TB_SLICE_ROWS (the slice's key arrays, 16 bytes a row, 20 with a
 * 7-piece table's low index bits, are each
 * thread's working memory); but at least two slices per thread, so that
 * a thread slowed down by another tenant leaves part of its share to the
 * others, and no fewer than 256 rows.  Two rather than more: a slice a
 * quarter as large costs each row more (callgrind, 1,000,000 random
 * 3-4-5-piece WDL rows, one thread: 2,205 instructions a row in one slice,
 * 2,386 in slices of 65,536).
 */
static size_t batch_chunk(size_t n, unsigned threads, int row_order)
{
    if (row_order)
        return BATCH_CHUNK;
    if (threads <= 1)
        return TB_SLICE_ROWS;
    size_t share = n / ((size_t)threads * 2);
    if (share < 256)
        share = 256;
    return share < TB_SLICE_ROWS ? share : TB_SLICE_ROWS;
}

static int claim_rows(batch_work *work, size_t *begin, size_t *end)
{
    size_t first = tb_atomic_fetch_add_size(&work->next_row, work->chunk);
    if (first >= work->n)
        return 0;
    *begin = first;
    *end = work->n - first > work->chunk ? first + work->chunk : work->n;
    return 1;
}

/* Probe the rows this thread claims until none are left: slice by slice
 * in table order, or row by row in the caller's order. */
static void run_batch(batch_work *work)
{
    size_t begin, end;
    if (work->row_order) {
        while (claim_rows(work, &begin, &end))
            for (size_t i = begin; i < end; i++)
                tb_batch_probe_row(&work->rows, i, NULL);
        return;
    }
    tb_batch_scratch scratch;
    tb_batch_scratch_init(&scratch, work->n < work->chunk ? work->n : work->chunk,
                          fathom_read_ahead(work->rows.tb), work->threads);
    while (claim_rows(work, &begin, &end))
        tb_batch_run_slice(&work->rows, begin, end, &scratch);
    tb_batch_scratch_free(&scratch);
}

static void batch_thread(void *arg)
{
    run_batch((batch_work *)arg);
}

#define MAX_BATCH_THREADS 256

int fathom_probe_batch(fathom_tb *tb, size_t n, const uint64_t *const bitboards[8],
                       const uint8_t *ep, const uint8_t *turn, int8_t *wdl_out,
                       int16_t *dtz_out, uint8_t *precise_out, uint8_t *status_out,
                       unsigned threads, unsigned flags)
{
    if (!tb || (n && (!bitboards || !ep || !turn || !wdl_out == !dtz_out)) ||
        (wdl_out && precise_out) || (flags & ~(unsigned)(FATHOM_BATCH_ROW_ORDER | FATHOM_BATCH_AS_STORED)))
        return FATHOM_ERR_ARGUMENT;
    for (int i = 0; i < 8; i++)
        if (n && !bitboards[i])
            return FATHOM_ERR_ARGUMENT;
    if (threads == 0)
        threads = tb_cpu_count();
    if (threads > MAX_BATCH_THREADS)
        threads = MAX_BATCH_THREADS;
    int row_order = (flags & FATHOM_BATCH_ROW_ORDER) != 0;
    size_t chunk = batch_chunk(n, threads, row_order);
    /* No more threads than chunks: tiny batches are not worth a thread start. */
    if ((size_t)threads > (n + chunk - 1) / chunk)
        threads = (unsigned)((n + chunk - 1) / chunk);

    batch_work work;
    work.rows.tb = tb;
    if (n)
        memcpy(work.rows.bb, bitboards, sizeof work.rows.bb);
    else
        memset(work.rows.bb, 0, sizeof work.rows.bb);
    work.rows.ep = ep;
    work.rows.turn = turn;
    work.rows.wdl_out = wdl_out;
    work.rows.dtz_out = dtz_out;
    work.rows.precise_out = precise_out;
    work.rows.status_out = status_out;
    work.rows.as_stored = (flags & FATHOM_BATCH_AS_STORED) != 0;
    work.n = n;
    tb_atomic_size_init(&work.next_row, 0);
    work.chunk = chunk;
    work.row_order = row_order;
    work.threads = threads;
    /* This thread works too; threads that cannot start leave their share
     * to the others (the rows are claimed, not assigned). */
    tb_thread ids[MAX_BATCH_THREADS];
    unsigned started = 0;
    while (started + 1 < threads && tb_thread_start(&ids[started], batch_thread, &work))
        started++;
    run_batch(&work);
    for (unsigned t = 0; t < started; t++)
        tb_thread_join(&ids[t]);
    return FATHOM_OK;
}

/* The three entry points with one array per bitboard (fathom.h's older
 * API): fathom_probe_batch with the arrays gathered, in its bitboard order,
 * and the output array required.  Their signatures are the public API's,
 * so each stays; what they do is written here once. */
static int probe_arrays(fathom_tb *tb, size_t n, const uint64_t *white, const uint64_t *black,
                        const uint64_t *kings, const uint64_t *queens, const uint64_t *rooks,
                        const uint64_t *bishops, const uint64_t *knights, const uint64_t *pawns,
                        const uint8_t *ep, const uint8_t *turn, int8_t *wdl_out,
                        int16_t *dtz_out, uint8_t *precise_out, uint8_t *status,
                        unsigned threads)
{
    const uint64_t *const bb[8] = {white, black, kings, queens,
                                   rooks, bishops, knights, pawns};
    if (!wdl_out && !dtz_out && n)
        return FATHOM_ERR_ARGUMENT;
    return fathom_probe_batch(tb, n, bb, ep, turn, wdl_out, dtz_out, precise_out, status,
                              threads, 0);
}

int fathom_probe_wdl_batch(fathom_tb *tb, size_t n, const uint64_t *white,
                           const uint64_t *black, const uint64_t *kings,
                           const uint64_t *queens, const uint64_t *rooks,
                           const uint64_t *bishops, const uint64_t *knights,
                           const uint64_t *pawns, const uint8_t *ep,
                           const uint8_t *turn, int8_t *out, uint8_t *status,
                           unsigned threads)
{
    return probe_arrays(tb, n, white, black, kings, queens, rooks, bishops, knights, pawns, ep,
                        turn, out, NULL, NULL, status, threads);
}

int fathom_probe_dtz_batch(fathom_tb *tb, size_t n, const uint64_t *white,
                           const uint64_t *black, const uint64_t *kings,
                           const uint64_t *queens, const uint64_t *rooks,
                           const uint64_t *bishops, const uint64_t *knights,
                           const uint64_t *pawns, const uint8_t *ep,
                           const uint8_t *turn, int16_t *out, uint8_t *status,
                           unsigned threads)
{
    return probe_arrays(tb, n, white, black, kings, queens, rooks, bishops, knights, pawns, ep,
                        turn, NULL, out, NULL, status, threads);
}

int fathom_probe_dtz_batch_precise(fathom_tb *tb, size_t n, const uint64_t *white,
                                   const uint64_t *black, const uint64_t *kings,
                                   const uint64_t *queens, const uint64_t *rooks,
                                   const uint64_t *bishops, const uint64_t *knights,
                                   const uint64_t *pawns, const uint8_t *ep,
                                   const uint8_t *turn, int16_t *out, uint8_t *precise,
                                   uint8_t *status, unsigned threads)
{
    return probe_arrays(tb, n, white, black, kings, queens, rooks, bishops, knights, pawns, ep,
                        turn, NULL, out, precise, status, threads);
}
