/*
 * tbprobe_helpers.c - the bitboard helpers of Fathom's API (tb_pop_count,
 * tb_lsb, tb_*_attacks), exported functions over the core's own inline
 * versions in tb_chess.h, so both give the same answers.
 */
#define TB_FACADE_BUILD 1
#include "tbprobe.h"

#include "rules/tb_chess.h"

#ifndef TB_NO_HELPER_API

unsigned tb_pop_count(uint64_t bb)
{
    return (unsigned)tb_popcount(bb);
}

unsigned tb_lsb(uint64_t bb)
{
    return (unsigned)bb_lsb(bb);
}

uint64_t tb_pop_lsb(uint64_t bb)
{
    return bb & (bb - 1);
}

/* Squares are masked to 0..63 so that a bad argument cannot shift past
 * the width of the board (undefined behaviour in C). */
uint64_t tb_king_attacks(unsigned square)
{
    return bb_king_attacks((int)(square & 63));
}

uint64_t tb_knight_attacks(unsigned square)
{
    return bb_knight_attacks((int)(square & 63));
}

uint64_t tb_rook_attacks(unsigned square, uint64_t occ)
{
    return bb_rook_attacks((int)(square & 63), occ);
}

uint64_t tb_bishop_attacks(unsigned square, uint64_t occ)
{
    return bb_bishop_attacks((int)(square & 63), occ);
}

uint64_t tb_queen_attacks(unsigned square, uint64_t occ)
{
    int sq = (int)(square & 63);
    return bb_rook_attacks(sq, occ) | bb_bishop_attacks(sq, occ);
}

uint64_t tb_pawn_attacks(unsigned square, bool color)
{
    return bb_pawn_attacks((int)(square & 63), color ? TB_WHITE : TB_BLACK);
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int tbprobe_helpers_left_out;
#endif
