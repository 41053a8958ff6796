/*
 * tsan_stress.c - many threads probing one COLD instance at once, built with
 * ThreadSanitizer by tests/test_hostile_concurrency.py.
 *
 *   tsan_stress DIR [THREADS [PER_TABLE [ROUNDS [BATCH_THREADS]]]]
 *   tsan_stress --race      (a deliberate data race: proves TSan is active)
 *
 * Positions: PER_TABLE random placements of each of the 35 test materials in
 * both colour orientations, both sides to move, plus en-passant positions of
 * KPvKP.  A serial pass on its own instance gives the reference (packed WDL
 * and DTZ results, root probes of every 16th position, and the number of
 * files mapped).  Then each round opens a fresh instance (nothing mapped)
 * and releases THREADS threads together through a barrier; every thread
 * probes every position, so the first probes of a table race to map it:
 *
 *   round 0        all threads in the same order (all fight for one slot);
 *   odd rounds     each thread starts at its own offset, alternate
 *                  directions, WDL-then-DTZ or DTZ-then-WDL;
 *   last round     (if ROUNDS >= 3) the threads are split over two cold
 *                  instances probed at once.
 *
 * Every result must equal the reference and the mapped count must equal the
 * serial run's.  Then the batch calls run with BATCH_THREADS threads on a
 * cold instance, and two batch calls (WDL and DTZ) run at once from two
 * caller threads on another cold instance.  Prints one line per phase and
 * "TOTAL mismatches N"; exits 1 on a mismatch, 2 on a setup failure.  With
 * TSAN_OPTIONS=halt_on_error=1:exitcode=66 any race report exits 66.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fathom.h"

static const char *const TABLES[35] = {
    "KQvK", "KRvK", "KBvK", "KNvK", "KPvK",
    "KQQvK", "KQRvK", "KQBvK", "KQNvK", "KQPvK", "KRRvK", "KRBvK", "KRNvK",
    "KRPvK", "KBBvK", "KBNvK", "KBPvK", "KNNvK", "KNPvK", "KPPvK", "KQvKQ",
    "KQvKR", "KQvKB", "KQvKN", "KQvKP", "KRvKR", "KRvKB", "KRvKN", "KRvKP",
    "KBvKB", "KBvKN", "KBvKP", "KNvKN", "KNvKP", "KPvKP"};

typedef struct pos {
    uint64_t bb[8]; /* white black kings queens rooks bishops knights pawns */
    unsigned ep;
    int turn;
} pos;

typedef struct root_ref {
    int status;
    unsigned count;
    int wdl, dtz, precise;
    fathom_root_move moves[FATHOM_MAX_MOVES];
} root_ref;

#define ROOT_EVERY 16

static const char *DIR_;
static pos *POS;
static int NPOS;
static fathom_result *REF_W, *REF_D;
static root_ref *REF_ROOT;
static unsigned REF_MAPPED;

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static int piece_index(char c)
{
    switch (c) {
    case 'K': return 2;
    case 'Q': return 3;
    case 'R': return 4;
    case 'B': return 5;
    case 'N': return 6;
    default: return 7; /* 'P' */
    }
}

static int adjacent(int a, int b)
{
    int df = a % 8 - b % 8, dr = a / 8 - b / 8;
    return df >= -1 && df <= 1 && dr >= -1 && dr <= 1;
}

/* Random placement of a material (kings apart, pawns on ranks 2-7).  What
 * else makes it illegal is the core's business: it is probed all the same. */
static void place(const char *mat, int swap, uint64_t *rng, pos *p)
{
    int side = swap, king_sq[2] = {-1, -1};
    memset(p, 0, sizeof *p);
    for (const char *c = mat; *c; c++) {
        if (*c == 'v') {
            side = !swap;
            continue;
        }
        for (;;) {
            int sq = (int)(rnd(rng) % 64);
            uint64_t bit = 1ULL << sq;
            if ((p->bb[0] | p->bb[1]) & bit)
                continue;
            if (*c == 'P' && (sq < 8 || sq >= 56))
                continue;
            if (*c == 'K' && king_sq[!side] >= 0 && adjacent(sq, king_sq[!side]))
                continue;
            if (*c == 'K')
                king_sq[side] = sq;
            p->bb[side] |= bit;
            p->bb[piece_index(*c)] |= bit;
            break;
        }
    }
    p->turn = (int)(rnd(rng) & 1);
}

/* KPvKP with white to move just after a black double push next to the
 * white pawn on the fifth rank: en passant is possible. */
static int place_ep(uint64_t *rng, pos *p)
{
    int wp = 32 + (int)(rnd(rng) % 8), bp = wp + ((wp % 8 == 0) ? 1 : (wp % 8 == 7) ? -1
                                                  : (rnd(rng) & 1) ? 1 : -1);
    uint64_t used = (1ULL << wp) | (1ULL << bp) | (1ULL << (bp + 8)) | (1ULL << (bp + 16));
    int wk, bk;
    memset(p, 0, sizeof *p);
    do
        wk = (int)(rnd(rng) % 64);
    while ((used >> wk) & 1);
    do
        bk = (int)(rnd(rng) % 64);
    while (((used >> bk) & 1) || bk == wk || adjacent(wk, bk));
    p->bb[0] = (1ULL << wp) | (1ULL << wk);
    p->bb[1] = (1ULL << bp) | (1ULL << bk);
    p->bb[2] = (1ULL << wk) | (1ULL << bk);
    p->bb[7] = (1ULL << wp) | (1ULL << bp);
    p->ep = (unsigned)(bp + 8);
    p->turn = 1;
    return 1;
}

static void make_positions(int per_table)
{
    uint64_t rng = 0x5eed7a11ULL;
    int cap = 35 * 2 * per_table + per_table, t, s, i;
    POS = malloc((size_t)cap * sizeof *POS);
    if (!POS)
        exit(2);
    NPOS = 0;
    for (i = 0; i < per_table; i++)
        for (t = 0; t < 35; t++)
            for (s = 0; s < 2; s++)
                place(TABLES[t], s, &rng, &POS[NPOS++]);
    for (i = 0; i < per_table; i++)
        NPOS += place_ep(&rng, &POS[NPOS]);
}

static fathom_board board_of(const pos *p)
{
    fathom_board b = {p->bb[0], p->bb[1], p->bb[2], p->bb[3], p->bb[4], p->bb[5],
                      p->bb[6], p->bb[7], (uint8_t)p->ep, (uint8_t)p->turn, 0, 0, 1};
    return b;
}

static fathom_result wdl_of(fathom_tb *tb, const pos *p)
{
    fathom_board b = board_of(p);
    return fathom_probe_wdl(tb, &b, NULL);
}

static fathom_result dtz_of(fathom_tb *tb, const pos *p)
{
    fathom_board b = board_of(p);
    return fathom_probe_dtz(tb, &b, NULL);
}

static void root_of(fathom_tb *tb, const pos *p, root_ref *out)
{
    fathom_board b = board_of(p);
    memset(out, 0, sizeof *out);
    out->status = fathom_probe_root(tb, &b, out->moves, &out->count, &out->wdl,
                                    &out->dtz, &out->precise, NULL);
}

static int root_equal(const root_ref *a, const root_ref *b)
{
    if (a->status != b->status)
        return 0;
    if (a->status != FATHOM_OK)
        return 1;
    if (a->count != b->count || a->wdl != b->wdl || a->dtz != b->dtz ||
        a->precise != b->precise)
        return 0;
    for (unsigned i = 0; i < a->count; i++) {
        const fathom_root_move *x = &a->moves[i], *y = &b->moves[i];
        if (x->from != y->from || x->to != y->to || x->promotion != y->promotion ||
            x->is_ep != y->is_ep || x->wdl != y->wdl || x->dtz != y->dtz ||
            x->dtz_precise != y->dtz_precise || x->rank != y->rank)
            return 0;
    }
    return 1;
}

static fathom_tb *open_cold(void)
{
    fathom_tb *tb = NULL;
    unsigned found = 0;
    if (fathom_open(&tb) != FATHOM_OK ||
        fathom_add_directory(tb, DIR_, 1, 1, &found) != FATHOM_OK || found != 70) {
        fprintf(stderr, "cannot open the 70 tables in %s (found %u)\n", DIR_, found);
        exit(2);
    }
    return tb;
}

/* ---- threaded rounds ---------------------------------------------------- */

static pthread_barrier_t START;

typedef struct worker {
    fathom_tb *tb;
    int start, step, dtz_first;
    long mismatches;
    int first_bad;
    pthread_t id;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    root_ref *root = malloc(sizeof *root);
    if (!root)
        exit(2);
    w->first_bad = -1;
    pthread_barrier_wait(&START);
    for (int k = 0; k < NPOS; k++) {
        int i = ((w->start + k * w->step) % NPOS + NPOS) % NPOS;
        fathom_result rw, rd;
        int bad = 0;
        if (w->dtz_first) {
            rd = dtz_of(w->tb, &POS[i]);
            rw = wdl_of(w->tb, &POS[i]);
        } else {
            rw = wdl_of(w->tb, &POS[i]);
            rd = dtz_of(w->tb, &POS[i]);
        }
        bad = rw != REF_W[i] || rd != REF_D[i];
        if (i % ROOT_EVERY == 0) {
            root_of(w->tb, &POS[i], root);
            bad |= !root_equal(root, &REF_ROOT[i / ROOT_EVERY]);
        }
        if (bad) {
            if (w->first_bad < 0)
                w->first_bad = i;
            w->mismatches++;
        }
    }
    free(root);
    return NULL;
}

/* One round; `split`: threads alternate between two cold instances. */
static long round_(int r, int nthreads, int split)
{
    fathom_tb *tb[2] = {open_cold(), split ? open_cold() : NULL};
    worker *w = calloc((size_t)nthreads, sizeof *w);
    long bad = 0;
    int k;
    if (!w)
        exit(2);
    for (k = 0; k < 1 + split; k++)
        if (fathom_mapped_count(tb[k]) != 0) {
            printf("round %d: instance %d has %u files mapped before any probe\n", r, k,
                   fathom_mapped_count(tb[k]));
            bad++;
        }
    pthread_barrier_init(&START, NULL, (unsigned)nthreads);
    for (k = 0; k < nthreads; k++) {
        w[k].tb = tb[split ? k & 1 : 0];
        w[k].start = r == 0 ? 0 : (int)((long)NPOS * k / nthreads);
        w[k].step = (r == 0 || k % 2 == 0) ? 1 : -1;
        w[k].dtz_first = r != 0 && (k / 2) % 2 == 1;
        if (pthread_create(&w[k].id, NULL, work, &w[k]) != 0) {
            fprintf(stderr, "cannot start thread %d\n", k);
            exit(2);
        }
    }
    for (k = 0; k < nthreads; k++)
        pthread_join(w[k].id, NULL);
    pthread_barrier_destroy(&START);
    for (k = 0; k < nthreads; k++) {
        if (w[k].mismatches)
            printf("round %d thread %d: %ld mismatches, first at position %d\n", r, k,
                   w[k].mismatches, w[k].first_bad);
        bad += w[k].mismatches;
    }
    for (k = 0; k < 1 + split; k++) {
        unsigned mapped = fathom_mapped_count(tb[k]);
        if (mapped != REF_MAPPED) {
            printf("round %d instance %d: %u files mapped, serial run %u\n", r, k, mapped,
                   REF_MAPPED);
            bad++;
        }
        fathom_close(tb[k]);
    }
    printf("round %d threads %d instances %d mismatches %ld\n", r, nthreads, 1 + split, bad);
    free(w);
    return bad;
}

/* ---- batch calls ------------------------------------------------------- */

static uint64_t *COL[8];
static uint8_t *EP, *TURN;

typedef struct batch_call {
    fathom_tb *tb;
    int dtz;
    unsigned threads;
    int8_t *w;
    int16_t *d;
    int status;
    pthread_t id;
} batch_call;

static void *run_batch(void *arg)
{
    batch_call *c = arg;
    pthread_barrier_wait(&START);
    if (c->dtz)
        c->status = fathom_probe_dtz_batch(c->tb, (size_t)NPOS, COL[0], COL[1], COL[2],
                                           COL[3], COL[4], COL[5], COL[6], COL[7], EP,
                                           TURN, c->d, NULL, c->threads);
    else
        c->status = fathom_probe_wdl_batch(c->tb, (size_t)NPOS, COL[0], COL[1], COL[2],
                                           COL[3], COL[4], COL[5], COL[6], COL[7], EP,
                                           TURN, c->w, NULL, c->threads);
    return NULL;
}

static long check_batch(const char *what, const batch_call *c)
{
    long bad = c->status != FATHOM_OK;
    for (int i = 0; i < NPOS; i++) {
        int ok;
        if (c->dtz) {
            ok = FATHOM_RESULT_STATUS(REF_D[i]) == FATHOM_OK
                     ? c->d[i] == FATHOM_RESULT_VALUE(REF_D[i])
                     : c->d[i] == FATHOM_BATCH_DTZ_FAILED;
        } else {
            ok = FATHOM_RESULT_STATUS(REF_W[i]) == FATHOM_OK
                     ? c->w[i] == FATHOM_RESULT_VALUE(REF_W[i])
                     : c->w[i] == FATHOM_BATCH_WDL_FAILED;
        }
        bad += !ok;
    }
    printf("%s %s threads %u mismatches %ld\n", what, c->dtz ? "dtz" : "wdl", c->threads,
           bad);
    return bad;
}

static long batches(unsigned bthreads)
{
    long bad = 0;
    int i, k;
    for (k = 0; k < 8; k++) {
        COL[k] = malloc((size_t)NPOS * sizeof(uint64_t));
        if (!COL[k])
            exit(2);
    }
    EP = malloc((size_t)NPOS);
    TURN = malloc((size_t)NPOS);
    if (!EP || !TURN)
        exit(2);
    for (i = 0; i < NPOS; i++) {
        for (k = 0; k < 8; k++)
            COL[k][i] = POS[i].bb[k];
        EP[i] = (uint8_t)POS[i].ep;
        TURN[i] = (uint8_t)POS[i].turn;
    }
    batch_call c[2];
    for (k = 0; k < 2; k++) {
        c[k].dtz = k;
        c[k].threads = bthreads;
        c[k].w = malloc((size_t)NPOS);
        c[k].d = malloc((size_t)NPOS * sizeof(int16_t));
        if (!c[k].w || !c[k].d)
            exit(2);
    }

    /* One caller: WDL then DTZ batch on a cold instance. */
    fathom_tb *tb = open_cold();
    pthread_barrier_init(&START, NULL, 1);
    for (k = 0; k < 2; k++) {
        c[k].tb = tb;
        run_batch(&c[k]);
        bad += check_batch("batch", &c[k]);
    }
    pthread_barrier_destroy(&START);
    fathom_close(tb);

    /* One probing thread with read-ahead always: where the machine has a
     * processor more, a thread of its own asks for the reads ahead
     * (batch/tb_read_ahead.c), reading the rows and tables the probing
     * thread reads and maps. */
    tb = open_cold();
    fathom_set_read_ahead(tb, FATHOM_READ_AHEAD_ALWAYS);
    pthread_barrier_init(&START, NULL, 1);
    for (k = 0; k < 2; k++) {
        unsigned threads = c[k].threads;
        c[k].tb = tb;
        c[k].threads = 1;
        run_batch(&c[k]);
        bad += check_batch("asker-batch", &c[k]);
        c[k].threads = threads;
    }
    pthread_barrier_destroy(&START);
    fathom_close(tb);

    /* Two callers at once (WDL and DTZ batches) on one cold instance. */
    tb = open_cold();
    pthread_barrier_init(&START, NULL, 2);
    for (k = 0; k < 2; k++) {
        c[k].tb = tb;
        memset(c[k].w, 0x55, (size_t)NPOS);
        memset(c[k].d, 0x55, (size_t)NPOS * sizeof(int16_t));
        if (pthread_create(&c[k].id, NULL, run_batch, &c[k]) != 0)
            exit(2);
    }
    for (k = 0; k < 2; k++)
        pthread_join(c[k].id, NULL);
    pthread_barrier_destroy(&START);
    for (k = 0; k < 2; k++)
        bad += check_batch("concurrent-batch", &c[k]);
    fathom_close(tb);

    for (k = 0; k < 2; k++) {
        free(c[k].w);
        free(c[k].d);
    }
    for (k = 0; k < 8; k++)
        free(COL[k]);
    free(EP);
    free(TURN);
    return bad;
}

/* ---- a deliberate race ------------------------------------------------- */

static long RACY;

static void *race(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        RACY++;
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads, per_table, rounds, r, i;
    unsigned bthreads;
    long mismatches = 0, ok_w = 0, ok_d = 0, ok_root = 0;
    if (argc == 2 && strcmp(argv[1], "--race") == 0) {
        pthread_t a, b;
        pthread_create(&a, NULL, race, NULL);
        pthread_create(&b, NULL, race, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        printf("race %ld\n", RACY);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [THREADS [PER_TABLE [ROUNDS [BATCH_THREADS]]]]\n",
                argv[0]);
        return 2;
    }
    DIR_ = argv[1];
    nthreads = argc > 2 ? atoi(argv[2]) : 8;
    per_table = argc > 3 ? atoi(argv[3]) : 20;
    rounds = argc > 4 ? atoi(argv[4]) : 3;
    bthreads = argc > 5 ? (unsigned)atoi(argv[5]) : 4;
    if (nthreads < 2 || per_table < 1 || rounds < 1)
        return 2;
    make_positions(per_table);

    /* Serial reference on its own instance. */
    REF_W = malloc((size_t)NPOS * sizeof *REF_W);
    REF_D = malloc((size_t)NPOS * sizeof *REF_D);
    REF_ROOT = malloc((size_t)(NPOS / ROOT_EVERY + 1) * sizeof *REF_ROOT);
    if (!REF_W || !REF_D || !REF_ROOT)
        return 2;
    fathom_tb *tb = open_cold();
    for (i = 0; i < NPOS; i++) {
        REF_W[i] = wdl_of(tb, &POS[i]);
        REF_D[i] = dtz_of(tb, &POS[i]);
        ok_w += FATHOM_RESULT_STATUS(REF_W[i]) == FATHOM_OK;
        ok_d += FATHOM_RESULT_STATUS(REF_D[i]) == FATHOM_OK;
        if (i % ROOT_EVERY == 0) {
            root_of(tb, &POS[i], &REF_ROOT[i / ROOT_EVERY]);
            ok_root += REF_ROOT[i / ROOT_EVERY].status == FATHOM_OK;
        }
    }
    REF_MAPPED = fathom_mapped_count(tb);
    fathom_close(tb);
    printf("positions %d wdl_ok %ld dtz_ok %ld root %d root_ok %ld serial_mapped %u\n",
           NPOS, ok_w, ok_d, (NPOS + ROOT_EVERY - 1) / ROOT_EVERY, ok_root, REF_MAPPED);

    for (r = 0; r < rounds; r++)
        mismatches += round_(r, nthreads, rounds >= 3 && r == rounds - 1);
    mismatches += batches(bthreads);
    printf("TOTAL mismatches %ld\n", mismatches);
    free(POS);
    free(REF_W);
    free(REF_D);
    free(REF_ROOT);
    return mismatches ? 1 : 0;
}
