/*
 * bench_root.c - the latency of single root probes, through Fathom's own
 * API only (tb_init, tb_probe_root), so that one source builds against
 * the single-file build of src/fathom/ and against a checkout of Fathom:
 * the two builds time the same calls on the same positions.
 *
 *   bench_root TABLE_PATH POSITIONS_FILE [REPEATS]
 *
 * TABLE_PATH: Fathom's path list (directories joined by ':').
 * POSITIONS_FILE: one position per line, twelve fields: white black kings
 * queens rooks bishops knights pawns (hex bitboards), rule50, ep square,
 * turn (1 white), then anything (a FEN, ignored).  bench_root.py writes it.
 *
 * After a pass that maps the tables, each position is probed REPEATS times
 * (default 3) and its time is the fastest of them: the work of a call is
 * fixed, so the fastest run is the one the shared machine disturbed least;
 * calls still over 1 ms get 5 * REPEATS more runs.
 * Printed, one "name value" per line: the number of positions, the median,
 * 99th percentile and worst time in microseconds, the line number (from 1)
 * of the worst, and the number of calls over 1, 5 and 10 ms.  A failed
 * probe counts as a call like any other (its time is still measured).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tbprobe.h"

typedef struct row {
    unsigned long long bb[8];
    unsigned rule50, ep;
    int turn;
} row;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned probe(const row *r)
{
    static unsigned results[TB_MAX_MOVES];
    return tb_probe_root(r->bb[0], r->bb[1], r->bb[2], r->bb[3], r->bb[4],
                         r->bb[5], r->bb[6], r->bb[7], r->rule50, 0, r->ep,
                         r->turn != 0, results);
}

/* The positions of path; NULL (and a message) if it cannot be read. */
static row *read_rows(const char *path, long *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return NULL;
    }
    long cap = 1024, n = 0;
    row *rows = malloc((size_t)cap * sizeof *rows);
    char line[512];
    while (rows && fgets(line, sizeof line, f)) {
        row r;
        int turn;
        if (sscanf(line, "%llx %llx %llx %llx %llx %llx %llx %llx %u %u %d", &r.bb[0],
                   &r.bb[1], &r.bb[2], &r.bb[3], &r.bb[4], &r.bb[5], &r.bb[6], &r.bb[7],
                   &r.rule50, &r.ep, &turn) != 11)
            continue;
        r.turn = turn;
        if (n == cap) {
            row *bigger = realloc(rows, (size_t)(cap *= 2) * sizeof *rows);
            if (!bigger) {
                free(rows);
                rows = NULL;
                break;
            }
            rows = bigger;
        }
        rows[n++] = r;
    }
    fclose(f);
    if (!rows)
        fprintf(stderr, "out of memory\n");
    *count = n;
    return rows;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s TABLE_PATH POSITIONS_FILE [REPEATS]\n", argv[0]);
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    if (repeats < 1)
        repeats = 1;
    if (!tb_init(argv[1]) || TB_LARGEST == 0) {
        fprintf(stderr, "no tables in %s\n", argv[1]);
        return 1;
    }
    long n;
    row *rows = read_rows(argv[2], &n);
    if (!rows)
        return 1;
    double *times = malloc((size_t)(n ? n : 1) * sizeof *times);
    double *sorted = malloc((size_t)(n ? n : 1) * sizeof *sorted);
    if (!times || !sorted) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    unsigned long long sink = 0;
    for (long i = 0; i < n; i++)
        sink += probe(&rows[i]);
    for (long i = 0; i < n; i++) {
        double best = 0;
        for (int k = 0; k < repeats; k++) {
            double t0 = now_us();
            sink += probe(&rows[i]);
            double t = now_us() - t0;
            if (k == 0 || t < best)
                best = t;
        }
        times[i] = sorted[i] = best;
    }
    /* The calls over 1 ms again, 5 times as often: on a loaded machine a
     * single slow run among the first few would otherwise make the worst. */
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 5 * repeats && times[i] > 1000; k++) {
            double t0 = now_us();
            sink += probe(&rows[i]);
            double t = now_us() - t0;
            if (t < times[i])
                times[i] = sorted[i] = t;
        }
    }
    long worst = 0, over1 = 0, over5 = 0, over10 = 0;
    for (long i = 0; i < n; i++) {
        worst = times[i] > times[worst] ? i : worst;
        over1 += times[i] > 1000;
        over5 += times[i] > 5000;
        over10 += times[i] > 10000;
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    printf("positions %ld\n", n);
    if (n > 0) {
        printf("median_us %.1f\n", sorted[n / 2]);
        printf("p99_us %.1f\n", sorted[(n * 99) / 100]);
        printf("worst_us %.1f\n", times[worst]);
        printf("worst_line %ld\n", worst + 1);
    }
    printf("over_1ms %ld\nover_5ms %ld\nover_10ms %ld\n", over1, over5, over10);
    printf("sink %llu\n", sink & 1);
    free(rows);
    free(times);
    free(sorted);
    tb_free();
    return 0;
}
