/*
 * tbprobe.h - Fathom-compatible API over one default instance.
 *
 * C code written against Fathom's tbprobe.h compiles against this header and
 * behaves the same: same names, constants, result packing and failure
 * conditions.  Differences: nothing is printed, a failed mapping is a
 * failed probe instead of exit(), and the probes are thread safe (including
 * tb_probe_root).  Everything here goes through fathom.h's instance API;
 * code that wants several tablebases at once should use that directly.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TB_MAX_MOVES (192 + 1)
#define TB_MAX_CAPTURES 64
#define TB_MAX_PLY 256
#define TB_CASTLING_K 0x1 /* White king-side. */
#define TB_CASTLING_Q 0x2 /* White queen-side. */
#define TB_CASTLING_k 0x4 /* Black king-side. */
#define TB_CASTLING_q 0x8 /* Black queen-side. */

#define TB_LOSS 0         /* LOSS */
#define TB_BLESSED_LOSS 1 /* LOSS but 50-move draw */
#define TB_DRAW 2         /* DRAW */
#define TB_CURSED_WIN 3   /* WIN but 50-move draw */
#define TB_WIN 4          /* WIN */

#define TB_PROMOTES_NONE 0
#define TB_PROMOTES_QUEEN 1
#define TB_PROMOTES_ROOK 2
#define TB_PROMOTES_BISHOP 3
#define TB_PROMOTES_KNIGHT 4

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

#define TB_RESULT_CHECKMATE TB_SET_WDL(0, TB_WIN)
#define TB_RESULT_STALEMATE TB_SET_WDL(0, TB_DRAW)
#define TB_RESULT_FAILED 0xFFFFFFFF

/* Pieces of the largest table found by tb_init (0 if none). */
extern unsigned TB_LARGEST;

/*
 * tb_init: (re)open the default instance on a path list separated by ':'
 * (';' on Windows).  Empty entries are ignored.
 * RETURN: true, also when no table was found (TB_LARGEST is then 0);
 * false only when memory runs out.
 * NOTES: not thread safe with respect to probes (as in Fathom).
 */
bool tb_init(const char *_path);

/* tb_free: release the default instance. */
void tb_free(void);

/* Internal: the probes behind the inline wrappers below. */
unsigned tb_probe_wdl_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                           uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                           uint64_t _knights, uint64_t _pawns, unsigned _ep,
                           bool _turn);
unsigned tb_probe_root_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                            uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                            uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                            unsigned _ep, bool _turn, unsigned *_results);

/*
 * tb_probe_wdl: WDL of the position for the side to move.
 * PARAMETERS: the eight bitboards, the 50-move clock, castling rights, the
 * en-passant square (0 if none), turn (true = white).
 * RETURN: TB_LOSS .. TB_WIN, or TB_RESULT_FAILED (castling rights, rule50
 * not zero, a missing or damaged table, more than 7 pieces, or an
 * inconsistent position).  As in Fathom, a position with more than
 * TB_LARGEST pieces is answered where a capture into the loaded tables
 * decides it (callers usually test TB_LARGEST first).
 * NOTES: for use during search; thread safe.
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
 * tb_probe_root: DTZ-based best move at the root.
 * RETURN: a TB_RESULT packing WDL (under the 50-move rule from rule50), the
 * move (from, to, promotes, ep) and |DTZ|; TB_RESULT_CHECKMATE,
 * TB_RESULT_STALEMATE, or TB_RESULT_FAILED.  If results != NULL it receives
 * one TB_RESULT per legal move (best first), terminated by
 * TB_RESULT_FAILED; it must hold TB_MAX_MOVES entries.
 * NOTES: for use at the root, not during search; thread safe.
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

typedef uint16_t TbMove;

#define TB_MOVE_FROM(move) (((move) >> 6) & 0x3F)
#define TB_MOVE_TO(move) ((move) & 0x3F)
#define TB_MOVE_PROMOTES(move) (((move) >> 12) & 0x7)

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
 * tb_probe_root_dtz: rank and score every root move with the DTZ tables
 * (Stockfish's scheme: tbRank, tbScore; pv holds the move itself).
 * RETURN: nonzero on success, 0 if a probe failed or castling != 0.
 */
int tb_probe_root_dtz(uint64_t _white, uint64_t _black, uint64_t _kings,
                      uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                      uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                      unsigned _castling, unsigned _ep, bool _turn,
                      bool hasRepeated, bool useRule50,
                      struct TbRootMoves *_results);

/*
 * tb_probe_root_wdl: rank and score root moves with the WDL tables only (a
 * fallback when DTZ tables are missing).
 * RETURN: nonzero on success, 0 if a probe failed or castling != 0.
 */
int tb_probe_root_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
                      uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                      uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                      unsigned _castling, unsigned _ep, bool _turn,
                      bool useRule50, struct TbRootMoves *_results);

#ifdef __cplusplus
}
#endif

#endif /* TBPROBE_H */
