/*
 * fuzz_common.h - helpers shared by the fuzz targets: where the real test
 * tables are, a small deterministic random source, and building bitboards
 * for a material string so that every input is probed on positions of the
 * table it pretends to be.
 */
#ifndef PYFATHOM_FUZZ_COMMON_H
#define PYFATHOM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fathom_helpers.h"

/* The directory of the 70 real 3-4-piece tables (captures lead there). */
static const char *fuzz_real_tables(void)
{
    const char *env = getenv("PYFATHOM_FUZZ_TABLES");
    return env && *env ? env : NULL;
}

/* The variant whose tables and rules the targets fuzz: $PYFATHOM_FUZZ_VARIANT
 * ("atomic", "suicide" or "giveaway"; anything else: standard chess). */
static int fuzz_variant(void)
{
    const char *env = getenv("PYFATHOM_FUZZ_VARIANT");
    if (!env)
        return FATHOM_VARIANT_STANDARD;
    if (strcmp(env, "atomic") == 0)
        return FATHOM_VARIANT_ATOMIC;
    if (strcmp(env, "suicide") == 0)
        return FATHOM_VARIANT_SUICIDE;
    if (strcmp(env, "giveaway") == 0)
        return FATHOM_VARIANT_GIVEAWAY;
    return FATHOM_VARIANT_STANDARD;
}

static uint64_t fuzz_rand(uint64_t *state)
{
    /* xorshift64*: plenty for choosing squares */
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

typedef struct fuzz_pos {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    unsigned ep;
    int turn;
} fuzz_pos;

/* Place the pieces of `material` ("KRvKP"; colours swapped if `swap`) on
 * random free squares (pawns on ranks 2-7).  Legality is the core's
 * business: it rejects what is not a position. */
static void fuzz_place(const char *material, int swap, uint64_t *rng, fuzz_pos *p)
{
    memset(p, 0, sizeof *p);
    int black = swap;
    for (const char *c = material; *c; c++) {
        if (*c == 'v') {
            black = !swap;
            continue;
        }
        uint64_t occ = p->white | p->black, bit;
        int sq;
        do {
            sq = (int)(fuzz_rand(rng) % 64);
            bit = 1ULL << sq;
        } while ((occ & bit) || (*c == 'P' && (sq < 8 || sq >= 56)));
        if (black)
            p->black |= bit;
        else
            p->white |= bit;
        switch (*c) {
        case 'K': p->kings |= bit; break;
        case 'Q': p->queens |= bit; break;
        case 'R': p->rooks |= bit; break;
        case 'B': p->bishops |= bit; break;
        case 'N': p->knights |= bit; break;
        default: p->pawns |= bit; break;
        }
    }
    p->turn = (int)(fuzz_rand(rng) & 1);
}

static int fuzz_probe_all(fathom_tb *tb, const fuzz_pos *p, int with_root)
{
    fathom_detail d;
    int ok = 0;
    /* An ep past the board stays one (64): the probes refuse it. */
    fathom_board board = {p->white, p->black, p->kings, p->queens,
                          p->rooks, p->bishops, p->knights, p->pawns,
                          (uint8_t)(p->ep > 63 ? 64 : p->ep), (uint8_t)p->turn, 0, 0, 1};
    fathom_result r = fathom_probe_wdl(tb, &board, &d);
    ok += FATHOM_RESULT_STATUS(r) == FATHOM_OK;
    r = fathom_probe_dtz(tb, &board, &d);
    ok += FATHOM_RESULT_STATUS(r) == FATHOM_OK;
    if (with_root) {
        static fathom_root_move moves[FATHOM_MAX_MOVES];
        unsigned count;
        int wdl, dtz, precise;
        fathom_probe_root(tb, &board, moves, &count, &wdl, &dtz, &precise, &d);
        fathom_probe_root_wdl(tb, &board, moves, &count, &wdl, &d);
        fathom_best best;
        fathom_best_move(tb, &board, p->white & 1 ? 7 : 0, &best, &d);
    }
    return ok;
}

#endif
