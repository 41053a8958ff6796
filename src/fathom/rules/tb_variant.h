/*
 * tb_variant.h - internal: the chess variants whose Syzygy tables the core
 * reads (atomic; antichess as suicide and giveaway): their rules, in two
 * parts (what their files look like: format/tb_variant_format.h):
 *
 *   tb_variant_atomic.c,    the rules probing needs (move generation,
 *   tb_variant_antichess.c  making moves, when the game is over, validity);
 *   tb_variant_rules.c      the move generator (tb_movegen.h) in the order
 *                           both families share, and each variant's rules
 *                           table (tb_rules.h) for the one search,
 *                           python-chess 1.11.2's algorithm for variants
 *                           (chess.syzygy).
 */
#ifndef PYFATHOM_TB_VARIANT_H
#define PYFATHOM_TB_VARIANT_H

#include "fathom.h"
#include "rules/tb_chess.h"
#include "platform/tb_internal.h"
#include "rules/tb_movegen.h"
#include "rules/tb_rules.h"

/* ---- rules (tb_variant_atomic.c, tb_variant_antichess.c) ----------------- */

/* The game is over for the side to move: 2 won, 0 drawn, -2 lost; else
 * TB_VARIANT_GOING_ON.  (python-chess's is_variant_win/draw/loss.) */
#define TB_VARIANT_GOING_ON 3

TB_INTERNAL int tb_atomic_pos_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                                 uint64_t kings, uint64_t queens, uint64_t rooks,
                                 uint64_t bishops, uint64_t knights,
                                 uint64_t pawns, unsigned ep, int turn);
TB_INTERNAL int tb_atomic_gen_legal(const tb_pos *pos, unsigned which, tb_move *moves);
/* En-passant captures as python-chess's generate_legal_ep lists them for
 * atomic: only "not into check", so one that explodes the mover's own king
 * counts. */
TB_INTERNAL int tb_atomic_gen_ep(const tb_pos *pos, tb_move *moves);
TB_INTERNAL void tb_atomic_do_move(const tb_pos *pos, tb_move m, tb_pos *child);
TB_INTERNAL int tb_atomic_outcome(const tb_pos *pos);
TB_INTERNAL int tb_atomic_is_checkmate(const tb_pos *pos);

TB_INTERNAL int tb_antichess_pos_from_bitboards(tb_pos *pos, uint64_t white, uint64_t black,
                                    uint64_t kings, uint64_t queens,
                                    uint64_t rooks, uint64_t bishops,
                                    uint64_t knights, uint64_t pawns,
                                    unsigned ep, int turn);
/* Legal moves (captures are compulsory) whose from/to squares lie in the
 * masks; as python-chess, a capture anywhere rules out every quiet move
 * even when the masks exclude that capture. */
TB_INTERNAL int tb_antichess_gen_legal(const tb_pos *pos, uint64_t from_mask,
                           uint64_t to_mask, tb_move *moves);
/* python-chess's generate_legal_captures: captures onto enemy pieces and
 * en-passant captures. */
TB_INTERNAL int tb_antichess_gen_captures(const tb_pos *pos, tb_move *moves);
TB_INTERNAL int tb_antichess_outcome(const tb_pos *pos, int variant);

/* Shared by both families' validity rules: disjoint colours, every piece
 * in exactly one type mask, no pawn on a back rank, at most 8 pawns a side;
 * then pos is filled (ep 0).  RETURN: 1 if so. */
TB_INTERNAL int tb_variant_fill_pos(tb_pos *pos, uint64_t white, uint64_t black,
                        uint64_t kings, uint64_t queens, uint64_t rooks,
                        uint64_t bishops, uint64_t knights, uint64_t pawns,
                        int turn);

/* The moves of the side to move of the kinds in `which` (TB_GEN_*) that
 * keep allows (NULL: every pseudo-legal move), in python-chess's order,
 * shared by both families (king_promotions: antichess may promote to a
 * king).  RETURN: the count. */
TB_INTERNAL int tb_variant_gen(const tb_pos *pos, unsigned which, int king_promotions,
                               tb_move_keep keep, tb_move *moves);

/* ---- positions and rules tables (tb_variant_rules.c) -------------------- */

/* Build a position by the variant's validity rules.  RETURN: 1 if valid. */
TB_INTERNAL int tb_variant_pos_from_bitboards(int variant, tb_pos *pos, uint64_t white,
                                  uint64_t black, uint64_t kings,
                                  uint64_t queens, uint64_t rooks,
                                  uint64_t bishops, uint64_t knights,
                                  uint64_t pawns, unsigned ep, int turn);

/* The rules table of a variant (FATHOM_VARIANT_ATOMIC, _SUICIDE or
 * _GIVEAWAY). */
TB_INTERNAL const tb_rules *tb_variant_rules(int variant);

#endif /* PYFATHOM_TB_VARIANT_H */
