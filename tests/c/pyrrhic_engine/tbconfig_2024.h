/*
 * The engine's own pyrrhic/tbconfig.h, in the form Pyrrhic documents since
 * July 2024: the engine's headers, then the hooks.  tests/test_engine_pyrrhic.py
 * copies it next to the drop-in tbprobe.h.
 */
#pragma once

#include "../bitboards.h"

#define PYRRHIC_POPCOUNT(x) (popcount(x))
#define PYRRHIC_LSB(x) (getlsb(x))
#define PYRRHIC_POPLSB(x) (poplsb(x))

/* Pyrrhic numbers white 1, the engine white 0: the colour is inverted. */
#define PYRRHIC_PAWN_ATTACKS(sq, c) (pawnAttacks(!(c), sq))
#define PYRRHIC_KNIGHT_ATTACKS(sq) (knightAttacks(sq))
#define PYRRHIC_BISHOP_ATTACKS(sq, occ) (bishopAttacks(sq, occ))
#define PYRRHIC_ROOK_ATTACKS(sq, occ) (rookAttacks(sq, occ))
#define PYRRHIC_QUEEN_ATTACKS(sq, occ) (queenAttacks(sq, occ))
#define PYRRHIC_KING_ATTACKS(sq) (kingAttacks(sq))
