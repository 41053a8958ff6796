/*
 * bench_batch.c - rows per second of the batch probes in table order
 * (fathom_probe_batch), in row order (FATHOM_BATCH_ROW_ORDER: one
 * per-position probe per row), and of a plain C loop of per-position
 * probes, over one position file, in alternated rounds.
 *
 *   bench_batch TABLE_DIRS POSITIONS_FILE [ROUNDS] [BATCH_ROWS] [KINDS]
 *
 * POSITIONS_FILE: see bench_positions.h.  BATCH_ROWS (default, or 0:
 * all) cuts the rows into batches of that many rows, one call each.
 * KINDS: wdl, dtz or both (the default).  Each round
 * times every (probe, method, threads) once, one pass over all rows, in an
 * order reversed every other round; printed per measure:
 *
 *   NAME median R min A max B   (rows per second)
 *
 * and, once, whether every method gave the same answers ("same 1").
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_positions.h"
#include "fathom.h"

enum { LOOP, ROW_ORDER, TABLE_ORDER, METHODS };
static const char *const method_names[METHODS] = {"c_loop", "batch_row_order", "batch_table_order"};

typedef struct rows {
    size_t n;
    uint64_t *bb[8];
    uint8_t *ep, *turn;
} rows;

typedef struct measure {
    int dtz, method;
    unsigned threads;
    double rate[64];
} measure;


static int read_rows(const char *path, rows *r)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    size_t cap = 0;
    memset(r, 0, sizeof *r);
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long b[8];
        unsigned ep;
        int turn;
        if (!bench_parse_position(line, b, &ep, &turn))
            continue;
        if (r->n == cap) {
            cap = cap ? 2 * cap : 65536;
            for (int k = 0; k < 8; k++)
                if (!(r->bb[k] = realloc(r->bb[k], cap * sizeof(uint64_t))))
                    return 0;
            if (!(r->ep = realloc(r->ep, cap)) || !(r->turn = realloc(r->turn, cap)))
                return 0;
        }
        for (int k = 0; k < 8; k++)
            r->bb[k][r->n] = b[k];
        r->ep[r->n] = (uint8_t)ep;
        r->turn[r->n] = (uint8_t)turn;
        r->n++;
    }
    fclose(f);
    return r->n > 0;
}

/* One pass over all rows; the answers go to wdl / dtz + precise. */
static void pass(fathom_tb *tb, const rows *r, const measure *m, size_t batch, int8_t *wdl,
                 int16_t *dtz, uint8_t *precise, uint8_t *status)
{
    if (m->method == LOOP) {
        for (size_t i = 0; i < r->n; i++) {
            fathom_board board = {r->bb[0][i], r->bb[1][i], r->bb[2][i], r->bb[3][i],
                                  r->bb[4][i], r->bb[5][i], r->bb[6][i], r->bb[7][i],
                                  r->ep[i], r->turn[i], 0, 0, 1};
            fathom_result res = m->dtz ? fathom_probe_dtz(tb, &board, NULL)
                                       : fathom_probe_wdl(tb, &board, NULL);
            int ok = FATHOM_RESULT_STATUS(res) == FATHOM_OK;
            status[i] = (uint8_t)FATHOM_RESULT_STATUS(res);
            if (m->dtz) {
                dtz[i] = ok ? (int16_t)FATHOM_RESULT_VALUE(res) : FATHOM_BATCH_DTZ_FAILED;
                precise[i] = ok ? (uint8_t)FATHOM_RESULT_PRECISE(res) : 0;
            } else {
                wdl[i] = ok ? (int8_t)FATHOM_RESULT_VALUE(res) : FATHOM_BATCH_WDL_FAILED;
            }
        }
        return;
    }
    unsigned flags = m->method == ROW_ORDER ? FATHOM_BATCH_ROW_ORDER : 0;
    for (size_t at = 0; at < r->n; at += batch) {
        size_t len = r->n - at < batch ? r->n - at : batch;
        const uint64_t *bb[8];
        for (int k = 0; k < 8; k++)
            bb[k] = r->bb[k] + at;
        fathom_probe_batch(tb, len, bb, r->ep + at, r->turn + at, m->dtz ? NULL : wdl + at,
                           m->dtz ? dtz + at : NULL, m->dtz ? precise + at : NULL,
                           status + at, m->threads, flags);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 3 ? atoi(argv[3]) : 7;
    rows r;
    fathom_tb *tb = NULL;
    unsigned found = 0;
    if (argc < 3 || rounds < 1 || rounds > 64) {
        fprintf(stderr, "usage: %s TABLE_DIRS POSITIONS_FILE [ROUNDS] [BATCH_ROWS] [KINDS]\n",
                argv[0]);
        return 2;
    }
    if (!read_rows(argv[2], &r)) {
        fprintf(stderr, "no positions read from %s\n", argv[2]);
        return 2;
    }
    size_t batch = argc > 4 && atol(argv[4]) > 0 ? (size_t)atol(argv[4]) : r.n;
    if (fathom_open(&tb) != FATHOM_OK ||
        fathom_add_path_list(tb, argv[1], ':', &found) != FATHOM_OK || !found) {
        fprintf(stderr, "no tables in %s\n", argv[1]);
        return 2;
    }
    const char *kinds = argc > 5 ? argv[5] : "both";
    int first_kind = strcmp(kinds, "dtz") == 0, last_kind = strcmp(kinds, "wdl") == 0 ? 0 : 1;
    if (strcmp(kinds, "wdl") && strcmp(kinds, "dtz") && strcmp(kinds, "both")) {
        fprintf(stderr, "KINDS is wdl, dtz or both, not %s\n", kinds);
        return 2;
    }
    measure ms[2 * (1 + 2 * 2)];
    int nm = 0;
    for (int dtz = first_kind; dtz <= last_kind; dtz++) {
        ms[nm++] = (measure){dtz, LOOP, 1, {0}};
        for (unsigned t = 1; t <= 2; t++)
            for (int method = ROW_ORDER; method <= TABLE_ORDER; method++)
                ms[nm++] = (measure){dtz, method, t, {0}};
    }
    int8_t *wdl[METHODS];
    int16_t *dtz[METHODS];
    uint8_t *precise[METHODS], *status[2][METHODS];
    for (int k = 0; k < METHODS; k++) {
        wdl[k] = malloc(r.n);
        dtz[k] = malloc(r.n * sizeof(int16_t));
        precise[k] = malloc(r.n);
        status[0][k] = malloc(r.n);
        status[1][k] = malloc(r.n);
        if (!wdl[k] || !dtz[k] || !precise[k] || !status[0][k] || !status[1][k])
            return 2;
    }
    int same = 1;
    for (int i = 0; i < nm; i++) { /* warm-up (maps the tables), answers kept */
        int k = ms[i].method;
        pass(tb, &r, &ms[i], batch, wdl[k], dtz[k], precise[k], status[ms[i].dtz][k]);
        if (k != LOOP)
            same &= ms[i].dtz ? !memcmp(dtz[k], dtz[LOOP], r.n * 2) &&
                                    !memcmp(precise[k], precise[LOOP], r.n)
                              : !memcmp(wdl[k], wdl[LOOP], r.n);
        same &= !memcmp(status[ms[i].dtz][k], status[ms[i].dtz][LOOP], r.n);
    }
    for (int round = 0; round < rounds; round++)
        for (int j = 0; j < nm; j++) {
            measure *m = &ms[round % 2 ? nm - 1 - j : j];
            int k = m->method;
            double t0 = now();
            pass(tb, &r, m, batch, wdl[k], dtz[k], precise[k], status[m->dtz][k]);
            m->rate[round] = (double)r.n / (now() - t0);
        }
    printf("positions %zu batch_rows %zu tables %u rounds %d\n", r.n, batch, found, rounds);
    /* Ratios paired within each round (the two rates of a ratio were
     * measured next to each other, so a load change between rounds
     * moves both). ms per kind: loop, row order t1, table order t1, row
     * order t2, table order t2. */
    static const struct { const char *name; int num, den; } pairs[] = {
        {"table_order_t1_over_c_loop", 2, 0},
        {"table_order_t1_over_row_order_t1", 2, 1},
        {"table_order_t2_over_t1", 4, 2},
        {"row_order_t2_over_t1", 3, 1},
    };
    for (int b = 0; b < nm; b += 5)
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            double ratio[64];
            for (int round = 0; round < rounds; round++)
                ratio[round] = ms[b + pairs[p].num].rate[round] / ms[b + pairs[p].den].rate[round];
            qsort(ratio, (size_t)rounds, sizeof(double), cmp_double);
            printf("%s_paired_%s median %.3f min %.3f max %.3f\n", ms[b].dtz ? "dtz" : "wdl",
                   pairs[p].name, ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
        }
    for (int i = 0; i < nm; i++) {
        qsort(ms[i].rate, (size_t)rounds, sizeof(double), cmp_double);
        printf("%s_%s_t%u median %.0f min %.0f max %.0f\n", ms[i].dtz ? "dtz" : "wdl",
               method_names[ms[i].method], ms[i].threads, ms[i].rate[rounds / 2],
               ms[i].rate[0], ms[i].rate[rounds - 1]);
    }
    printf("same %d\n", same);
    fathom_close(tb);
    for (int k = 0; k < METHODS; k++) {
        free(wdl[k]);
        free(dtz[k]);
        free(precise[k]);
        free(status[0][k]);
        free(status[1][k]);
    }
    for (int k = 0; k < 8; k++)
        free(r.bb[k]);
    free(r.ep);
    free(r.turn);
    return same ? 0 : 1;
}
