/*
 * tb_batch.c - the batch probes (fathom_probe_wdl_batch, fathom_probe_dtz_batch,
 * fathom_probe_dtz_batch_precise):
 * a pool of threads, started per call, that claim rows of the caller's
 * arrays and probe each with the public per-position probes of tb_probe.c.
 */
#include <string.h>

#include "fathom.h"
#include "tb_platform.h"

/* One batch call: the rows, the outputs, and the first row no thread has
 * claimed yet.  Threads claim BATCH_CHUNK rows at a time until none are
 * left, so a core slowed down by something else (another process, another
 * tenant of the machine) does fewer rows instead of holding up the call,
 * as a fixed split into equal shares would. */
typedef struct batch_work {
    fathom_tb *tb;
    size_t n;
    tb_atomic_size next_row; /* claimed with an atomic add (claim_rows) */
    const uint64_t *bb[8];
    const uint8_t *ep, *turn;
    int8_t *wdl_out;
    int16_t *dtz_out;
    uint8_t *precise_out; /* NULL: not wanted (DTZ batches only) */
    uint8_t *status_out;  /* NULL: not wanted */
} batch_work;

/* 64 rows: about 40 us of WDL probes or 400 us of DTZ probes, so the atomic
 * add is rare and a call ends at most a few hundred microseconds after its
 * first thread runs out of rows. */
#define BATCH_CHUNK 64

static int claim_rows(batch_work *work, size_t *begin, size_t *end)
{
    size_t first = tb_atomic_fetch_add_size(&work->next_row, BATCH_CHUNK);
    if (first >= work->n)
        return 0;
    *begin = first;
    *end = work->n - first > BATCH_CHUNK ? first + BATCH_CHUNK : work->n;
    return 1;
}

/* Probe the rows this thread claims until none are left; each row is one
 * call of the public probe (no detail), unpacked into the output arrays. */
static void run_batch(batch_work *work)
{
    const uint64_t *const *bb = work->bb;
    size_t begin, end;
    while (claim_rows(work, &begin, &end)) {
        for (size_t i = begin; i < end; i++) {
            int status;
            if (work->wdl_out) {
                fathom_result r = fathom_probe_wdl(work->tb, bb[0][i], bb[1][i], bb[2][i],
                                                   bb[3][i], bb[4][i], bb[5][i], bb[6][i],
                                                   bb[7][i], work->ep[i], work->turn[i], NULL);
                status = FATHOM_RESULT_STATUS(r);
                work->wdl_out[i] = status == FATHOM_OK ? (int8_t)FATHOM_RESULT_VALUE(r)
                                                       : (int8_t)FATHOM_BATCH_WDL_FAILED;
            } else {
                fathom_result r = fathom_probe_dtz(work->tb, bb[0][i], bb[1][i], bb[2][i],
                                                   bb[3][i], bb[4][i], bb[5][i], bb[6][i],
                                                   bb[7][i], work->ep[i], work->turn[i], NULL);
                status = FATHOM_RESULT_STATUS(r);
                work->dtz_out[i] = status == FATHOM_OK ? (int16_t)FATHOM_RESULT_VALUE(r)
                                                       : (int16_t)FATHOM_BATCH_DTZ_FAILED;
                if (work->precise_out)
                    work->precise_out[i] = status == FATHOM_OK
                                               ? (uint8_t)FATHOM_RESULT_PRECISE(r) : 0;
            }
            if (work->status_out)
                work->status_out[i] = (uint8_t)status;
        }
    }
}

static void batch_thread(void *arg)
{
    run_batch((batch_work *)arg);
}

#define MAX_BATCH_THREADS 256

static int batch(fathom_tb *tb, size_t n, const uint64_t *const bb[8],
                 const uint8_t *ep, const uint8_t *turn, int8_t *wdl_out,
                 int16_t *dtz_out, uint8_t *precise_out, uint8_t *status_out,
                 unsigned threads)
{
    if (!tb || (n && (!ep || !turn || (!wdl_out && !dtz_out))))
        return FATHOM_ERR_ARGUMENT;
    for (int i = 0; i < 8; i++)
        if (n && !bb[i])
            return FATHOM_ERR_ARGUMENT;
    if (threads == 0)
        threads = tb_cpu_count();
    if (threads > MAX_BATCH_THREADS)
        threads = MAX_BATCH_THREADS;
    /* No more threads than chunks: tiny batches are not worth a thread start. */
    if ((size_t)threads > (n + BATCH_CHUNK - 1) / BATCH_CHUNK)
        threads = (unsigned)((n + BATCH_CHUNK - 1) / BATCH_CHUNK);

    batch_work work;
    work.tb = tb;
    work.n = n;
    tb_atomic_size_init(&work.next_row, 0);
    memcpy(work.bb, bb, sizeof work.bb);
    work.ep = ep;
    work.turn = turn;
    work.wdl_out = wdl_out;
    work.dtz_out = dtz_out;
    work.precise_out = precise_out;
    work.status_out = status_out;
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
    return batch(tb, n, bb, ep, turn, out, NULL, NULL, status, threads);
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
    return batch(tb, n, bb, ep, turn, NULL, out, NULL, status, threads);
}

int fathom_probe_dtz_batch_precise(fathom_tb *tb, size_t n, const uint64_t *white,
                                   const uint64_t *black, const uint64_t *kings,
                                   const uint64_t *queens, const uint64_t *rooks,
                                   const uint64_t *bishops, const uint64_t *knights,
                                   const uint64_t *pawns, const uint8_t *ep,
                                   const uint8_t *turn, int16_t *out, uint8_t *precise,
                                   uint8_t *status, unsigned threads)
{
    const uint64_t *const bb[8] = {white, black, kings, queens,
                                   rooks, bishops, knights, pawns};
    if (!out && n)
        return FATHOM_ERR_ARGUMENT;
    return batch(tb, n, bb, ep, turn, NULL, out, precise, status, threads);
}
