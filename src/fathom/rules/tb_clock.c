/*
 * tb_clock.c - the one rule of the 50-move clock: what a DTZ means for a
 * position whose halfmove clock already counts some plies.  The root probe,
 * the Fathom facade's ranks, fathom_best_move, and on the Python side
 * pyfathom annotate and the lichess-compatible server all ask here.
 */
#include "fathom.h"

int fathom_clock_result(int dtz, int precise, unsigned halfmove_clock)
{
    if (dtz == 0)
        return FATHOM_CLOCK_DRAW;
    /* Widened, so that no clock or DTZ can overflow the sum. */
    long long plies = (long long)(dtz > 0 ? dtz : -(long long)dtz) + halfmove_clock;
    int result;
    if (plies < 100 || (plies == 100 && precise))
        result = FATHOM_CLOCK_WIN;
    else if (plies == 100)
        result = FATHOM_CLOCK_MAYBE_WIN; /* a rounded DTZ: 100 or 101 plies */
    else
        result = FATHOM_CLOCK_CURSED_WIN;
    return dtz > 0 ? result : -result;
}

int fathom_clock_wdl(int result)
{
    if (result >= FATHOM_CLOCK_MAYBE_WIN)
        return 2;
    if (result == FATHOM_CLOCK_CURSED_WIN)
        return 1;
    if (result == FATHOM_CLOCK_BLESSED_LOSS)
        return -1;
    return result <= FATHOM_CLOCK_MAYBE_LOSS ? -2 : 0;
}
