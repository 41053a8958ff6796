/*
 * tb_chess.h - the chess the prober needs: bitboards, attacks, legal move
 * generation (captures, en passant, promotions; the generator itself, shared
 * with the variants, is tb_movegen.h), making moves, and the validity rules
 * python-chess applies to a board.
 *
 * Squares: 0 = a1 ... 63 = h8.  Colours and piece types use python-chess's
 * numbers so that no table of conversions sits between the two:
 * colour 1 = white, 0 = black; type 1 = pawn, 2 knight, 3 bishop, 4 rook,
 * 5 queen, 6 king.
 */
#ifndef PYFATHOM_TB_CHESS_H
#define PYFATHOM_TB_CHESS_H

#include <string.h>
#include "platform/tb_internal.h"

#include <stdint.h>

enum { TB_BLACK = 0, TB_WHITE = 1 };
enum { TB_PAWN = 1, TB_KNIGHT, TB_BISHOP, TB_ROOK, TB_QUEEN, TB_KING };

/* Each piece type's letter, indexed by type: the one table of them for
 * table names (format/tb_table.c), SAN out (helpers/tb_san.c) and SAN in
 * (helpers/tb_game.c). */
#define TB_PIECE_LETTERS " PNBRQK"

/* The piece type of an upper-case letter of TB_PIECE_LETTERS; 0 for any
 * other character. */
static inline int tb_piece_of_letter(char ch)
{
    for (int t = TB_PAWN; t <= TB_KING; t++)
        if (TB_PIECE_LETTERS[t] == ch)
            return t;
    return 0;
}

typedef struct tb_pos {
    uint64_t color[2]; /* [TB_BLACK], [TB_WHITE] */
    uint64_t type[7];  /* [TB_PAWN] .. [TB_KING]; [0] unused, always 0 */
    uint8_t ep;        /* en-passant target square, 0 = none */
    uint8_t turn;      /* TB_WHITE or TB_BLACK to move */
    uint8_t rule50;    /* halfmove clock, saturating at 255 */
} tb_pos;

/* Only the two kings are left: a draw in standard chess and atomic alike. */
static inline int tb_only_kings(const tb_pos *pos)
{
    return pos->type[TB_KING] == (pos->color[0] | pos->color[1]);
}

typedef struct tb_move {
    uint8_t from, to;
    uint8_t piece; /* type of the moving piece */
    uint8_t promo; /* 0, or the piece type promoted to */
    uint8_t flags; /* TB_MOVE_* */
} tb_move;

#define TB_MOVE_CAPTURE 1u /* takes a piece (en passant included) */
#define TB_MOVE_EP 2u
#define TB_MOVE_PAWN 4u
#define TB_MOVE_DOUBLE 8u

/* Which legal moves tb_gen_legal produces (bit set). */
#define TB_GEN_CAPTURES 1u     /* captures except en passant */
#define TB_GEN_EP 2u           /* en-passant captures */
#define TB_GEN_PAWN_PUSHES 4u  /* pawn moves that capture nothing */
#define TB_GEN_PIECE_QUIETS 8u /* non-pawn moves that capture nothing */
#define TB_GEN_ALL 15u

/* Enough for any position of the game (the known maximum is 218). */
#define TB_MAX_LEGAL 256

/* TB_CUSTOM_POP_COUNT / TB_CUSTOM_LSB / TB_NO_HW_POP_COUNT are Fathom's
 * tbconfig.h hooks: an engine that has its own bit tricks (or a CPU without
 * the popcount instruction) sets them, and the whole core uses them. */
static inline int tb_popcount(uint64_t b)
{
#if defined(TB_CUSTOM_POP_COUNT)
    return (int)TB_CUSTOM_POP_COUNT(b);
#elif defined(__POPCNT__) && !defined(TB_NO_HW_POP_COUNT)
    return __builtin_popcountll(b);
#else
    /* Tablebase boards are sparse: a loop per set bit beats the generic
     * library popcount when the CPU instruction is not enabled. */
    int n = 0;
    for (; b; b &= b - 1)
        n++;
    return n;
#endif
}

static inline int bb_lsb(uint64_t b)
{
#if defined(TB_CUSTOM_LSB)
    return (int)TB_CUSTOM_LSB(b);
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(b);
#else
    int n = 0;
    while (!(b & 1)) {
        b >>= 1;
        n++;
    }
    return n;
#endif
}

static inline int tb_msb(uint64_t b)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(b);
#else
    int n = 0;
    while (b >>= 1)
        n++;
    return n;
#endif
}

static inline uint64_t tb_bswap(uint64_t b)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(b);
#else
    b = ((b >> 8) & 0x00ff00ff00ff00ffULL) | ((b & 0x00ff00ff00ff00ffULL) << 8);
    b = ((b >> 16) & 0x0000ffff0000ffffULL) | ((b & 0x0000ffff0000ffffULL) << 16);
    return (b >> 32) | (b << 32);
#endif
}

#define TB_FILE_A 0x0101010101010101ULL
#define TB_FILE_H 0x8080808080808080ULL
#define TB_RANK_1 0x00000000000000ffULL
#define TB_RANK_8 0xff00000000000000ULL

/* The squares the knights, kings or pawns (of `color`) on the squares of
 * b attack, all at once: shifts of the whole set. */
static inline uint64_t tb_knight_span(uint64_t b)
{
    uint64_t one = ((b >> 1) & ~TB_FILE_H) | ((b << 1) & ~TB_FILE_A);
    uint64_t two = ((b >> 2) & 0x3f3f3f3f3f3f3f3fULL) |
                   ((b << 2) & 0xfcfcfcfcfcfcfcfcULL);
    return (one << 16) | (one >> 16) | (two << 8) | (two >> 8);
}

static inline uint64_t tb_king_span(uint64_t b)
{
    uint64_t row = b | ((b << 1) & ~TB_FILE_A) | ((b >> 1) & ~TB_FILE_H);
    return (row | (row << 8) | (row >> 8)) & ~b;
}

static inline uint64_t tb_pawn_span(uint64_t b, int color)
{
    if (color == TB_WHITE)
        return ((b << 7) & ~TB_FILE_H) | ((b << 9) & ~TB_FILE_A);
    return ((b >> 9) & ~TB_FILE_H) | ((b >> 7) & ~TB_FILE_A);
}

static inline uint64_t bb_knight_attacks(int sq)
{
    return tb_knight_span(1ULL << sq);
}

static inline uint64_t bb_king_attacks(int sq)
{
    return tb_king_span(1ULL << sq);
}

/* Squares a pawn of `color` on `sq` attacks. */
static inline uint64_t bb_pawn_attacks(int sq, int color)
{
    return tb_pawn_span(1ULL << sq, color);
}

/*
 * Sliding attacks along one line through sq, by the byte-swap trick: the
 * subtraction finds the first blocker upwards, the same on the byte-swapped
 * board finds it downwards.  Valid for files and diagonals (lines that
 * cross every rank at most once); ranks are handled separately.
 */
static inline uint64_t tb_line_attacks(uint64_t occ, uint64_t line, int sq)
{
    uint64_t s = 1ULL << sq;
    uint64_t up = occ & line;
    uint64_t down = tb_bswap(up);
    up -= s;
    down -= tb_bswap(s);
    return (up ^ tb_bswap(down)) & line;
}

/* Along the rank: the nearest blocker on each side bounds the attack. */
static inline uint64_t tb_rank_attacks(uint64_t occ, int sq)
{
    int file = sq & 7, shift = sq & 56;
    unsigned row = (unsigned)(occ >> shift) & 0xffu;
    unsigned upper = row & (0xfeu << file) & 0xffu;
    unsigned lower = row & ((1u << file) - 1);
    unsigned east = upper ? ((upper & (0u - upper)) << 1) - (2u << file)
                          : 0xffu & ~((2u << file) - 1);
    unsigned west = lower ? ((1u << file) - 1) & ~((1u << tb_msb(lower)) - 1)
                          : (1u << file) - 1;
    return (uint64_t)((east | west) & 0xffu) << shift;
}

/* The fifteen a1-h8 diagonals by file - rank + 7 (a8 .. h1).  Looked up:
 * shifting the long diagonal up or down by the difference made the
 * direction a branch, which the square decides at random (callgrind's
 * branch simulation: 2.5 mispredicts a batch row in the two diagonals;
 * shifts both ways without a branch cost 24 instructions a row more). */
static const uint64_t tb_diagonals[15] = {
    0x0100000000000000ULL, 0x0201000000000000ULL, 0x0402010000000000ULL,
    0x0804020100000000ULL, 0x1008040201000000ULL, 0x2010080402010000ULL,
    0x4020100804020100ULL, 0x8040201008040201ULL, 0x0080402010080402ULL,
    0x0000804020100804ULL, 0x0000008040201008ULL, 0x0000000080402010ULL,
    0x0000000000804020ULL, 0x0000000000008040ULL, 0x0000000000000080ULL,
};

static inline uint64_t tb_diagonal_through(int sq)
{
    return tb_diagonals[(sq & 7) - (sq >> 3) + 7];
}

/* The anti-diagonal is the diagonal of the square mirrored top to bottom,
 * mirrored back: file + rank indexes it. */
static inline uint64_t tb_antidiagonal_through(int sq)
{
    return tb_bswap(tb_diagonals[(sq & 7) + (sq >> 3)]);
}

static inline uint64_t bb_bishop_attacks(int sq, uint64_t occ)
{
    uint64_t s = 1ULL << sq;
    return tb_line_attacks(occ, tb_diagonal_through(sq) & ~s, sq) |
           tb_line_attacks(occ, tb_antidiagonal_through(sq) & ~s, sq);
}

static inline uint64_t bb_rook_attacks(int sq, uint64_t occ)
{
    uint64_t s = 1ULL << sq;
    return tb_line_attacks(occ, (TB_FILE_A << (sq & 7)) & ~s, sq) |
           tb_rank_attacks(occ, sq);
}

/* The squares a piece of `type` (knight to king) on sq attacks. */
static inline uint64_t bb_piece_attacks(int type, int sq, uint64_t occ)
{
    switch (type) {
    case TB_KNIGHT: return bb_knight_attacks(sq);
    case TB_BISHOP: return bb_bishop_attacks(sq, occ);
    case TB_ROOK: return bb_rook_attacks(sq, occ);
    case TB_QUEEN: return bb_bishop_attacks(sq, occ) | bb_rook_attacks(sq, occ);
    default: return bb_king_attacks(sq);
    }
}

/* The lines through sq on an empty board (the square itself excluded):
 * a slider off them cannot attack sq, whatever stands between. */
static inline uint64_t bb_diagonal_rays(int sq)
{
    return (tb_diagonal_through(sq) ^ tb_antidiagonal_through(sq));
}

static inline uint64_t bb_straight_rays(int sq)
{
    return (TB_FILE_A << (sq & 7)) ^ (TB_RANK_1 << (sq & 56));
}

/* Pieces of `by` attacking sq, with `occ` as the blockers.  Inline: every
 * probe validates its position with two of these, and the call's register
 * saves cost as much as the attacks of the short-range pieces. */
TB_ALWAYS_INLINE uint64_t tb_attackers(const tb_pos *pos, int sq, int by, uint64_t occ)
{
    uint64_t queens = pos->type[TB_QUEEN];
    uint64_t att = (bb_knight_attacks(sq) & pos->type[TB_KNIGHT]) |
                   (bb_king_attacks(sq) & pos->type[TB_KING]) |
                   (bb_pawn_attacks(sq, !by) & pos->type[TB_PAWN]);
    /* Sliders on a line through sq only: the blocked attacks cost more
     * than the test, and most positions have none there. */
    uint64_t diagonal = (pos->type[TB_BISHOP] | queens) & pos->color[by] &
                        bb_diagonal_rays(sq);
    uint64_t straight = (pos->type[TB_ROOK] | queens) & pos->color[by] &
                        bb_straight_rays(sq);
    if (diagonal)
        att |= bb_bishop_attacks(sq, occ) & diagonal;
    if (straight)
        att |= bb_rook_attacks(sq, occ) & straight;
    return att & pos->color[by];
}

/* The square of a side's king (its lowest, should there be several). */
static inline int tb_king_square(const tb_pos *pos, int color)
{
    return bb_lsb(pos->type[TB_KING] & pos->color[color]);
}

/* True when the side to move is in check. */
TB_INTERNAL int tb_in_check(const tb_pos *pos);

/* Fill *pos from the eight bitboards and the side to move, all else zero:
 * the one place a position is laid out, for the standard and the variant
 * constructors (each checks its own rules first). */
static inline void tb_pos_set(tb_pos *pos, uint64_t white, uint64_t black,
                              uint64_t kings, uint64_t queens, uint64_t rooks,
                              uint64_t bishops, uint64_t knights, uint64_t pawns,
                              int turn)
{
    memset(pos, 0, sizeof *pos);
    pos->color[TB_WHITE] = white;
    pos->color[TB_BLACK] = black;
    pos->type[TB_PAWN] = pawns;
    pos->type[TB_KNIGHT] = knights;
    pos->type[TB_BISHOP] = bishops;
    pos->type[TB_ROOK] = rooks;
    pos->type[TB_QUEEN] = queens;
    pos->type[TB_KING] = kings;
    pos->turn = turn ? TB_WHITE : TB_BLACK;
}

/* The checks every game's validity starts with: disjoint colours, every
 * occupied square in exactly one piece mask, no pawn on rank 1 or 8. */
static inline int tb_pieces_partition(uint64_t white, uint64_t black, uint64_t kings,
                                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                                      uint64_t knights, uint64_t pawns)
{
    /* Written out, one test at the end: a loop over the masks cost 65
     * instructions a position (callgrind). */
    uint64_t seen = kings | queens, twice = kings & queens;
    twice |= seen & rooks;
    seen |= rooks;
    twice |= seen & bishops;
    seen |= bishops;
    twice |= seen & knights;
    seen |= knights;
    twice |= seen & pawns;
    seen |= pawns;
    return !(twice | (white & black) | (seen ^ (white | black)) |
             (pawns & (TB_RANK_1 | TB_RANK_8)));
}

/* python-chess's notion of a valid en-passant square for pos, in every
 * game: on the mover's sixth rank and empty, an enemy pawn just past it,
 * and the square that pawn came from empty. */
TB_INTERNAL int tb_ep_square_valid(const tb_pos *pos, unsigned ep);

/*
 * The first half of tb_pos_from_bitboards: disjoint masks, every occupied
 * square in one piece mask, one king per side, no pawn on rank 1 or 8;
 * then pos is filled (no en passant).  Enough to index a position, not to
 * probe it.  RETURN: 1 if the pieces are well-formed, 0 if not.
 */
TB_INTERNAL int tb_pos_pieces_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                                             uint64_t kings, uint64_t queens,
                                             uint64_t rooks, uint64_t bishops,
                                             uint64_t knights, uint64_t pawns, int turn);

/*
 * Check the bitboards and build a position.  Applies the rules of
 * python-chess's Board.status() that can hold for a tablebase position:
 * disjoint masks, one king per side, no pawn on rank 1 or 8, a valid
 * en-passant square, the side not to move not in check, no impossible
 * check.  RETURN: 1 if valid (pos filled), 0 if not.
 */
TB_INTERNAL int tb_pos_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                          uint64_t kings, uint64_t queens, uint64_t rooks,
                          uint64_t bishops, uint64_t knights, uint64_t pawns,
                          unsigned ep, int turn);

/* The position after a (pseudo-)legal move made by tb_gen_legal
 * (tb_movegen.h). */
TB_INTERNAL void tb_do_move(const tb_pos *pos, tb_move m, tb_pos *child);

#endif /* PYFATHOM_TB_CHESS_H */
