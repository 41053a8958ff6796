/*
 * tboard.h - the C tests' positions (tchess.h) as the core's probes take
 * them: a fathom_board (fen.h) without castling rights, clock reset.
 */
#ifndef PYFATHOM_TESTS_TBOARD_H
#define PYFATHOM_TESTS_TBOARD_H

#include "fathom.h"
#include "tchess.h"

static inline fathom_board t_board(const tpos *p)
{
    tbb b = t_bitboards(p);
    fathom_board board = {b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                          b.knights, b.pawns, (uint8_t)p->ep, (uint8_t)p->turn, 0, 0, 1};
    return board;
}

#endif
