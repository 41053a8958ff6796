/*
 * positions_c.h - a deterministic list of positions over all 35 test tables
 * for the C tests: random valid positions of each table (both colour
 * orientations, both sides to move) plus en-passant positions for KPvKP.
 */
#ifndef PYFATHOM_TESTS_POSITIONS_C_H
#define PYFATHOM_TESTS_POSITIONS_C_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tchess.h"

static const char *const TC_TABLES[35] = {
    "KQvK", "KRvK", "KBvK", "KNvK", "KPvK",
    "KQQvK", "KQRvK", "KQBvK", "KQNvK", "KQPvK", "KRRvK", "KRBvK", "KRNvK",
    "KRPvK", "KBBvK", "KBNvK", "KBPvK", "KNNvK", "KNPvK", "KPPvK", "KQvKQ",
    "KQvKR", "KQvKB", "KQvKN", "KQvKP", "KRvKR", "KRvKB", "KRvKN", "KRvKP",
    "KBvKB", "KBvKN", "KBvKP", "KNvKN", "KNvKP", "KPvKP"};

/* Up to per_table positions of each table (double checks dropped), + per_table/4 ep positions (KPvKP). */
static inline tpos *tc_positions(int per_table, uint64_t seed, int *count)
{
    int total = 35 * per_table + per_table / 4, n = 0, t, i;
    uint64_t rng = seed;
    tpos *list = malloc((size_t)total * sizeof *list);
    if (!list) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (t = 0; t < 35; t++)
        for (i = 0; i < per_table; i++)
            /* Double checks are left out: python-chess rejects some. */
            if (t_random_position(TC_TABLES[t], (int)(t_rand(&rng) & 1), &rng, &list[n]) &&
                t_checkers(&list[n]) < 2)
                n++;
    for (i = 0; i < per_table / 4; i++)
        if (t_random_ep_position("KPvKP", &rng, &list[n]))
            n++;
    *count = n;
    return list;
}

#endif
