/*
 * bench_builds.c - two builds of the C core in one process: per-position
 * WDL and DTZ probes, timed in paired rounds (bench_builds.py drives it).
 *
 *   bench_builds LIB_BASE LIB_NEW TABLE_DIRS POSITIONS_FILE ROUNDS MIN_SECONDS
 *
 * LIB_BASE and LIB_NEW are shared libraries of the amalgamated core
 * (src/fathom/amalgamate.sh), loaded side by side with dlopen: their
 * symbols stay local, so each has its own fathom_* functions and its own
 * instance over TABLE_DIRS.  Each build's probes go through a function
 * pointer, so both loops pay the same call.  POSITIONS_FILE: see
 * bench_positions.h.
 *
 * Both builds first answer every position, and the answers are compared
 * (a speed-up that changes an answer is a bug, not a speed-up).  Then each
 * round times BASE and NEW back to back on the same positions, the order
 * alternating from round to round, each timing lasting about MIN_SECONDS.
 * Two processes on this shared machine scatter more than most changes
 * differ; two builds in one process see the same machine within
 * milliseconds, so the ratio of each round is the figure to quote.
 * Output, one "key value" per line, for KIND wdl and dtz:
 *
 *   KIND_differing N            positions whose answers differ (must be 0)
 *   KIND_base_ns / KIND_new_ns  median nanoseconds per probe (wall clock)
 *   KIND_ratio_median           median of base time / new time per round
 *   KIND_ratio_min, _max        (above 1: NEW is faster)
 *   KIND_cpu_*                  the same on this thread's CPU time
 */
#define _POSIX_C_SOURCE 199309L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "bench_positions.h"
#include "fathom.h"

typedef int (*open_fn)(fathom_tb **out);
typedef int (*add_paths_fn)(fathom_tb *tb, const char *paths, char sep, unsigned *found);
typedef fathom_result (*probe_fn)(fathom_tb *tb, const fathom_board *board, void *reserved);

enum { KIND_WDL, KIND_DTZ, KINDS };
static const char *const kind_names[KINDS] = {"wdl", "dtz"};
#define MAX_ROUNDS 1000

/* One build: its instance and its probes. */
typedef struct build {
    fathom_tb *tb;
    probe_fn probe[KINDS];
} build;

static int load_build(const char *lib, const char *tables, build *b)
{
    void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        fprintf(stderr, "%s\n", dlerror());
        return 0;
    }
    /* Through a union: ISO C has no cast from an object pointer to a
     * function pointer, and dlsym returns one. */
    union { void *object; open_fn open; add_paths_fn add; probe_fn probe; } sym;
    unsigned found = 0;
    sym.object = dlsym(handle, "fathom_open");
    open_fn open_tb = sym.open;
    sym.object = dlsym(handle, "fathom_add_path_list");
    add_paths_fn add_paths = sym.add;
    sym.object = dlsym(handle, "fathom_probe_wdl");
    b->probe[KIND_WDL] = sym.probe;
    sym.object = dlsym(handle, "fathom_probe_dtz");
    b->probe[KIND_DTZ] = sym.probe;
    if (!open_tb || !add_paths || !b->probe[KIND_WDL] || !b->probe[KIND_DTZ]) {
        fprintf(stderr, "%s: not a build of the core (fathom_* missing)\n", lib);
        return 0;
    }
    if (open_tb(&b->tb) != FATHOM_OK || add_paths(b->tb, tables, ':', &found) != FATHOM_OK ||
        !found) {
        fprintf(stderr, "%s: no tables in %s\n", lib, tables);
        return 0;
    }
    return 1;
}

static fathom_board *read_positions(const char *path, long *count)
{
    FILE *f = fopen(path, "r");
    fathom_board *boards = NULL;
    long n = 0, cap = 0;
    char line[1024];
    if (!f) {
        perror(path);
        return NULL;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned long long bb[8];
        unsigned ep;
        int turn;
        if (!bench_parse_position(line, bb, &ep, &turn))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            fathom_board *grown = (fathom_board *)realloc(boards, (size_t)cap * sizeof *boards);
            if (!grown) {
                free(boards);
                fclose(f);
                return NULL;
            }
            boards = grown;
        }
        boards[n++] = bench_board(bb, ep, turn);
    }
    fclose(f);
    *count = n;
    return boards;
}

enum { CLOCK_WALL, CLOCK_CPU, CLOCKS };
static const char *const clock_suffix[CLOCKS] = {"", "_cpu"};

/* `reps` passes of one build's probes over every position: seconds on
 * each clock into spent[]. */
static void time_passes(const build *b, int kind, const fathom_board *boards, long n,
                        long reps, long long *sink, double spent[CLOCKS])
{
    probe_fn probe = b->probe[kind];
    long long acc = 0;
    double wall0 = now(), cpu0 = thread_cpu_now();
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            acc += probe(b->tb, &boards[i], NULL);
    spent[CLOCK_CPU] = thread_cpu_now() - cpu0;
    spent[CLOCK_WALL] = now() - wall0;
    *sink += acc;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The figures of one clock: medians, and the per-round ratios' median and
 * range. */
static void report_clock(const char *kind, const char *suffix, double *base_ns,
                         double *new_ns, int rounds)
{
    double ratio[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        ratio[r] = base_ns[r] / new_ns[r];
    printf("%s%s_base_ns %.2f\n", kind, suffix, median(base_ns, rounds));
    printf("%s%s_new_ns %.2f\n", kind, suffix, median(new_ns, rounds));
    printf("%s%s_ratio_median %.4f\n", kind, suffix, median(ratio, rounds)); /* sorts */
    printf("%s%s_ratio_min %.4f\n", kind, suffix, ratio[0]);
    printf("%s%s_ratio_max %.4f\n", kind, suffix, ratio[rounds - 1]);
}

static void compare_kind(const build *builds, int kind, const fathom_board *boards, long n,
                         int rounds, double min_seconds, long long *sink)
{
    static double ns[CLOCKS][2][MAX_ROUNDS];
    double spent[CLOCKS];
    long differing = 0;
    for (long i = 0; i < n; i++)
        differing += builds[0].probe[kind](builds[0].tb, &boards[i], NULL) !=
                     builds[1].probe[kind](builds[1].tb, &boards[i], NULL);
    /* Passes per timing: about min_seconds on the base build. */
    time_passes(&builds[0], kind, boards, n, 1, sink, spent);
    long reps = spent[CLOCK_WALL] > 0 ? (long)(min_seconds / spent[CLOCK_WALL]) + 1 : 1;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            int which = (r + k) % 2; /* base first in even rounds, new first in odd */
            time_passes(&builds[which], kind, boards, n, reps, sink, spent);
            for (int c = 0; c < CLOCKS; c++)
                ns[c][which][r] = spent[c] * 1e9 / ((double)reps * (double)n);
        }
    }
    printf("%s_differing %ld\n", kind_names[kind], differing);
    for (int c = 0; c < CLOCKS; c++)
        report_clock(kind_names[kind], clock_suffix[c], ns[c][0], ns[c][1], rounds);
}

int main(int argc, char **argv)
{
    build builds[2];
    long n = 0;
    long long sink = 0;
    if (argc != 7) {
        fprintf(stderr, "usage: %s LIB_BASE LIB_NEW TABLE_DIRS POSITIONS_FILE ROUNDS "
                        "MIN_SECONDS\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[5]);
    double min_seconds = atof(argv[6]);
    if (rounds < 1 || rounds > MAX_ROUNDS || !(min_seconds >= 0)) {
        fprintf(stderr, "ROUNDS must be 1-%d and MIN_SECONDS at least 0\n", MAX_ROUNDS);
        return 2;
    }
    fathom_board *boards = read_positions(argv[4], &n);
    if (!boards || n == 0) {
        fprintf(stderr, "no positions in %s\n", argv[4]);
        return 2;
    }
    for (int k = 0; k < 2; k++)
        if (!load_build(argv[1 + k], argv[3], &builds[k]))
            return 2;
    printf("positions %ld\nrounds %d\n", n, rounds);
    for (int kind = 0; kind < KINDS; kind++)
        compare_kind(builds, kind, boards, n, rounds, min_seconds, &sink);
    printf("checksum %lld\n", sink & 1); /* keeps the probes' results live */
    free(boards);
    return 0;
}
