/*
 * tb_variant.h - internal: the chess variants whose Syzygy tables the core
 * reads (atomic; antichess as suicide and giveaway), in three parts:
 *
 *   tb_variant_format.c     what the files of each variant look like: name
 *                           suffixes, magic numbers, index constants;
 *   tb_variant_atomic.c,    the rules probing needs (move generation,
 *   tb_variant_antichess.c  making moves, when the game is over, validity);
 *   tb_variant_rules.c      the move generator (tb_movegen.h) in the order
 *                           both families share, and each variant's rules
 *                           table for the one search (tb_search.h),
 *                           python-chess 1.11.2's algorithm for variants
 *                           (chess.syzygy).
 */
#ifndef PYFATHOM_TB_VARIANT_H
#define PYFATHOM_TB_VARIANT_H

#include "fathom.h"
#include "rules/tb_chess.h"
#include "probe/tb_instance.h"
#include "platform/tb_internal.h"
#include "rules/tb_movegen.h"
#include "probe/tb_search.h"

/* ---- file format (tb_variant_format.c) ----------------------------------- */

/* Fill the variant's part of the per-instance constants (magic numbers,
 * adjacent-king and like-piece indexing).  RETURN: 1, or 0 for an unknown
 * variant. */
TB_INTERNAL int tb_variant_format_init(tb_consts *c, int variant);

/* Whether a file starting with `magic` is a table of the instance's variant
 * (python-chess also accepts the pawnless suffix's magic in a pawn table). */
TB_INTERNAL int tb_variant_magic_ok(const tb_consts *c, int is_dtz, int has_pawns,
                        uint32_t magic);

/*
 * What a file name suffix (".rtbw", ".atbz", ...) is for a variant:
 * 0 a WDL file, 1 a DTZ file, -1 neither.  Suffixes that only hold
 * pawnless tables are accepted only when `has_pawns` is 0.
 */
TB_INTERNAL int tb_variant_suffix_kind(int variant, const char *suffix, int has_pawns);

/* Whether the variant has one royal king per side (table names then start
 * with a K on each side). */
TB_INTERNAL int tb_variant_one_king(int variant);

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
