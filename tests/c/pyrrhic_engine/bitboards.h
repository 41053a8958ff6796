/*
 * bitboards.h - the bitboard utilities of the engine-like test program
 * (engine.c), which its pyrrhic/tbconfig.h hands to Pyrrhic's hooks as an
 * engine that vendors Pyrrhic does.  Squares 0 = a1 .. 63 = h8; colours as
 * most engines number them (white 0), the opposite of Pyrrhic's.
 */
#ifndef ENGINE_BITBOARDS_H
#define ENGINE_BITBOARDS_H

#include <stdint.h>

enum { ENGINE_WHITE = 0, ENGINE_BLACK = 1 };

int popcount(uint64_t bb);
int getlsb(uint64_t bb);
int poplsb(uint64_t *bb);
uint64_t pawnAttacks(int colour, int sq);
uint64_t knightAttacks(int sq);
uint64_t kingAttacks(int sq);
uint64_t bishopAttacks(int sq, uint64_t occ);
uint64_t rookAttacks(int sq, uint64_t occ);
uint64_t queenAttacks(int sq, uint64_t occ);

#endif
