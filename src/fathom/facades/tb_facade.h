/*
 * tb_facade.h - what the two engine-API facades share: tbprobe.c (Fathom's
 * API) and pyrrhic/tbprobe_pyrrhic.c (Pyrrhic's).  Both pack answers in the
 * same 32-bit layout and rank root moves by the same rules, on their own
 * scales; only one facade is built into a given program.
 */
#ifndef PYFATHOM_TB_FACADE_H
#define PYFATHOM_TB_FACADE_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/tb_internal.h"

#include "fathom.h"

/* The engine's scoring constants: a pawn, a mate, a draw, and the longest
 * mate the engine can show (tbScore is mate - max_mate_ply - 1 for a win). */
typedef struct tb_score_scale {
    int32_t pawn, mate, draw, max_mate_ply;
} tb_score_scale;

/* Fathom and Pyrrhic generate an en-passant capture only when a pawn of the
 * side to move attacks the square, and otherwise never look at it; engines
 * rely on that when they set the square after every double push.  The core
 * checks the square strictly (python-chess's rule), so the facades drop a
 * square nothing can capture to before passing it on. */
TB_INTERNAL unsigned tb_facade_ep(unsigned ep, uint64_t white, uint64_t black,
                                  uint64_t pawns, bool turn);

/* tb_probe_wdl's probe: RETURN FATHOM_OK with *wdl -2..2, or the failure. */
TB_INTERNAL int tb_facade_wdl(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t kings, uint64_t queens, uint64_t rooks,
                              uint64_t bishops, uint64_t knights, uint64_t pawns,
                              unsigned ep, bool turn, int *wdl);

/* The core's root probe with the facades' reading of ep; wdl_root answers a
 * root whose own DTZ file is missing from its WDL (tb_probe_root_dtz). */
TB_INTERNAL int tb_facade_root_moves(fathom_tb *tb, uint64_t white, uint64_t black,
                                     uint64_t kings, uint64_t queens, uint64_t rooks,
                                     uint64_t bishops, uint64_t knights, uint64_t pawns,
                                     unsigned rule50, unsigned ep, bool turn,
                                     int wdl_root, fathom_root_move *moves,
                                     unsigned *count, int *wdl, int *dtz);

/* The same from the WDL tables alone (fathom_probe_root_wdl). */
TB_INTERNAL int tb_facade_wdl_moves(fathom_tb *tb, uint64_t white, uint64_t black,
                                    uint64_t kings, uint64_t queens, uint64_t rooks,
                                    uint64_t bishops, uint64_t knights, uint64_t pawns,
                                    unsigned ep, bool turn, fathom_root_move *moves,
                                    unsigned *count);

/* The order in which each library's move generator lists the moves of a
 * position; their root probes fill arrays in it and break ties by it. */
typedef enum tb_move_order { TB_ORDER_FATHOM, TB_ORDER_PYRRHIC } tb_move_order;

/* The position's pieces by type, for the generator orders. */
typedef struct tb_facade_pieces {
    uint64_t kings, queens, rooks, bishops, knights;
} tb_facade_pieces;

/* Sorts root moves (as the core returns them, best first) into the
 * generator order of `order` (a stable insertion sort: at most 256). */
TB_INTERNAL void tb_facade_generator_order(fathom_root_move *moves, unsigned count,
                                           const tb_facade_pieces *pieces,
                                           tb_move_order order);

/* tb_probe_root's moves: the root moves (FATHOM_MAX_MOVES room) in the
 * generator's order, *count of them (0: mate or stalemate, *dtz < 0 for
 * mate), and *chosen the one Fathom's and Pyrrhic's rule plays: the first
 * as good as the best, or the draw-pick key's among drawing moves.
 * RETURN: FATHOM_OK, or the probe's failure. */
TB_INTERNAL int tb_facade_root_pick(fathom_tb *tb, uint64_t white, uint64_t black,
                                    uint64_t kings, uint64_t queens, uint64_t rooks,
                                    uint64_t bishops, uint64_t knights, uint64_t pawns,
                                    unsigned rule50, unsigned ep, bool turn,
                                    tb_move_order order, fathom_root_move *moves,
                                    unsigned *count, unsigned *chosen, int *wdl, int *dtz);

/* TB_PROMOTES_* (Fathom) = PYRRHIC_FLAG_*PROMO of a python-chess piece type. */
TB_INTERNAL unsigned tb_facade_promotion(unsigned type);

/* tbRank of a root move by DTZ (tb_probe_root_dtz), on a scale where a
 * certain win ranks win (Fathom 1000, Pyrrhic and Stockfish 2^18). */
TB_INTERNAL int32_t tb_facade_rank(const fathom_root_move *m, unsigned rule50,
                                   bool repeated, int32_t win);

/* tbRank of a root move by WDL alone (tb_probe_root_wdl). */
TB_INTERNAL int32_t tb_facade_wdl_rank(int wdl, bool use_rule50, int32_t win);

/* tbScore of a tb_facade_rank on Fathom's 1000 scale, and of a WDL. */
TB_INTERNAL int32_t tb_facade_score(int32_t rank, bool use_rule50,
                                    const tb_score_scale *scale);
TB_INTERNAL int32_t tb_facade_wdl_score(int wdl, bool use_rule50,
                                        const tb_score_scale *scale);

#endif /* PYFATHOM_TB_FACADE_H */
