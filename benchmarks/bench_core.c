/*
 * bench_core.c - WDL and DTZ probes per second of the C core, called
 * directly through the instance API (fathom.h), over a fixed position file.
 *
 *   bench_core TABLE_DIRS POSITIONS_FILE [RUNS] [MIN_SECONDS]
 *
 * TABLE_DIRS: one directory, or several joined by ':'.
 *
 * POSITIONS_FILE: one position a line, as bench_positions.h reads it
 * (benchmarks/common.py's make_positions writes it).
 *
 * After a warm-up pass (tables mapped), each of RUNS runs (default 5) loops
 * over all positions as many times as needed to last MIN_SECONDS (default
 * 0.3 s) and reports probes per second; the median run is printed last as
 *
 *   wdl_median_probes_per_sec N
 *   dtz_median_probes_per_sec N
 *   root_median_probes_per_sec N    (fathom_probe_root: every legal move)
 *
 * Single-threaded, one probe per call, like an engine's probe in search.
 * Then the core's batch calls (fathom_probe_*_batch) with 1 and 2 threads:
 *
 *   c_batch_wdl_t1_median_probes_per_sec N   (and _t2, and dtz)
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_positions.h"
#include "fathom.h"

typedef struct row {
    unsigned long long bb[8];
    unsigned ep;
    int turn;
    fathom_board board; /* the same, as the probes take it */
} row;


/* Kinds of probe loop() makes: one call per position. */
enum { PROBE_WDL, PROBE_DTZ, PROBE_ROOT, PROBE_KINDS };
static const char *const kind_names[PROBE_KINDS] = {"wdl", "dtz", "root"};

static long loop(fathom_tb *tb, const row *rows, long n, int kind, long long *sink)
{
    static fathom_root_move moves[FATHOM_MAX_MOVES];
    long i, failed = 0;
    long long acc = 0;
    for (i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (kind == PROBE_ROOT) {
            /* Fathom's tb_probe_root at a reset clock: every legal move. */
            unsigned count;
            int wdl, dtz, precise;
            int status = fathom_probe_root(tb, &r->board, moves, &count, &wdl, &dtz,
                                           &precise, NULL);
            failed += status != FATHOM_OK;
            acc += status == FATHOM_OK ? dtz + (count ? moves[0].to : 0) : 0;
            continue;
        }
        fathom_result res = kind == PROBE_DTZ ? fathom_probe_dtz(tb, &r->board, NULL)
                                              : fathom_probe_wdl(tb, &r->board, NULL);
        failed += FATHOM_RESULT_STATUS(res) != FATHOM_OK;
        acc += res;
    }
    *sink += acc;
    return failed;
}

int main(int argc, char **argv)
{
    FILE *f;
    row *rows = NULL;
    long n = 0, cap = 0;
    int runs = argc > 3 ? atoi(argv[3]) : 5, kind;
    double min_seconds = argc > 4 ? atof(argv[4]) : 0.3;
    char line[1024];
    fathom_tb *tb = NULL;
    unsigned found = 0;
    long long sink = 0;
    if (argc < 3 || runs < 1 || runs > 99) {
        fprintf(stderr, "usage: %s TABLE_DIRS POSITIONS_FILE [RUNS] [MIN_SECONDS]\n", argv[0]);
        return 2;
    }
    f = fopen(argv[2], "r");
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    while (fgets(line, sizeof line, f)) {
        row r;
        if (!bench_parse_position(line, r.bb, &r.ep, &r.turn))
            continue;
        r.board = bench_board(r.bb, r.ep, r.turn);
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            rows = realloc(rows, (size_t)cap * sizeof *rows);
            if (!rows)
                return 2;
        }
        rows[n++] = r;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "no positions in %s\n", argv[2]);
        return 2;
    }
    if (fathom_open(&tb) != FATHOM_OK ||
        fathom_add_path_list(tb, argv[1], ':', &found) != FATHOM_OK || !found) {
        fprintf(stderr, "no tables in %s\n", argv[1]);
        return 2;
    }
    printf("positions %ld tables %u runs %d\n", n, found, runs);
    for (kind = 0; kind < PROBE_KINDS; kind++) {
        const char *name = kind_names[kind];
        double rates[100], t0, once;
        long reps, failed;
        int r, k;
        t0 = now();
        failed = loop(tb, rows, n, kind, &sink); /* warm-up: maps the tables */
        once = now() - t0;
        t0 = now();
        loop(tb, rows, n, kind, &sink);
        once = now() - t0;
        reps = once > 0 ? (long)(min_seconds / once) + 1 : 1;
        for (r = 0; r < runs; r++) {
            double t;
            t0 = now();
            for (k = 0; k < reps; k++)
                loop(tb, rows, n, kind, &sink);
            t = now() - t0;
            rates[r] = (double)n * (double)reps / t;
            printf("%s_run %d probes_per_sec %.0f\n", name, r + 1, rates[r]);
        }
        qsort(rates, (size_t)runs, sizeof rates[0], cmp_double);
        printf("%s_failed %ld\n", name, failed);
        printf("%s_median_probes_per_sec %.0f\n", name, rates[runs / 2]);
        printf("%s_median_us_per_probe %.4f\n", name, 1e6 / rates[runs / 2]);
    }
    /* The core's own batch call, 1 and 2 threads (no Python involved). */
    {
        uint64_t *cols[8];
        uint8_t *ep = malloc((size_t)n), *turn = malloc((size_t)n);
        int8_t *out = malloc((size_t)n);
        int16_t *out16 = malloc((size_t)n * sizeof *out16);
        long i;
        int k, threads;
        for (k = 0; k < 8; k++) {
            cols[k] = malloc((size_t)n * sizeof(uint64_t));
            if (!cols[k])
                return 2;
            for (i = 0; i < n; i++)
                cols[k][i] = rows[i].bb[k];
        }
        if (!ep || !turn || !out || !out16)
            return 2;
        for (i = 0; i < n; i++) {
            ep[i] = (uint8_t)rows[i].ep;
            turn[i] = (uint8_t)rows[i].turn;
        }
        for (kind = 0; kind < 2; kind++)
            for (threads = 1; threads <= 2; threads++) {
                double rates[100], t0, once;
                long reps, rep;
                int r;
                t0 = now();
                if (kind)
                    fathom_probe_dtz_batch(tb, (size_t)n, cols[0], cols[1], cols[2], cols[3],
                                           cols[4], cols[5], cols[6], cols[7], ep, turn,
                                           out16, NULL, (unsigned)threads);
                else
                    fathom_probe_wdl_batch(tb, (size_t)n, cols[0], cols[1], cols[2], cols[3],
                                           cols[4], cols[5], cols[6], cols[7], ep, turn,
                                           out, NULL, (unsigned)threads);
                once = now() - t0;
                reps = once > 0 ? (long)(min_seconds / once) + 1 : 1;
                for (r = 0; r < runs; r++) {
                    t0 = now();
                    for (rep = 0; rep < reps; rep++) {
                        if (kind)
                            fathom_probe_dtz_batch(tb, (size_t)n, cols[0], cols[1], cols[2],
                                                   cols[3], cols[4], cols[5], cols[6],
                                                   cols[7], ep, turn, out16, NULL,
                                                   (unsigned)threads);
                        else
                            fathom_probe_wdl_batch(tb, (size_t)n, cols[0], cols[1], cols[2],
                                                   cols[3], cols[4], cols[5], cols[6],
                                                   cols[7], ep, turn, out, NULL, (unsigned)threads);
                    }
                    rates[r] = (double)n * (double)reps / (now() - t0);
                }
                qsort(rates, (size_t)runs, sizeof rates[0], cmp_double);
                printf("c_batch_%s_t%d_median_probes_per_sec %.0f\n", kind ? "dtz" : "wdl",
                       threads, rates[runs / 2]);
            }
        for (k = 0; k < 8; k++)
            free(cols[k]);
        free(ep);
        free(turn);
        free(out);
        free(out16);
    }
    printf("checksum %lld\n", sink);
    fathom_close(tb);
    free(rows);
    return 0;
}
