/*
 * tb_search.h - internal: the one probing search (WDL with capture
 * resolution and en passant, DTZ with the one-ply search) and the rules it
 * runs over.  Semantics follow python-chess 1.11.2's chess.syzygy, the
 * project's oracle, for standard chess and for its variants.
 *
 * The search is written once, in tb_search_body.h, over the operations of
 * a tb_rules table (move generation, making a move, the result of a game
 * that is over, which en-passant captures count, compulsory captures).
 * tb_search.c compiles it twice: for standard chess with its rules as
 * inline calls (the hot path: no indirect call, nothing the compiler
 * cannot fold), and for the variants through their rules tables.  The root
 * probes (tb_probe.c) take the same tables.
 */
#ifndef PYFATHOM_TB_SEARCH_H
#define PYFATHOM_TB_SEARCH_H

#include "rules/tb_chess.h"
#include "rules/tb_rules.h"
#include "probe/tb_instance.h"
#include "platform/tb_internal.h"
#include "format/tb_table.h"

/* A probe in progress: the instance, where a failure came from, the
 * decoding memo (a batch thread's, tb_batch_sorted.c, or the root probe's
 * 50-move-edge search's; NULL for single probes), the table reads made so
 * far (with the nodes it searches, the unit of work that search is
 * budgeted in: deterministic, unlike time), and whose precise flag it
 * reports (as_stored: lichess's, see fathom_probe_dtz_as_stored and
 * search_offer; 0: pyfathom's). */
typedef struct probe {
    fathom_tb *tb;
    tb_failure failure;
    tb_block_memo *memo;
    unsigned long reads;
    int as_stored;
} probe;

/*
 * The best DTZ a one-ply search has met so far, with its precise flag and,
 * for lichess's flag, where its move comes in shakmaty-syzygy's move list.
 */
typedef struct search_best {
    int dtz, precise;
    unsigned order;
} search_best;

/*
 * Where a quiet piece move comes in shakmaty-syzygy's list of legal moves
 * (lila-tablebase's prober): outside check knights, bishops, rooks and
 * queens, then the king; in check the king first; for each piece by
 * origin, then target, lowest square first.  1 and up: 0 stands for the
 * zeroing moves, which its loss search counts before any move.
 */
static inline unsigned search_shakmaty_order(const tb_move *m, int in_check)
{
    unsigned group = m->piece == TB_KING ? (in_check ? 0u : 5u) : (unsigned)m->piece - 1u;
    return 1u + (group << 12 | (unsigned)m->from << 6 | (unsigned)m->to);
}

/*
 * Offer a move's DTZ (lower is better: the quicker win, the longer loss)
 * to a search.  Among moves tied for the best, pyfathom's flag is exact
 * when the tied children together pin the value down (win: one exact
 * child is enough; loss: a rounded child could last one ply longer, so
 * every one must be exact); lichess's (lichess_flag) is the flag of the
 * first tied move in shakmaty-syzygy's order, whatever the others say.
 */
static inline void search_offer(int lichess_flag, search_best *best, int dtz, int precise,
                                unsigned order, int win)
{
    if (dtz < best->dtz) {
        best->dtz = dtz;
        best->precise = precise;
        best->order = order;
    } else if (dtz == best->dtz) {
        if (lichess_flag) {
            if (order < best->order) {
                best->precise = precise;
                best->order = order;
            }
        } else if (win) {
            best->precise |= precise;
        } else {
            best->precise &= precise;
        }
    }
}


/* The rules of the instance's game (standard chess or its variant). */
TB_INTERNAL const tb_rules *tb_rules_of(const fathom_tb *tb);

/* The instance plays standard chess, whose search and position checks the
 * probes call by name, not through its rules table: the hot path makes no
 * indirect call.  The one place that asks; everything else a game does
 * differently is in its tb_rules. */
static inline int tb_rules_are_inline(const fathom_tb *tb)
{
    return tb->consts.variant == FATHOM_VARIANT_STANDARD;
}

/* How a WDL search reached its value (python-chess's "success"): where
 * the best line starts with a capture (or a threat of one), the DTZ table
 * holds no meaningful value for the position. */
enum { FROM_TABLE = 1, FROM_CAPTURE = 2, FROM_THREAT = 3 };

/* DTZ of a position whose zeroing move comes next, by its WDL (the one
 * WDL-to-DTZ map: a win zeroes in 1 ply, a cursed win counts past 100). */
static inline int dtz_before_zeroing(int wdl)
{
    switch (wdl) {
    case 2: return 1;
    case 1: return 101;
    case -1: return -101;
    case -2: return -1;
    default: return 0;
    }
}

/* The searches, standard chess.  floor (tb_chess_probe_dtz_no_ep): the
 * losing side's search may stop as soon as the DTZ is below floor (a
 * longer loss; INT_MIN: never), leaving in *dtz a value below floor but
 * not the DTZ (fathom_best_move, the edge search). */
TB_INTERNAL int tb_chess_probe_wdl(probe *pr, const tb_pos *pos, int *wdl);
TB_INTERNAL int tb_chess_probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise);
TB_INTERNAL int tb_chess_probe_dtz_no_ep(probe *pr, const tb_pos *pos, int floor,
                                         int *dtz, int *precise);
/*
 * tb_chess_probe_wdl of a position without en passant, split for the
 * batch (tb_batch_sorted.c) at its one table read: the captures resolved
 * and the table found and mapped, the read itself left to the caller.
 * *table NULL: *wdl is the answer; else the answer is the larger of *wdl
 * (the best capture's value, or -2) and the table's value for the
 * position (whose material key is *key), which is what the search reads
 * last.  RETURN: the status tb_chess_probe_wdl would return up to there.
 */
TB_INTERNAL int tb_chess_wdl_split(probe *pr, const tb_pos *pos, int *wdl,
                                   const tb_table **table, tb_key *key);
/* The same search for an instance opened for a variant. */
TB_INTERNAL int tb_variant_search_wdl(probe *pr, const tb_pos *pos, int *wdl);
TB_INTERNAL int tb_variant_search_dtz(probe *pr, const tb_pos *pos, int *dtz,
                                      int *precise);

#endif /* PYFATHOM_TB_SEARCH_H */
