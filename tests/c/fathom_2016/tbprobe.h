/*
 * The shape of Fathom's tbprobe.h from 2016 to 2018, reconstructed for the
 * test from its published interface (names, values, signatures): tb_init
 * is an inline wrapper around the exported tb_init_impl, tb_probe_wdl and
 * tb_probe_root inline wrappers around the *_impl functions, and there is
 * no tb_free or tb_probe_root_dtz yet.  An engine compiled against this
 * header must link against libfathom.a unchanged.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include "tbconfig.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern bool tb_init_impl(const char *_path);
extern unsigned tb_probe_wdl_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                                  uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                                  uint64_t _knights, uint64_t _pawns, unsigned _ep,
                                  bool _turn);
extern unsigned tb_probe_root_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
                                   uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                                   uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                                   unsigned _ep, bool _turn, unsigned *_results);

#define TB_MAX_MOVES (192 + 1)

#define TB_LOSS 0
#define TB_BLESSED_LOSS 1
#define TB_DRAW 2
#define TB_CURSED_WIN 3
#define TB_WIN 4

#define TB_RESULT_WDL_MASK 0x0000000F
#define TB_RESULT_TO_MASK 0x000003F0
#define TB_RESULT_FROM_MASK 0x0000FC00
#define TB_RESULT_PROMOTES_MASK 0x00070000
#define TB_RESULT_DTZ_MASK 0xFFF00000
#define TB_GET_WDL(r) ((r) & TB_RESULT_WDL_MASK)
#define TB_GET_TO(r) (((r) & TB_RESULT_TO_MASK) >> 4)
#define TB_GET_FROM(r) (((r) & TB_RESULT_FROM_MASK) >> 10)
#define TB_GET_PROMOTES(r) (((r) & TB_RESULT_PROMOTES_MASK) >> 16)
#define TB_GET_DTZ(r) (((r) & TB_RESULT_DTZ_MASK) >> 20)
#define TB_RESULT_CHECKMATE 0x4
#define TB_RESULT_STALEMATE 0x2
#define TB_RESULT_FAILED 0xFFFFFFFF

extern unsigned TB_LARGEST;

static inline bool tb_init(const char *_path)
{
    return tb_init_impl(_path);
}

static inline unsigned tb_probe_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
                                    uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                                    uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                                    unsigned _castling, unsigned _ep, bool _turn)
{
    if (_castling != 0 || _rule50 != 0)
        return TB_RESULT_FAILED;
    return tb_probe_wdl_impl(_white, _black, _kings, _queens, _rooks, _bishops, _knights,
                             _pawns, _ep, _turn);
}

static inline unsigned tb_probe_root(uint64_t _white, uint64_t _black, uint64_t _kings,
                                     uint64_t _queens, uint64_t _rooks, uint64_t _bishops,
                                     uint64_t _knights, uint64_t _pawns, unsigned _rule50,
                                     unsigned _castling, unsigned _ep, bool _turn,
                                     unsigned *_results)
{
    if (_castling != 0)
        return TB_RESULT_FAILED;
    return tb_probe_root_impl(_white, _black, _kings, _queens, _rooks, _bishops, _knights,
                              _pawns, _rule50, _ep, _turn, _results);
}

#ifdef __cplusplus
}
#endif

#endif
