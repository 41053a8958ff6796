/*
 * bench_positions.h - the position files of the C benchmarks (bench_core.c,
 * bench_batch.c, bench_builds.c), written by benchmarks/common.py's
 * make_positions: one position a line, eight hex bitboards (white black
 * kings queens rooks bishops knights pawns), the en-passant square (0:
 * none) and the side to move (1: white), optionally " ; FEN" after them.
 */
#ifndef PYFATHOM_BENCH_POSITIONS_H
#define PYFATHOM_BENCH_POSITIONS_H

#include <stdio.h>

#include "fathom.h"

/* One line's fields; 0 for a line that is not a position (skipped). */
static inline int bench_parse_position(const char *line, unsigned long long bb[8],
                                       unsigned *ep, int *turn)
{
    return sscanf(line, "%llx %llx %llx %llx %llx %llx %llx %llx %u %d", &bb[0], &bb[1],
                  &bb[2], &bb[3], &bb[4], &bb[5], &bb[6], &bb[7], ep, turn) == 10;
}

/* The same position as the probes take it: no castling, the clock at 0
 * and move 1 (the file has neither). */
static inline fathom_board bench_board(const unsigned long long bb[8], unsigned ep, int turn)
{
    fathom_board board = {bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                          (uint8_t)(ep > 63 ? 64 : ep), (uint8_t)(turn != 0), 0, 0, 1};
    return board;
}

#endif /* PYFATHOM_BENCH_POSITIONS_H */
