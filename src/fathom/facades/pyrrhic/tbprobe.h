/*
 * tbprobe.h - Pyrrhic's programming interface, served by the pyfathom core.
 *
 * An engine that vendors Pyrrhic (AndyGrant/Pyrrhic: tbprobe.h, tbprobe.c,
 * tbchess.c, api.h, stdendian.h and its own tbconfig.h, usually in a
 * pyrrhic/ folder) replaces tbprobe.h and tbprobe.c with this header and
 * the single file `make -C src/fathom pyrrhic` writes, keeps its tbconfig.h
 * and rebuilds: names, numeric values, bit layouts, argument lists and the
 * int type of TB_LARGEST are Pyrrhic's.  The other Pyrrhic files may stay;
 * nothing includes them any more.
 *
 * Two generations of Pyrrhic's root-move records exist, and the engine's
 * tbconfig.h tells which one it was written for:
 *  - Pyrrhic from July 2024 on (Weiss): struct TbRootMove is {move, tbRank},
 *    tb_probe_root_dtz takes hasRepeated only, ranks are on Stockfish's
 *    scale (a certain win ranks 0x40000);
 *  - earlier Pyrrhic (Ethereal's and Berserk's copies), recognised by
 *    PYRRHIC_VALUE_MATE in tbconfig.h: the record also holds pv, pvSize
 *    and tbScore (on the PYRRHIC_VALUE_* scale), tb_probe_root_dtz also
 *    takes useRule50, ranks are on Fathom's scale (1000).
 *
 * tbconfig.h's hooks (PYRRHIC_POPCOUNT, PYRRHIC_LSB, PYRRHIC_POPLSB and the
 * PYRRHIC_*_ATTACKS macros) are the engine's to define as before; the core
 * has its own move generator and never calls them, so the single file is
 * compiled without the engine's headers.
 *
 * What differs from Pyrrhic, and why (the Fathom facade's tbprobe.h says
 * the same at more length):
 *  - Nothing is printed and nothing exits; a damaged or unreadable table
 *    makes the probe fail.  Every probe may run on many threads at once.
 *  - A root move whose rounded DTZ is exactly the plies the clock leaves is
 *    settled by a bounded search: its DTZ, WDL and rank become exact.
 *  - An en-passant square no pawn of the side to move can capture to is
 *    ignored, as Pyrrhic ignores it; an impossible one fails the probe.
 *  - TB_NUM_DTM stays 0: Syzygy has no DTM tables.
 *  - tb_set_loader (Pyrrhic's table loader of May 2026) is not provided
 *    yet: an engine calling it fails to link rather than load nothing.
 *
 * As in Pyrrhic, tb_probe_root's results array and the records of
 * tb_probe_root_dtz / tb_probe_root_wdl list the legal moves in the order
 * of Pyrrhic's move generator (king; rook-direction moves of rooks and
 * queens; diagonal moves of bishops and queens; knights; pawns: en passant,
 * push, double push, captures; each piece by square, then by destination;
 * promotions Q R B N), and tb_probe_root plays the first of the quickest
 * wins or of the slowest losses, or the drawing move Pyrrhic's material key
 * picks.  Only where a win stored rounded may be one ply too slow does a
 * certain win go first.
 *
 * Squares: 0 = a1 .. 63 = h8; bitboard bit n is square n.  turn: true (or
 * PYRRHIC_WHITE) when white is to move.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The core's own file is built without the engine's headers. */
#ifndef PYRRHIC_FACADE_BUILD
#include "tbconfig.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PYRRHIC_BLACK 0
#define PYRRHIC_WHITE 1

/* A PyrrhicMove: destination in bits 0..5, origin in 6..11, a flag in
 * 12..15 (a promotion piece, or en passant). */
typedef uint16_t PyrrhicMove;

#define PYRRHIC_FLAG_NONE 0x0
#define PYRRHIC_FLAG_QPROMO 0x1
#define PYRRHIC_FLAG_RPROMO 0x2
#define PYRRHIC_FLAG_BPROMO 0x3
#define PYRRHIC_FLAG_NPROMO 0x4
#define PYRRHIC_FLAG_ENPASS 0x8

#define PYRRHIC_SHIFT_TO 0
#define PYRRHIC_SHIFT_FROM 6
#define PYRRHIC_SHIFT_FLAGS 12

#define PYRRHIC_MASK_TO 0x3F
#define PYRRHIC_MASK_FROM 0x3F
#define PYRRHIC_MASK_FLAGS 0x0F
#define PYRRHIC_MASK_PROMO_FLAGS 0x07

#define PYRRHIC_MOVE_FLAGS(x) (((x) >> PYRRHIC_SHIFT_FLAGS) & PYRRHIC_MASK_FLAGS)
#define PYRRHIC_MOVE_TO(x) (((x) >> PYRRHIC_SHIFT_TO) & PYRRHIC_MASK_TO)
#define PYRRHIC_MOVE_FROM(x) (((x) >> PYRRHIC_SHIFT_FROM) & PYRRHIC_MASK_FROM)
#define PYRRHIC_MOVE_IS_ENPASS(x) (PYRRHIC_MOVE_FLAGS((x)) == PYRRHIC_FLAG_ENPASS)
#define PYRRHIC_MOVE_IS_QPROMO(x) (PYRRHIC_MOVE_FLAGS((x)) == PYRRHIC_FLAG_QPROMO)
#define PYRRHIC_MOVE_IS_RPROMO(x) (PYRRHIC_MOVE_FLAGS((x)) == PYRRHIC_FLAG_RPROMO)
#define PYRRHIC_MOVE_IS_BPROMO(x) (PYRRHIC_MOVE_FLAGS((x)) == PYRRHIC_FLAG_BPROMO)
#define PYRRHIC_MOVE_IS_NPROMO(x) (PYRRHIC_MOVE_FLAGS((x)) == PYRRHIC_FLAG_NPROMO)

/* Sizes: entries of a results array or a TbRootMoves; captures; plies. */
#define TB_MAX_MOVES 256
#define TB_MAX_CAPTURES 64
#define TB_MAX_PLY 256

/* Values for the side to move; the middle three differ from the outer two
 * only by the 50-move rule. */
#define TB_LOSS 0
#define TB_BLESSED_LOSS 1
#define TB_DRAW 2
#define TB_CURSED_WIN 3
#define TB_WIN 4

/*
 * A tb_probe_root answer packs one move and its outcome in 32 bits:
 *   bits  0..3   WDL (TB_LOSS .. TB_WIN) under the 50-move rule
 *   bits  4..9   destination square      bits 10..15  origin square
 *   bits 16..18  promotion (PYRRHIC_FLAG_*PROMO)  bit 19  en passant
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

/* The same fields under Pyrrhic's newer names. */
#define TB_RESULT_WDL(_res) TB_GET_WDL(_res)
#define TB_RESULT_DTZ(_res) TB_GET_DTZ(_res)
#define TB_RESULT_TO(_res) TB_GET_TO(_res)
#define TB_RESULT_FROM(_res) TB_GET_FROM(_res)
#define TB_RESULT_IS_ENPASS(_res) TB_GET_EP(_res)
#define TB_RESULT_IS_QPROMO(_res) (TB_GET_PROMOTES((_res)) == PYRRHIC_FLAG_QPROMO)
#define TB_RESULT_IS_RPROMO(_res) (TB_GET_PROMOTES((_res)) == PYRRHIC_FLAG_RPROMO)
#define TB_RESULT_IS_BPROMO(_res) (TB_GET_PROMOTES((_res)) == PYRRHIC_FLAG_BPROMO)
#define TB_RESULT_IS_NPROMO(_res) (TB_GET_PROMOTES((_res)) == PYRRHIC_FLAG_NPROMO)

/* tb_probe_root's answers without a move: the side to move is mated (the
 * packing of TB_WIN, as in Pyrrhic), stalemated, or nothing could be said;
 * tb_probe_wdl fails with the last. */
#define TB_RESULT_CHECKMATE TB_SET_WDL(0, TB_WIN)
#define TB_RESULT_STALEMATE TB_SET_WDL(0, TB_DRAW)
#define TB_RESULT_FAILED 0xFFFFFFFF

/* Set by tb_init: the piece count of the biggest WDL table found (0: none),
 * and how many WDL and DTZ files were found.  Syzygy has no DTM files, so
 * TB_NUM_DTM is 0. */
extern int TB_LARGEST;
extern int TB_NUM_WDL;
extern int TB_NUM_DTM;
extern int TB_NUM_DTZ;

/*
 * tb_init: (re)load the tablebase from a list of directories joined by ':'
 * (';' on Windows); "", "<empty>" and "<embedded>" load nothing, a NULL
 * path too.  Files are only listed here; each is mapped the first time a
 * probe needs it.  Returns false only when memory runs out.  Must not run
 * while another thread probes; tb_free likewise.
 */
bool tb_init(const char *_path);
void tb_free(void);

/*
 * tb_probe_wdl: TB_LOSS .. TB_WIN for the side to move, or TB_RESULT_FAILED
 * (a table missing or damaged, more than 7 pieces, not a legal position).
 * As in Pyrrhic there is no clock or castling argument: the caller probes
 * only right after a capture or pawn move and without castling rights.
 */
unsigned tb_probe_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
                      uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                      uint64_t _knights, uint64_t _pawns, unsigned _ep, bool _turn);

/*
 * tb_probe_root: the move to play, from the DTZ tables, with the clock.  The
 * answer packs the position's WDL under the 50-move rule, the move, and the
 * position's |DTZ|; mate and stalemate give TB_RESULT_CHECKMATE and
 * TB_RESULT_STALEMATE.  _results, if not NULL, must hold TB_MAX_MOVES
 * entries: one packed answer per legal move, in Pyrrhic's order (above),
 * then TB_RESULT_FAILED.
 */
unsigned tb_probe_root(uint64_t _white, uint64_t _black, uint64_t _kings,
                       uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                       uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                       unsigned _ep, bool _turn, unsigned *_results);

/*
 * tb_pyrrhic_root_impl: what tb_probe_root_dtz (_by_wdl 0) and
 * tb_probe_root_wdl (_by_wdl 1) below call: each legal move in Pyrrhic's
 * order,
 * its rank on the scale where a certain win ranks _win_rank, and with
 * _values = {pawn, mate, draw, max mate ply} also its tbScore (Fathom's
 * formula, for the 1000 scale; else _scores is not written).  Arrays of TB_MAX_MOVES.  Returns 1
 * when every move was probed, else 0.
 */
int tb_pyrrhic_root_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                         uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                         uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                         unsigned _ep, bool _turn, int _by_wdl, bool _hasRepeated,
                         bool _useRule50, int32_t _win_rank, const int32_t *_values,
                         unsigned *_size, PyrrhicMove *_moves, int32_t *_ranks,
                         int32_t *_scores);

/*
 * Ranks (higher is better; equal ranks are equally good), with W the scale
 * of the record's generation (above), d a move's DTZ in plies from the root
 * and c the clock:
 *   W          a win certain within the 50-move rule (and, with
 *              hasRepeated, no repetition has spent the margin);
 *   W - (d+c)  any other win;       0  a draw;
 *  -W + (-d+c) a loss the 50-move rule may still save;  -W  any other loss.
 * tb_probe_root_wdl ranks -W, -W + 101, 0, W - 101, W for loss .. win;
 * without useRule50 cursed wins rank as wins, blessed losses as losses.
 */
#ifdef PYRRHIC_VALUE_MATE

/* Pyrrhic before July 2024. */
#define TB_PYRRHIC_WIN_RANK 1000

struct TbRootMove {
    PyrrhicMove move;
    PyrrhicMove pv[TB_MAX_PLY];
    unsigned pvSize;
    int32_t tbScore, tbRank;
};

#else

/* Pyrrhic from July 2024 on. */
#define TB_PYRRHIC_WIN_RANK 0x40000

struct TbRootMove {
    PyrrhicMove move;
    int32_t tbRank;
};

#endif

struct TbRootMoves {
    unsigned size;
    struct TbRootMove moves[TB_MAX_MOVES];
};

/* Copies tb_pyrrhic_root_impl's arrays into the engine's record layout. */
static inline int tb_pyrrhic_root_moves(uint64_t _white, uint64_t _black,
                                        uint64_t _kings, uint64_t _queens,
                                        uint64_t _rooks, uint64_t _bishops,
                                        uint64_t _knights, uint64_t _pawns,
                                        unsigned _rule50, unsigned _ep, bool _turn,
                                        int _by_wdl, bool _hasRepeated,
                                        bool _useRule50, struct TbRootMoves *_results)
{
    PyrrhicMove moves[TB_MAX_MOVES];
    int32_t ranks[TB_MAX_MOVES], scores[TB_MAX_MOVES];
    unsigned size = 0;
#ifdef PYRRHIC_VALUE_MATE
    const int32_t values[4] = {PYRRHIC_VALUE_PAWN, PYRRHIC_VALUE_MATE,
                               PYRRHIC_VALUE_DRAW, PYRRHIC_MAX_MATE_PLY};
#else
    const int32_t *values = NULL;
#endif
    if (!_results)
        return 0;
    if (!tb_pyrrhic_root_impl(_white, _black, _kings, _queens, _rooks, _bishops,
                              _knights, _pawns, _rule50, _ep, _turn, _by_wdl,
                              _hasRepeated, _useRule50, TB_PYRRHIC_WIN_RANK, values,
                              &size, moves, ranks, scores))
        return 0;
    _results->size = size;
    for (unsigned i = 0; i < size; i++) {
        _results->moves[i].move = moves[i];
        _results->moves[i].tbRank = ranks[i];
#ifdef PYRRHIC_VALUE_MATE
        _results->moves[i].pv[0] = moves[i];
        _results->moves[i].pvSize = 1;
        _results->moves[i].tbScore = scores[i];
#endif
    }
    (void)scores;
    return 1;
}

/*
 * tb_probe_root_dtz: rank every legal move with the DTZ tables (ranks
 * above; moves in Pyrrhic's order).  Answers from the WDL tables where only the
 * root's own DTZ file is missing.  Returns 1 when every move was probed,
 * else 0.
 */
#ifdef PYRRHIC_VALUE_MATE
static inline int tb_probe_root_dtz(uint64_t _white, uint64_t _black, uint64_t _kings,
                                    uint64_t _queens, uint64_t _rooks,
                                    uint64_t _bishops, uint64_t _knights,
                                    uint64_t _pawns, unsigned _rule50, unsigned _ep,
                                    bool _turn, bool _hasRepeated, bool _useRule50,
                                    struct TbRootMoves *_results)
{
    return tb_pyrrhic_root_moves(_white, _black, _kings, _queens, _rooks, _bishops,
                                 _knights, _pawns, _rule50, _ep, _turn, 0,
                                 _hasRepeated, _useRule50, _results);
}
#else
static inline int tb_probe_root_dtz(uint64_t _white, uint64_t _black, uint64_t _kings,
                                    uint64_t _queens, uint64_t _rooks,
                                    uint64_t _bishops, uint64_t _knights,
                                    uint64_t _pawns, unsigned _rule50, unsigned _ep,
                                    bool _turn, bool _hasRepeated,
                                    struct TbRootMoves *_results)
{
    return tb_pyrrhic_root_moves(_white, _black, _kings, _queens, _rooks, _bishops,
                                 _knights, _pawns, _rule50, _ep, _turn, 0,
                                 _hasRepeated, true, _results);
}
#endif

/* tb_probe_root_wdl: the same from the WDL tables alone (for missing DTZ
 * tables); the clock is not used. */
static inline int tb_probe_root_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
                                    uint64_t _queens, uint64_t _rooks,
                                    uint64_t _bishops, uint64_t _knights,
                                    uint64_t _pawns, unsigned _rule50, unsigned _ep,
                                    bool _turn, bool _useRule50,
                                    struct TbRootMoves *_results)
{
    return tb_pyrrhic_root_moves(_white, _black, _kings, _queens, _rooks, _bishops,
                                 _knights, _pawns, _rule50, _ep, _turn, 1, false,
                                 _useRule50, _results);
}

#ifdef __cplusplus
}
#endif

#endif /* TBPROBE_H */
