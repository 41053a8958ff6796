/*
 * tb_facade_body.h - internal: the facades' answers in their packed
 * layout (TB_SET_*, TB_RESULT_*), compiled into each facade
 * (facades/tbprobe.c, facades/pyrrhic/tbprobe_pyrrhic.c) after its own
 * tbprobe.h, whose macros it reads: Fathom's and Pyrrhic's headers define
 * the same layout, and only the includer knows which of the two it is
 * (an include of "tbprobe.h" from here would find Fathom's for both).
 * What the facades share beyond the packing: tb_facade.h.
 */
#include "facades/tb_facade.h"

/* tb_probe_wdl's answer: TB_LOSS .. TB_WIN, or TB_RESULT_FAILED. */
static unsigned facade_packed_wdl(fathom_tb *tb, uint64_t white, uint64_t black,
                                  uint64_t kings, uint64_t queens, uint64_t rooks,
                                  uint64_t bishops, uint64_t knights, uint64_t pawns,
                                  unsigned ep, bool turn)
{
    int wdl;
    if (tb_facade_wdl(tb, white, black, kings, queens, rooks, bishops, knights, pawns, ep,
                      turn, &wdl) != FATHOM_OK)
        return TB_RESULT_FAILED;
    return (unsigned)(wdl + 2);
}

static unsigned facade_pack_move(const fathom_root_move *m, int wdl, int dtz)
{
    unsigned res = 0;
    res = TB_SET_WDL(res, (unsigned)(wdl + 2));
    res = TB_SET_FROM(res, m->from);
    res = TB_SET_TO(res, m->to);
    res = TB_SET_PROMOTES(res, tb_facade_promotion(m->promotion));
    res = TB_SET_EP(res, m->is_ep);
    res = TB_SET_DTZ(res, (unsigned)(dtz < 0 ? -dtz : dtz));
    return res;
}

/* tb_probe_root: the packed move the library's rule plays (tb_facade_root_pick),
 * with every move packed into results (capacity entries, the last used one
 * TB_RESULT_FAILED, in generator order) unless NULL. */
static unsigned facade_packed_root(fathom_tb *tb, uint64_t white, uint64_t black,
                                   uint64_t kings, uint64_t queens, uint64_t rooks,
                                   uint64_t bishops, uint64_t knights, uint64_t pawns,
                                   unsigned rule50, unsigned ep, bool turn, unsigned *results,
                                   unsigned capacity, tb_move_order order)
{
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count, chosen;
    int wdl, dtz;
    if (tb_facade_root_pick(tb, white, black, kings, queens, rooks, bishops, knights, pawns,
                            rule50, ep, turn, order, moves, &count, &chosen, &wdl,
                            &dtz) != FATHOM_OK)
        return TB_RESULT_FAILED;
    if (count == 0) {
        if (results && capacity > 0)
            results[0] = TB_RESULT_FAILED;
        return dtz < 0 ? TB_RESULT_CHECKMATE : TB_RESULT_STALEMATE;
    }
    if (results && capacity > 0) {
        unsigned n = count < capacity - 1 ? count : capacity - 1;
        for (unsigned i = 0; i < n; i++)
            results[i] = facade_pack_move(&moves[i], moves[i].wdl, moves[i].dtz);
        results[n] = TB_RESULT_FAILED;
    }
    return facade_pack_move(&moves[chosen], wdl, dtz);
}
