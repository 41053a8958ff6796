/*
 * tbprobe.c - the Fathom-compatible facade: one default instance and
 * Fathom's result packing, all through the instance API of fathom.h.
 */
#include "tbprobe.h"

#include <string.h>

#include "fathom.h"

unsigned TB_LARGEST = 0;

/* The one piece of global state: the instance Fathom's API implies. */
static fathom_tb *default_tb = NULL;

#if defined(_WIN32)
#define PATH_SEPARATOR ';'
#else
#define PATH_SEPARATOR ':'
#endif

/* Stockfish's scoring constants, as Fathom exposes them. */
#define SCORE_PAWN 100
#define SCORE_MATE 32000
#define SCORE_MAX_MATE_PLY 255
#define RANK_MAX FATHOM_RANK_MAX /* fathom.h */

bool tb_init(const char *path)
{
    tb_free();
    if (fathom_open(&default_tb) != FATHOM_OK)
        return false;
    if (path && *path && strcmp(path, "<empty>") != 0)
        fathom_add_path_list(default_tb, path, PATH_SEPARATOR, NULL);
    TB_LARGEST = fathom_largest(default_tb);
    return true;
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
    fathom_result r = fathom_probe_wdl(default_tb, white, black, kings, queens,
                                       rooks, bishops, knights, pawns, ep,
                                       turn, NULL);
    if (FATHOM_RESULT_STATUS(r) != FATHOM_OK)
        return TB_RESULT_FAILED;
    return (unsigned)(FATHOM_RESULT_VALUE(r) + 2);
}

/* python-chess piece type of a promotion -> Fathom's TB_PROMOTES_*. */
static unsigned fathom_promotion(unsigned type)
{
    return type ? 6 - type : TB_PROMOTES_NONE;
}

static unsigned pack_move(const fathom_root_move *m, int wdl, int dtz)
{
    unsigned res = 0;
    res = TB_SET_WDL(res, (unsigned)(wdl + 2));
    res = TB_SET_FROM(res, m->from);
    res = TB_SET_TO(res, m->to);
    res = TB_SET_PROMOTES(res, fathom_promotion(m->promotion));
    res = TB_SET_EP(res, m->is_ep);
    res = TB_SET_DTZ(res, (unsigned)(dtz < 0 ? -dtz : dtz));
    return res;
}

unsigned tb_probe_root_impl(uint64_t white, uint64_t black, uint64_t kings,
                            uint64_t queens, uint64_t rooks, uint64_t bishops,
                            uint64_t knights, uint64_t pawns, unsigned rule50,
                            unsigned ep, bool turn, unsigned *results)
{
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count;
    int wdl, dtz, precise;
    if (fathom_probe_root(default_tb, white, black, kings, queens, rooks,
                          bishops, knights, pawns, ep, turn, rule50, moves,
                          &count, &wdl, &dtz, &precise, NULL) != FATHOM_OK)
        return TB_RESULT_FAILED;
    if (results) {
        unsigned n = count < TB_MAX_MOVES - 1 ? count : TB_MAX_MOVES - 1;
        for (unsigned i = 0; i < n; i++)
            results[i] = pack_move(&moves[i], moves[i].wdl, moves[i].dtz);
        results[n] = TB_RESULT_FAILED;
    }
    if (count == 0)
        return dtz < 0 ? TB_RESULT_CHECKMATE : TB_RESULT_STALEMATE;
    /* Moves come best first: the shortest win, a draw, or the longest
     * loss, which is Fathom's choice (among draws Fathom picks
     * pseudo-randomly; this takes the first). */
    return pack_move(&moves[0], wdl, dtz);
}

static TbMove tb_move_of(const fathom_root_move *m)
{
    return (TbMove)((fathom_promotion(m->promotion) << 12) | (m->from << 6) | m->to);
}

static int32_t score_of_rank(int rank, bool use_rule50)
{
    int bound = use_rule50 ? RANK_MAX - 100 : 1;
    if (rank >= bound)
        return SCORE_MATE - SCORE_MAX_MATE_PLY - 1;
    if (rank > 0) {
        int r = rank - (RANK_MAX - 200);
        return ((r > 3 ? r : 3) * SCORE_PAWN) / 200;
    }
    if (rank == 0)
        return 0;
    if (rank > -bound) {
        int r = rank + (RANK_MAX - 200);
        return ((r < -3 ? r : -3) * SCORE_PAWN) / 200;
    }
    return -SCORE_MATE + SCORE_MAX_MATE_PLY + 1;
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
    int wdl, dtz, precise;
    if (castling != 0 || !results)
        return 0;
    if (fathom_probe_root(default_tb, white, black, kings, queens, rooks,
                          bishops, knights, pawns, ep, turn, rule50, moves,
                          &count, &wdl, &dtz, &precise, NULL) != FATHOM_OK)
        return 0;
    results->size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < results->size; i++) {
        struct TbRootMove *out = &results->moves[i];
        int rank = moves[i].rank;
        /* A repetition since the last zeroing move spends the margin. */
        if (hasRepeated && rank == RANK_MAX)
            rank = RANK_MAX - (moves[i].dtz + (int)rule50);
        out->move = tb_move_of(&moves[i]);
        out->pv[0] = out->move;
        out->pvSize = 1;
        out->tbRank = rank;
        out->tbScore = score_of_rank(rank, useRule50);
    }
    return 1;
}

int tb_probe_root_wdl(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn,
                      bool useRule50, struct TbRootMoves *results)
{
    static const int32_t wdl_score[5] = {
        -SCORE_MATE + SCORE_MAX_MATE_PLY + 1, -2, 0, 2,
        SCORE_MATE - SCORE_MAX_MATE_PLY - 1};
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count;
    int wdl;
    (void)rule50;
    if (castling != 0 || !results)
        return 0;
    if (fathom_probe_root_wdl(default_tb, white, black, kings, queens, rooks,
                              bishops, knights, pawns, ep, turn, moves, &count,
                              &wdl, NULL) != FATHOM_OK)
        return 0;
    results->size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < results->size; i++) {
        struct TbRootMove *out = &results->moves[i];
        int w = moves[i].wdl;
        if (!useRule50)
            w = w > 0 ? 2 : w < 0 ? -2 : 0;
        out->move = tb_move_of(&moves[i]);
        out->pv[0] = out->move;
        out->pvSize = 1;
        out->tbRank = moves[i].rank;
        out->tbScore = wdl_score[w + 2];
    }
    return 1;
}
