/*
 * tbprobe.h - Fathom's programming interface, served by the pyfathom core.
 *
 * An engine written against Fathom (jdart1/Fathom's tbprobe.h) can replace
 * Fathom's tbprobe.h, tbprobe.c and tbconfig.h with this header, the
 * single-file tbprobe.c made by amalgamate.sh and tbconfig.h, and rebuild:
 * the names, numeric values, bit layouts and calling rules below are
 * Fathom's.  What differs, and why:
 *
 *  - Nothing is printed and nothing exits: a table that cannot be mapped or
 *    is damaged makes the probe return its failure value.
 *  - Every probe, tb_probe_root included, may run on many threads at once.
 *  - tbRank (tb_probe_root_dtz) is on Fathom's scale, +-1000, but a win or
 *    loss never crosses zero: Fathom computes 1000 - (dtz + clock) for wins
 *    that the 50-move rule may spoil, which turns negative (a "loss") once a
 *    7-piece DTZ plus the clock passes 1000; here such wins rank 1 and such
 *    losses -1.
 *  - tbScore is the formula Fathom documents, computed with parentheses.
 *    Fathom's max/min macros lack them, so with its default pawn of 100 a
 *    cursed win scores 3 instead of 1, and up to 499 instead of 49, and a
 *    blessed loss the same with the sign turned.
 *  - Root moves come in Fathom's order (its move generator's: king,
 *    queens, rooks, bishops, knights, pawns, each by square, then by
 *    destination; promotions Q N R B), in tb_probe_root's results and in
 *    tb_probe_root_dtz / tb_probe_root_wdl, and tb_probe_root breaks ties
 *    as Fathom does: the first of the quickest wins or of the slowest
 *    losses, or the drawing move Fathom's material key picks.  What counts
 *    as best differs in one case: a win certain inside the 50-move rule
 *    although the table stores its DTZ rounded beats a rounded one that may
 *    be one ply too slow, where Fathom may pick the slow one.
 *  - A root move whose rounded DTZ d is exactly the plies the clock leaves
 *    (the hidden ply decides between a win and a draw) is settled by a
 *    bounded search below it: its DTZ becomes exact, d or d + 1 plies, and
 *    its WDL, rank and place follow, for the winner (only moves that win in
 *    time rank 1000) and for the loser (moves that reach the 50-move draw
 *    come first).  On the edge the root's WDL is its best move's.  The
 *    search is bounded by a budget of work (3,072 table reads and nodes
 *    searched, counted: deterministic; fathom.h), so that a root probe
 *    costs at most a few ms, about 5 plain root probes of the costliest
 *    5-piece roots; past it a move keeps its rounded value.
 *  - An en-passant square no pawn of the side to move can capture to is
 *    ignored, as Fathom ignores it (engines that set the square after every
 *    double push); an impossible one (wrong rank, no pawn that just moved
 *    there, a number above 63) fails the probe.
 *
 * Everything goes through one default instance of the instance API in
 * fathom.h, which programs wanting several tablebases at once can call
 * directly.  Squares: 0 = a1 .. 63 = h8; bitboard bit n is square n.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include "tbconfig.h"

/* Fathom's score scale, for an engine's tbconfig.h that predates it (Fathom
 * added these in 2019; Ethereal's and xiphos's copies lack them). */
#ifndef TB_VALUE_PAWN
#define TB_VALUE_PAWN 100
#endif
#ifndef TB_VALUE_MATE
#define TB_VALUE_MATE 32000
#endif
#ifndef TB_VALUE_INFINITE
#define TB_VALUE_INFINITE 32767
#endif
#ifndef TB_VALUE_DRAW
#define TB_VALUE_DRAW 0
#endif
#ifndef TB_MAX_MATE_PLY
#define TB_MAX_MATE_PLY 255
#endif

/* The core's own files (TB_FACADE_BUILD) always use the C99 headers; the
 * switches only spare an engine's files from including them. */
#if defined(TB_NO_STDINT) && !defined(TB_FACADE_BUILD)
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
#else
#include <stdint.h>
#endif

#if defined(TB_NO_STDBOOL) && !defined(TB_FACADE_BUILD)
#ifndef __cplusplus
typedef uint8_t bool;
#define true 1
#define false 0
#endif
#else
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes: entries of a tb_probe_root results array (the most legal moves a
 * chess position has, 218, rounded up, plus the terminator); captures;
 * moves of a TbRootMove's pv. */
#define TB_MAX_MOVES (192 + 1)
#define TB_MAX_CAPTURES 64
#define TB_MAX_PLY 256

/* Castling-right bits.  Tables hold no position with castling rights, so
 * any nonzero value makes every probe fail. */
#define TB_CASTLING_K 0x1
#define TB_CASTLING_Q 0x2
#define TB_CASTLING_k 0x4
#define TB_CASTLING_q 0x8

/* Game-theoretic values for the side to move.  The middle three differ from
 * the outer two only by the 50-move rule: a blessed loss is lost with
 * perfect play but the defender reaches 50 moves without a capture or pawn
 * move first; a cursed win is its mirror image. */
#define TB_LOSS 0
#define TB_BLESSED_LOSS 1
#define TB_DRAW 2
#define TB_CURSED_WIN 3
#define TB_WIN 4

/* Piece a pawn promotes to, in a packed result or a TbMove. */
#define TB_PROMOTES_NONE 0
#define TB_PROMOTES_QUEEN 1
#define TB_PROMOTES_ROOK 2
#define TB_PROMOTES_BISHOP 3
#define TB_PROMOTES_KNIGHT 4

/*
 * A tb_probe_root answer packs one move and its outcome in 32 bits:
 *   bits  0..3   WDL (TB_LOSS .. TB_WIN) under the 50-move rule
 *   bits  4..9   destination square      bits 10..15  origin square
 *   bits 16..18  TB_PROMOTES_*           bit  19      en-passant capture
 *   bits 20..31  |DTZ| in plies
 */
#define TB_RESULT_WDL_MASK 0x0000000F
#define TB_RESULT_TO_MASK 0x000003F0
#define TB_RESULT_FROM_MASK 0x0000FC00
#define TB_RESULT_PROMOTES_MASK 0x00070000
#define TB_RESULT_EP_MASK 0x00080000
#define TB_RESULT_DTZ_MASK 0xFFF00000
#define TB_RESULT_WDL_SHIFT 0
#define TB_RESULT_TO_SHIFT 4
#define TB_RESULT_FROM_SHIFT 10
#define TB_RESULT_PROMOTES_SHIFT 16
#define TB_RESULT_EP_SHIFT 19
#define TB_RESULT_DTZ_SHIFT 20

#define TB_GET_WDL(_res) (((_res) & TB_RESULT_WDL_MASK) >> TB_RESULT_WDL_SHIFT)
#define TB_GET_TO(_res) (((_res) & TB_RESULT_TO_MASK) >> TB_RESULT_TO_SHIFT)
#define TB_GET_FROM(_res) (((_res) & TB_RESULT_FROM_MASK) >> TB_RESULT_FROM_SHIFT)
#define TB_GET_PROMOTES(_res) \
    (((_res) & TB_RESULT_PROMOTES_MASK) >> TB_RESULT_PROMOTES_SHIFT)
#define TB_GET_EP(_res) (((_res) & TB_RESULT_EP_MASK) >> TB_RESULT_EP_SHIFT)
#define TB_GET_DTZ(_res) (((_res) & TB_RESULT_DTZ_MASK) >> TB_RESULT_DTZ_SHIFT)

#define TB_SET_WDL(_res, _wdl) \
    (((_res) & ~TB_RESULT_WDL_MASK) | (((_wdl) << TB_RESULT_WDL_SHIFT) & TB_RESULT_WDL_MASK))
#define TB_SET_TO(_res, _to) \
    (((_res) & ~TB_RESULT_TO_MASK) | (((_to) << TB_RESULT_TO_SHIFT) & TB_RESULT_TO_MASK))
#define TB_SET_FROM(_res, _from) \
    (((_res) & ~TB_RESULT_FROM_MASK) | (((_from) << TB_RESULT_FROM_SHIFT) & TB_RESULT_FROM_MASK))
#define TB_SET_PROMOTES(_res, _promotes) \
    (((_res) & ~TB_RESULT_PROMOTES_MASK) | \
     (((_promotes) << TB_RESULT_PROMOTES_SHIFT) & TB_RESULT_PROMOTES_MASK))
#define TB_SET_EP(_res, _ep) \
    (((_res) & ~TB_RESULT_EP_MASK) | (((_ep) << TB_RESULT_EP_SHIFT) & TB_RESULT_EP_MASK))
#define TB_SET_DTZ(_res, _dtz) \
    (((_res) & ~TB_RESULT_DTZ_MASK) | (((_dtz) << TB_RESULT_DTZ_SHIFT) & TB_RESULT_DTZ_MASK))

/* tb_probe_root's answers without a move: the side to move is mated (the
 * packing of TB_WIN, as in Fathom), stalemated, or nothing could be said. */
#define TB_RESULT_CHECKMATE TB_SET_WDL(0, TB_WIN)
#define TB_RESULT_STALEMATE TB_SET_WDL(0, TB_DRAW)
#define TB_RESULT_FAILED 0xFFFFFFFF

/* Piece count of the biggest WDL table tb_init found; 0 before tb_init or
 * when it found none.  Probe only positions with at most this many pieces. */
extern unsigned TB_LARGEST;

/*
 * tb_init: (re)load the default tablebase from a list of directories joined
 * by ':' (';' on Windows); empty entries and unreadable directories are
 * skipped, and "<empty>" or "" loads nothing.  Files are only listed here;
 * each is mapped the first time a probe needs it.
 * Returns false only when memory runs out; finding no table is success with
 * TB_LARGEST == 0.  Must not run while another thread probes.
 */
bool tb_init(const char *_path);

/* tb_free: drop the default tablebase (unmap everything, TB_LARGEST = 0).
 * Same threading rule as tb_init. */
void tb_free(void);

/* tb_init_impl: tb_init under the name the inline tb_init of Fathom's
 * headers before 2019 calls, so those headers link against libfathom.a. */
bool tb_init_impl(const char *_path);

/* Called by the two inline functions below; engines call those. */
unsigned tb_probe_wdl_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                           uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                           uint64_t _knights, uint64_t _pawns, unsigned _ep,
                           bool _turn);
unsigned tb_probe_root_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                            uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                            uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                            unsigned _ep, bool _turn, unsigned *_results);

/*
 * tb_probe_wdl: the search-time probe.  The position is given as the two
 * colour bitboards, the six piece-type bitboards, the halfmove clock, the
 * castling bits, the en-passant target square (0 = none) and the side to
 * move (true = white).
 *
 * The answer is exact only right after a capture or pawn move, so any clock
 * other than 0 (and any castling right) returns TB_RESULT_FAILED without a
 * probe.  Otherwise: TB_LOSS .. TB_WIN for the side to move, or
 * TB_RESULT_FAILED when a table is missing or damaged, the position has
 * more than 7 pieces, or the bitboards do not describe a legal position.
 * A position with more pieces than TB_LARGEST is still answered where a
 * capture into the loaded tables decides it (Fathom does the same; engines
 * usually test TB_LARGEST before probing).
 */
static inline unsigned tb_probe_wdl(uint64_t _white, uint64_t _black,
                                    uint64_t _kings, uint64_t _queens,
                                    uint64_t _rooks, uint64_t _bishops,
                                    uint64_t _knights, uint64_t _pawns,
                                    unsigned _rule50, unsigned _castling,
                                    unsigned _ep, bool _turn)
{
    if (_castling != 0 || _rule50 != 0)
        return TB_RESULT_FAILED;
    return tb_probe_wdl_impl(_white, _black, _kings, _queens, _rooks, _bishops,
                             _knights, _pawns, _ep, _turn);
}

/*
 * tb_probe_root: the move to play at the root, from the DTZ tables, with
 * the same position arguments (here the clock counts).  The answer packs
 * the position's WDL under the 50-move rule, the chosen move and the
 * position's |DTZ|.  The move keeps the position's value: the quickest
 * certain win, else the quickest win, a draw, or the slowest loss; among
 * equal moves Fathom's choice (above).  Mate
 * and stalemate give TB_RESULT_CHECKMATE / TB_RESULT_STALEMATE, a failed
 * probe TB_RESULT_FAILED.
 *
 * _results, if not NULL, must hold TB_MAX_MOVES entries; it receives one
 * packed answer per legal move (that move's WDL and |DTZ| as seen from the
 * root, one ply longer than the table's where the move was settled on the
 * 50-move edge), in Fathom's order (above), and TB_RESULT_FAILED after the
 * last one.
 *
 * Costs a DTZ probe per legal move: meant for the root, not the search.
 */
static inline unsigned tb_probe_root(uint64_t _white, uint64_t _black,
                                     uint64_t _kings, uint64_t _queens,
                                     uint64_t _rooks, uint64_t _bishops,
                                     uint64_t _knights, uint64_t _pawns,
                                     unsigned _rule50, unsigned _castling,
                                     unsigned _ep, bool _turn,
                                     unsigned *_results)
{
    if (_castling != 0)
        return TB_RESULT_FAILED;
    return tb_probe_root_impl(_white, _black, _kings, _queens, _rooks, _bishops,
                              _knights, _pawns, _rule50, _ep, _turn, _results);
}

/* A move as 16 bits: destination in bits 0..5, origin in 6..11,
 * TB_PROMOTES_* in 12..14. */
typedef uint16_t TbMove;

#define TB_MOVE_FROM(move) (((move) >> 6) & 0x3F)
#define TB_MOVE_TO(move) ((move) & 0x3F)
#define TB_MOVE_PROMOTES(move) (((move) >> 12) & 0x7)

/* One root move as Stockfish-style searches use it: tbRank orders the moves
 * (higher is better, equal ranks are equally good), tbScore is the score
 * to show, on the engine's TB_VALUE_* scale.  pv holds the move itself
 * (pvSize 1); the prober does not extend it. */
struct TbRootMove {
    TbMove move;
    TbMove pv[TB_MAX_PLY];
    unsigned pvSize;
    int32_t tbScore, tbRank;
};

struct TbRootMoves {
    unsigned size;
    struct TbRootMove moves[TB_MAX_MOVES];
};

/*
 * tb_probe_root_dtz: rank and score every legal move with the DTZ tables.
 * Ranks, with d the move's DTZ in plies from the root (settled on the
 * 50-move edge: see the top of this file) and c the clock:
 *   1000          a win that is certain within the 50-move rule (and,
 *                 with hasRepeated, no repetition has spent the margin);
 *   1000 - (d+c)  any other win, at least 1;
 *   0             a draw;
 *  -1000 + (-d+c) a loss the 50-move rule may still save, at most -1;
 *  -1000          any other loss.
 * tbScore: TB_VALUE_MATE - TB_MAX_MATE_PLY - 1 for ranks from the bound up
 * (900 with useRule50, else 1), (max(3, rank - 800) * TB_VALUE_PAWN) / 200
 * for lower winning ranks, TB_VALUE_DRAW for 0, and the mirror images for
 * losses.  Moves come in Fathom's order (above).  Returns nonzero when every
 * move was probed, 0 otherwise (castling rights included).
 */
int tb_probe_root_dtz(uint64_t _white, uint64_t _black, uint64_t _kings,
                      uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                      uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                      unsigned _castling, unsigned _ep, bool _turn,
                      bool hasRepeated, bool useRule50,
                      struct TbRootMoves *_results);

/*
 * tb_probe_root_wdl: the same with the WDL tables alone, for when DTZ
 * tables are missing.  Ranks -1000, -899, 0, 899, 1000 and scores
 * -(TB_VALUE_MATE - TB_MAX_MATE_PLY - 1), TB_VALUE_DRAW - 2, TB_VALUE_DRAW,
 * TB_VALUE_DRAW + 2, TB_VALUE_MATE - TB_MAX_MATE_PLY - 1 for loss, blessed
 * loss, draw, cursed win, win; without useRule50 cursed wins count as wins
 * and blessed losses as losses.  The clock is not used.  Returns as
 * tb_probe_root_dtz.
 */
int tb_probe_root_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
                      uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                      uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                      unsigned _castling, unsigned _ep, bool _turn,
                      bool useRule50, struct TbRootMoves *_results);

/*
 * Bitboard helpers Fathom exports for its command-line tool and for
 * engines without their own: bit count, index of the lowest set bit
 * (undefined for 0), the board without its lowest bit, and the squares a
 * piece on _square attacks (sliders stop at the first occupied square of
 * _occ, which they include; _color true = a white pawn, capturing towards
 * rank 8; en passant not included).  TB_NO_HELPER_API leaves them out.
 */
#ifndef TB_NO_HELPER_API
unsigned tb_pop_count(uint64_t _bb);
unsigned tb_lsb(uint64_t _bb);
uint64_t tb_pop_lsb(uint64_t _bb);
uint64_t tb_king_attacks(unsigned _square);
uint64_t tb_queen_attacks(unsigned _square, uint64_t _occ);
uint64_t tb_rook_attacks(unsigned _square, uint64_t _occ);
uint64_t tb_bishop_attacks(unsigned _square, uint64_t _occ);
uint64_t tb_knight_attacks(unsigned _square);
uint64_t tb_pawn_attacks(unsigned _square, bool _color);
#endif

#ifdef __cplusplus
}
#endif

#endif /* TBPROBE_H */
