/*
 * threads.c - two threads probing one cold instance at once (so tables are
 * mapped concurrently) give exactly the answers of a serial run.
 *
 *   threads DIR [PER_TABLE] [ROUNDS]
 *
 * Each round opens a fresh instance, checks that nothing is mapped before
 * the first probe, starts two threads together (same order in even rounds,
 * opposite orders in odd rounds) probing WDL and DTZ of every position, and
 * compares every packed result (status, value, precise flag) with the serial
 * reference.  Then the batch calls run with 2 threads on a cold instance and
 * are compared too.  Prints "TOTAL mismatches N"; exits 1 if N > 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fathom.h"
#include "positions_c.h"
#include "tboard.h"

static const char *DIR_;
static tpos *POS;
static fathom_board *BB;
static int NPOS;

typedef struct worker {
    fathom_tb *tb;
    int reverse;
    fathom_result *wdl, *dtz;
} worker;

static pthread_mutex_t START_LOCK = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t START_COND = PTHREAD_COND_INITIALIZER;
static int START_WAITING, START_GO;

static void probe_one(fathom_tb *tb, int i, fathom_result *w, fathom_result *d)
{
    *w = fathom_probe_wdl(tb, &BB[i], NULL);
    *d = fathom_probe_dtz(tb, &BB[i], NULL);
}

static void *run(void *arg)
{
    worker *wk = arg;
    int k;
    pthread_mutex_lock(&START_LOCK);
    START_WAITING++;
    pthread_cond_broadcast(&START_COND);
    while (!START_GO)
        pthread_cond_wait(&START_COND, &START_LOCK);
    pthread_mutex_unlock(&START_LOCK);
    for (k = 0; k < NPOS; k++) {
        int i = wk->reverse ? NPOS - 1 - k : k;
        probe_one(wk->tb, i, &wk->wdl[i], &wk->dtz[i]);
    }
    return NULL;
}

static fathom_tb *open_cold(void)
{
    fathom_tb *tb = NULL;
    unsigned found = 0;
    if (fathom_open(&tb) != FATHOM_OK ||
        fathom_add_directory(tb, DIR_, 1, 1, &found) != FATHOM_OK || found == 0) {
        fprintf(stderr, "cannot open tables in %s\n", DIR_);
        exit(2);
    }
    return tb;
}

int main(int argc, char **argv)
{
    int per_table = argc > 2 ? atoi(argv[2]) : 200;
    int rounds = argc > 3 ? atoi(argv[3]) : 6;
    long mismatches = 0, failed_ref = 0;
    fathom_result *ref_w, *ref_d;
    fathom_tb *tb;
    int i, r;
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [PER_TABLE] [ROUNDS]\n", argv[0]);
        return 2;
    }
    DIR_ = argv[1];
    POS = tc_positions(per_table, 0x7412u, &NPOS);
    BB = malloc((size_t)NPOS * sizeof *BB);
    ref_w = malloc((size_t)NPOS * sizeof *ref_w);
    ref_d = malloc((size_t)NPOS * sizeof *ref_d);
    if (!BB || !ref_w || !ref_d)
        return 2;
    for (i = 0; i < NPOS; i++)
        BB[i] = t_board(&POS[i]);

    /* Serial reference. */
    tb = open_cold();
    for (i = 0; i < NPOS; i++) {
        probe_one(tb, i, &ref_w[i], &ref_d[i]);
        if (FATHOM_RESULT_STATUS(ref_w[i]) != FATHOM_OK ||
            FATHOM_RESULT_STATUS(ref_d[i]) != FATHOM_OK)
            failed_ref++;
    }
    fathom_close(tb);
    printf("positions %d serial_failures %ld\n", NPOS, failed_ref);

    for (r = 0; r < rounds; r++) {
        pthread_t th[2];
        worker wk[2];
        long bad = 0;
        int k;
        tb = open_cold();
        if (fathom_mapped_count(tb) != 0) {
            printf("round %d: %u tables mapped before the first probe\n", r,
                   fathom_mapped_count(tb));
            bad++;
        }
        START_WAITING = 0;
        START_GO = 0;
        for (k = 0; k < 2; k++) {
            wk[k].tb = tb;
            wk[k].reverse = (r & 1) && k == 1;
            wk[k].wdl = calloc((size_t)NPOS, sizeof(fathom_result));
            wk[k].dtz = calloc((size_t)NPOS, sizeof(fathom_result));
            if (!wk[k].wdl || !wk[k].dtz || pthread_create(&th[k], NULL, run, &wk[k])) {
                fprintf(stderr, "cannot start a thread\n");
                return 2;
            }
        }
        pthread_mutex_lock(&START_LOCK);
        while (START_WAITING < 2)
            pthread_cond_wait(&START_COND, &START_LOCK);
        START_GO = 1;
        pthread_cond_broadcast(&START_COND);
        pthread_mutex_unlock(&START_LOCK);
        for (k = 0; k < 2; k++)
            pthread_join(th[k], NULL);
        for (k = 0; k < 2; k++) {
            for (i = 0; i < NPOS; i++)
                if (wk[k].wdl[i] != ref_w[i] || wk[k].dtz[i] != ref_d[i]) {
                    if (bad < 5)
                        printf("round %d thread %d position %d: wdl %lld/%lld dtz %lld/%lld\n",
                               r, k, i, (long long)wk[k].wdl[i], (long long)ref_w[i],
                               (long long)wk[k].dtz[i], (long long)ref_d[i]);
                    bad++;
                }
            free(wk[k].wdl);
            free(wk[k].dtz);
        }
        printf("round %d mapped %u mismatches %ld\n", r, fathom_mapped_count(tb), bad);
        mismatches += bad;
        fathom_close(tb);
    }

    /* Batch calls with two threads on a cold instance. */
    {
        uint64_t *a[8];
        uint8_t *ep = malloc((size_t)NPOS), *turn = malloc((size_t)NPOS);
        int8_t *bw = malloc((size_t)NPOS);
        int16_t *bd = malloc((size_t)NPOS * sizeof *bd);
        uint8_t *sw = malloc((size_t)NPOS), *sd = malloc((size_t)NPOS);
        long bad = 0;
        int k;
        for (k = 0; k < 8; k++)
            a[k] = malloc((size_t)NPOS * sizeof(uint64_t));
        for (i = 0; i < NPOS; i++) {
            a[0][i] = BB[i].white;
            a[1][i] = BB[i].black;
            a[2][i] = BB[i].kings;
            a[3][i] = BB[i].queens;
            a[4][i] = BB[i].rooks;
            a[5][i] = BB[i].bishops;
            a[6][i] = BB[i].knights;
            a[7][i] = BB[i].pawns;
            ep[i] = (uint8_t)POS[i].ep;
            turn[i] = (uint8_t)POS[i].turn;
        }
        tb = open_cold();
        if (fathom_probe_wdl_batch(tb, (size_t)NPOS, a[0], a[1], a[2], a[3], a[4], a[5],
                                   a[6], a[7], ep, turn, bw, sw, 2) != FATHOM_OK ||
            fathom_probe_dtz_batch(tb, (size_t)NPOS, a[0], a[1], a[2], a[3], a[4], a[5],
                                   a[6], a[7], ep, turn, bd, sd, 2) != FATHOM_OK) {
            printf("batch calls failed\n");
            bad++;
        }
        for (i = 0; i < NPOS; i++) {
            int ok = FATHOM_RESULT_STATUS(ref_w[i]) == FATHOM_OK;
            int want_w = ok ? FATHOM_RESULT_VALUE(ref_w[i]) : FATHOM_BATCH_WDL_FAILED;
            int want_d = FATHOM_RESULT_STATUS(ref_d[i]) == FATHOM_OK
                             ? FATHOM_RESULT_VALUE(ref_d[i]) : FATHOM_BATCH_DTZ_FAILED;
            /* Each row's status is the one the single probe gave. */
            if (bw[i] != want_w || bd[i] != want_d ||
                sw[i] != FATHOM_RESULT_STATUS(ref_w[i]) ||
                sd[i] != FATHOM_RESULT_STATUS(ref_d[i])) {
                if (bad < 5)
                    printf("batch position %d: wdl %d/%d dtz %d/%d status %d/%d %d/%d\n", i,
                           bw[i], want_w, bd[i], want_d, sw[i],
                           FATHOM_RESULT_STATUS(ref_w[i]), sd[i],
                           FATHOM_RESULT_STATUS(ref_d[i]));
                bad++;
            }
        }
        printf("batch mismatches %ld\n", bad);
        mismatches += bad;
        fathom_close(tb);
        for (k = 0; k < 8; k++)
            free(a[k]);
        free(ep);
        free(turn);
        free(bw);
        free(bd);
        free(sw);
        free(sd);
    }
    printf("TOTAL mismatches %ld\n", mismatches + failed_ref);
    free(POS);
    free(BB);
    free(ref_w);
    free(ref_d);
    return (mismatches + failed_ref) ? 1 : 0;
}
