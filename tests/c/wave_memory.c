/*
 * wave_memory.c - root probes asked ahead on warm tables take no page
 * faults of their own (tests/test_root_prefetch.py).
 *
 *   wave_memory DIR < FENS
 *
 * Registers DIR, sets FATHOM_READ_AHEAD_ALWAYS, root-probes every FEN on
 * standard input twice and prints "probed N minor M": N root probes
 * answered in the second pass, M the minor page faults the thread took
 * in it.  The tables are in memory by then, so the faults are the core's
 * own: a read-ahead wave's memory (128 KB, tb_prefetch.c) taken from the
 * system and given back on each probe would bring fresh pages each time.
 * Before probing, the allocator is told to hand out and give back every
 * block of 64 KB or more with its own mapping (mallopt, glibc), as musl's
 * does, so that the test shows what any allocator would give.
 */
#define _GNU_SOURCE 1
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "fathom.h"
#include "fen.h"

#define MAX_FENS 1000

static unsigned probe_all(fathom_tb *tb, const fathom_board *boards, unsigned n)
{
    static fathom_root_move moves[256];
    unsigned answered = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned count = 0;
        int wdl, dtz, precise;
        answered += fathom_probe_root(tb, &boards[i], moves, &count, &wdl, &dtz, &precise,
                                      NULL) == FATHOM_OK;
    }
    return answered;
}

static long thread_minor_faults(void)
{
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt;
}

int main(int argc, char **argv)
{
    static fathom_board boards[MAX_FENS];
    char line[256];
    unsigned n = 0, found = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR < FENS\n", argv[0]);
        return 2;
    }
    if (mallopt(M_MMAP_THRESHOLD, 64 * 1024) != 1)
        return 2;
    while (n < MAX_FENS && fgets(line, sizeof line, stdin))
        n += fathom_parse_fen(line, strcspn(line, "\r\n"), &boards[n]) == FATHOM_OK;
    fathom_tb *tb;
    if (fathom_open(&tb) != FATHOM_OK || fathom_add_directory(tb, argv[1], 1, 1, &found) != FATHOM_OK ||
        fathom_set_read_ahead(tb, FATHOM_READ_AHEAD_ALWAYS) != FATHOM_OK)
        return 2;
    probe_all(tb, boards, n); /* maps the tables and brings their pages in */
    long before = thread_minor_faults();
    unsigned answered = probe_all(tb, boards, n);
    printf("probed %u minor %ld\n", answered, thread_minor_faults() - before);
    fathom_close(tb);
    return 0;
}
