/*
 * The engine's own pyrrhic/tbconfig.h in the form of Pyrrhic before July
 * 2024 (as Ethereal's and Berserk's copies have it): the hooks and the
 * score scale of tbScore.  tests/test_engine_pyrrhic.py copies it next to
 * the drop-in tbprobe.h.
 */
#pragma once

#include "../bitboards.h"

#define PYRRHIC_POPCOUNT(x) (popcount(x))
#define PYRRHIC_LSB(x) (getlsb(x))
#define PYRRHIC_POPLSB(x) (poplsb(x))

#define PYRRHIC_PAWN_ATTACKS(sq, c) (pawnAttacks(!(c), sq))
#define PYRRHIC_KNIGHT_ATTACKS(sq) (knightAttacks(sq))
#define PYRRHIC_BISHOP_ATTACKS(sq, occ) (bishopAttacks(sq, occ))
#define PYRRHIC_ROOK_ATTACKS(sq, occ) (rookAttacks(sq, occ))
#define PYRRHIC_QUEEN_ATTACKS(sq, occ) (queenAttacks(sq, occ))
#define PYRRHIC_KING_ATTACKS(sq) (kingAttacks(sq))

#define PYRRHIC_VALUE_PAWN (100)
#define PYRRHIC_VALUE_MATE (32000)
#define PYRRHIC_VALUE_DRAW (0)
#define PYRRHIC_MAX_MATE_PLY (255)
