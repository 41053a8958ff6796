/*
 * tbprobe.c - the Fathom-compatible facade: one default instance of the
 * instance API (fathom.h), and the conversions between its answers and
 * Fathom's packings, rank scale and scores.
 */
#define TB_FACADE_BUILD 1
#include "tbprobe.h"

#include <string.h>

#include "fathom.h"
#include "facades/tb_facade.h"
#include "facades/tb_facade_body.h" /* after tbprobe.h: its packed layout */
#include "platform/tb_platform.h"

unsigned TB_LARGEST = 0;

/* The one piece of global state: the instance Fathom's API implies. */
static fathom_tb *default_tb = NULL;

/* Fathom's rank scale: a certain win ranks FATHOM_RANK_WIN. */
#define FATHOM_RANK_WIN 1000

static const tb_score_scale fathom_scale = {TB_VALUE_PAWN, TB_VALUE_MATE, TB_VALUE_DRAW,
                                            TB_MAX_MATE_PLY};

bool tb_init(const char *path)
{
    tb_free();
    if (fathom_open(&default_tb) != FATHOM_OK)
        return false;
    if (path && *path && strcmp(path, "<empty>") != 0)
        fathom_add_path_list(default_tb, path, TB_PATH_LIST_SEPARATOR, NULL);
    TB_LARGEST = fathom_largest(default_tb);
    return true;
}

bool tb_init_impl(const char *path)
{
    return tb_init(path);
}

void tb_free(void)
{
    fathom_close(default_tb);
    default_tb = NULL;
    TB_LARGEST = 0;
}

unsigned tb_probe_wdl_impl(uint64_t white, uint64_t black, uint64_t kings,
                           uint64_t queens, uint64_t rooks, uint64_t bishops,
                           uint64_t knights, uint64_t pawns, unsigned ep,
                           bool turn)
{
    return facade_packed_wdl(default_tb, white, black, kings, queens, rooks, bishops,
                             knights, pawns, ep, turn);
}

unsigned tb_probe_root_impl(uint64_t white, uint64_t black, uint64_t kings,
                            uint64_t queens, uint64_t rooks, uint64_t bishops,
                            uint64_t knights, uint64_t pawns, unsigned rule50,
                            unsigned ep, bool turn, unsigned *results)
{
    return facade_packed_root(default_tb, white, black, kings, queens, rooks,
                              bishops, knights, pawns, rule50, ep, turn, results,
                              TB_MAX_MOVES, TB_ORDER_FATHOM);
}

static TbMove tb_move_of(const fathom_root_move *m)
{
    return (TbMove)((tb_facade_promotion(m->promotion) << 12) | (m->from << 6) | m->to);
}

static void fill_root_move(struct TbRootMove *out, const fathom_root_move *m,
                           int32_t rank, int32_t score)
{
    out->move = tb_move_of(m);
    out->pv[0] = out->move;
    out->pvSize = 1;
    out->tbRank = rank;
    out->tbScore = score;
}

int tb_probe_root_dtz(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn,
                      bool hasRepeated, bool useRule50,
                      struct TbRootMoves *results)
{
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count;
    int wdl, dtz;
    if (castling != 0 || !results)
        return 0;
    /* As Fathom's, answered from the root's WDL where only its DTZ file
     * is missing (wdl_root). */
    if (tb_facade_root_moves(default_tb, white, black, kings, queens, rooks, bishops,
                             knights, pawns, rule50, ep, turn, 1, moves, &count,
                             &wdl, &dtz) != FATHOM_OK)
        return 0;
    const tb_facade_pieces pieces = {kings, queens, rooks, bishops, knights};
    tb_facade_generator_order(moves, count, &pieces, TB_ORDER_FATHOM);
    results->size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < results->size; i++) {
        int32_t rank = tb_facade_rank(&moves[i], rule50, hasRepeated, FATHOM_RANK_WIN);
        fill_root_move(&results->moves[i], &moves[i], rank,
                       tb_facade_score(rank, useRule50, &fathom_scale));
    }
    return 1;
}

int tb_probe_root_wdl(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn,
                      bool useRule50, struct TbRootMoves *results)
{
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count;
    (void)rule50;
    if (castling != 0 || !results)
        return 0;
    if (tb_facade_wdl_moves(default_tb, white, black, kings, queens, rooks, bishops,
                            knights, pawns, ep, turn, moves, &count) != FATHOM_OK)
        return 0;
    const tb_facade_pieces pieces = {kings, queens, rooks, bishops, knights};
    tb_facade_generator_order(moves, count, &pieces, TB_ORDER_FATHOM);
    results->size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < results->size; i++) {
        int w = moves[i].wdl;
        fill_root_move(&results->moves[i], &moves[i],
                       tb_facade_wdl_rank(w, useRule50, FATHOM_RANK_WIN),
                       tb_facade_wdl_score(w, useRule50, &fathom_scale));
    }
    return 1;
}
