/*
 * root_edge_work.c - the work fathom_probe_root's 50-move-edge search
 * takes, as the core reports it through its EDGE_WORK_REPORT hook (the
 * core compiled with -DEDGE_WORK_REPORT=edge_work_report).
 *
 *   root_edge_work TABLE_PATH POSITIONS_FILE
 *
 * POSITIONS_FILE: one position per line, as benchmarks/bench_root.py
 * writes them (eight hex bitboards, rule50, ep square, turn, then anything).
 * Prints one line per root probe that searched: "work BUDGET WORK
 * UNSETTLED" (UNSETTLED: the moves it left open), then "calls N".
 */
#include <stdio.h>
#include <stdlib.h>

#include "fathom.h"

/* The last search's report (this program is single-threaded). */
static unsigned long last_work, last_budget;
static int searched;

void edge_work_report(unsigned long work, unsigned long budget);

void edge_work_report(unsigned long work, unsigned long budget)
{
    last_work = work;
    last_budget = budget;
    searched = 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TABLE_PATH POSITIONS_FILE\n", argv[0]);
        return 2;
    }
    fathom_tb *tb;
    FILE *f = fopen(argv[2], "r");
    if (!f || fathom_open(&tb) != FATHOM_OK || fathom_add_path_list(tb, argv[1], ':', NULL) != FATHOM_OK) {
        fprintf(stderr, "cannot open %s or %s\n", argv[1], argv[2]);
        return 1;
    }
    static fathom_root_move moves[FATHOM_MAX_MOVES];
    char line[512];
    long calls = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long b[8];
        unsigned rule50, ep, count;
        int turn, wdl, dtz, precise;
        if (sscanf(line, "%llx %llx %llx %llx %llx %llx %llx %llx %u %u %d", &b[0], &b[1],
                   &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &rule50, &ep, &turn) != 11)
            continue;
        searched = 0;
        calls++;
        fathom_board board = {b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                              (uint8_t)ep, (uint8_t)turn, 0, (uint16_t)rule50, 1};
        if (fathom_probe_root(tb, &board, moves, &count, &wdl, &dtz, &precise, NULL) != FATHOM_OK) {
            printf("failed\n");
            continue;
        }
        if (!searched)
            continue;
        unsigned open = 0;
        for (unsigned i = 0; i < count; i++)
            open += moves[i].unsettled;
        printf("work %lu %lu %u\n", last_budget, last_work, open);
    }
    printf("calls %ld\n", calls);
    fathom_close(tb);
    fclose(f);
    return 0;
}
