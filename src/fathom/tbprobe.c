/*
 * tbprobe.c - the Fathom-compatible facade: one default instance of the
 * instance API (fathom.h), and the conversions between its answers and
 * Fathom's packings, rank scale and scores.
 */
#define TB_FACADE_BUILD 1
#include "tbprobe.h"

#include <string.h>

#include "fathom.h"
#include "tb_chess.h"
#include "tb_instance.h"
#include "tb_platform.h"

unsigned TB_LARGEST = 0;

/* The one piece of global state: the instance Fathom's API implies. */
static fathom_tb *default_tb = NULL;

/* Fathom's rank scale: a certain win ranks FATHOM_RANK_WIN; a win the
 * 50-move rule may spoil ranks lower the more plies it needs. */
#define FATHOM_RANK_WIN 1000
/* Ranks at or above it count as wins for tbScore when the 50-move rule
 * is used: dtz + clock <= 100. */
#define FATHOM_RANK_RULE50_BOUND 900
/* The centipawn ramp of cursed wins starts at this rank. */
#define FATHOM_RANK_RAMP 800

#define TB_SCORE_WIN (TB_VALUE_MATE - TB_MAX_MATE_PLY - 1)

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

/* Fathom generates an en-passant capture only when a pawn of the side to
 * move attacks the square, and otherwise never looks at it; engines rely on
 * that when they set the square after every double push.  The instance API
 * checks the square strictly (python-chess's rule), so the facade drops a
 * square nothing can capture to before passing it on. */
static unsigned usable_ep(unsigned ep, uint64_t white, uint64_t black,
                          uint64_t pawns, bool turn)
{
    if (ep == 0 || ep > 63) /* none, or not a square: the core fails that */
        return ep;
    uint64_t movers = turn ? white : black;
    /* A pawn of the mover attacks ep iff it stands where a pawn of the
     * other colour on ep would attack. */
    uint64_t capturers = bb_pawn_attacks((int)ep, turn ? TB_BLACK : TB_WHITE);
    return (capturers & pawns & movers) ? ep : 0;
}

unsigned tb_probe_wdl_impl(uint64_t white, uint64_t black, uint64_t kings,
                           uint64_t queens, uint64_t rooks, uint64_t bishops,
                           uint64_t knights, uint64_t pawns, unsigned ep,
                           bool turn)
{
    fathom_result r = fathom_probe_wdl(default_tb, white, black, kings, queens,
                                       rooks, bishops, knights, pawns,
                                       usable_ep(ep, white, black, pawns, turn),
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

/* The core's root probe with the facade's reading of ep. */
static int probe_root_moves(uint64_t white, uint64_t black, uint64_t kings,
                            uint64_t queens, uint64_t rooks, uint64_t bishops,
                            uint64_t knights, uint64_t pawns, unsigned rule50,
                            unsigned ep, bool turn, fathom_root_move *moves,
                            unsigned *count, int *wdl, int *dtz, int wdl_root)
{
    int precise;
    unsigned usable = usable_ep(ep, white, black, pawns, turn);
    fathom_board board = {white, black, kings, queens, rooks, bishops, knights, pawns,
                          (uint8_t)(usable > 63 ? 64 : usable), (uint8_t)turn, 0,
                          (uint16_t)(rule50 > 0xffff ? 0xffff : rule50), 1};
    return tb_probe_root_moves(default_tb, &board, wdl_root, moves, count, wdl, dtz,
                               &precise, NULL);
}

unsigned tb_probe_root_impl(uint64_t white, uint64_t black, uint64_t kings,
                            uint64_t queens, uint64_t rooks, uint64_t bishops,
                            uint64_t knights, uint64_t pawns, unsigned rule50,
                            unsigned ep, bool turn, unsigned *results)
{
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count;
    int wdl, dtz;
    if (probe_root_moves(white, black, kings, queens, rooks, bishops, knights,
                         pawns, rule50, ep, turn, moves, &count, &wdl,
                         &dtz, 0) != FATHOM_OK)
        return TB_RESULT_FAILED;
    if (results) {
        unsigned n = count < TB_MAX_MOVES - 1 ? count : TB_MAX_MOVES - 1;
        for (unsigned i = 0; i < n; i++)
            results[i] = pack_move(&moves[i], moves[i].wdl, moves[i].dtz);
        results[n] = TB_RESULT_FAILED;
    }
    if (count == 0)
        return dtz < 0 ? TB_RESULT_CHECKMATE : TB_RESULT_STALEMATE;
    /* The core lists moves best first (certain wins by DTZ, other wins,
     * draws, losses longest first), so the first keeps the value.  Among
     * draws Fathom picks pseudo-randomly; this takes the first. */
    return pack_move(&moves[0], wdl, dtz);
}

static TbMove tb_move_of(const fathom_root_move *m)
{
    return (TbMove)((fathom_promotion(m->promotion) << 12) | (m->from << 6) | m->to);
}

/* Fathom's tbRank of a root move from its DTZ d (plies from the root, sign
 * for the mover) and the clock.  A win is certain within the 50-move rule
 * when its last ply lands by ply 100 even if a rounded DTZ is one ply
 * short.  Fathom's 1000 - (d + c) goes below zero once d + c passes 1000
 * (possible with 7 pieces); clamping to 1 / -1 keeps such moves on the
 * right side of a draw (their order among themselves is lost). */
static int32_t fathom_rank(const fathom_root_move *m, unsigned rule50,
                           bool repeated)
{
    int d = m->dtz, c = (int)rule50;
    if (d > 0) {
        int certain = fathom_clock_result(d, m->dtz_precise, rule50) == FATHOM_CLOCK_WIN;
        if (certain && !repeated)
            return FATHOM_RANK_WIN;
        int r = FATHOM_RANK_WIN - (d + c);
        return r > 1 ? r : 1;
    }
    if (d < 0) {
        if (-d * 2 + c < 100)
            return -FATHOM_RANK_WIN;
        int r = -FATHOM_RANK_WIN + (-d + c);
        return r < -1 ? r : -1;
    }
    return 0;
}

/* Fathom's tbScore of a rank (parenthesised as intended: see tbprobe.h). */
static int32_t fathom_score(int32_t rank, bool use_rule50)
{
    int32_t bound = use_rule50 ? FATHOM_RANK_RULE50_BOUND : 1;
    if (rank >= bound)
        return TB_SCORE_WIN;
    if (rank > 0) {
        int32_t ramp = rank - FATHOM_RANK_RAMP;
        return ((ramp > 3 ? ramp : 3) * TB_VALUE_PAWN) / 200;
    }
    if (rank == 0)
        return TB_VALUE_DRAW;
    if (rank > -bound) {
        int32_t ramp = rank + FATHOM_RANK_RAMP;
        return ((ramp < -3 ? ramp : -3) * TB_VALUE_PAWN) / 200;
    }
    return -TB_SCORE_WIN;
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
    if (probe_root_moves(white, black, kings, queens, rooks, bishops, knights,
                         pawns, rule50, ep, turn, moves, &count, &wdl,
                         &dtz, 1) != FATHOM_OK)
        return 0;
    results->size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < results->size; i++) {
        int32_t rank = fathom_rank(&moves[i], rule50, hasRepeated);
        fill_root_move(&results->moves[i], &moves[i], rank,
                       fathom_score(rank, useRule50));
    }
    return 1;
}

int tb_probe_root_wdl(uint64_t white, uint64_t black, uint64_t kings,
                      uint64_t queens, uint64_t rooks, uint64_t bishops,
                      uint64_t knights, uint64_t pawns, unsigned rule50,
                      unsigned castling, unsigned ep, bool turn,
                      bool useRule50, struct TbRootMoves *results)
{
    /* Indexed by the mover's WDL + 2. */
    static const int32_t wdl_rank[5] = {-FATHOM_RANK_WIN, -899, 0, 899,
                                        FATHOM_RANK_WIN};
    static const int32_t wdl_score[5] = {-TB_SCORE_WIN, TB_VALUE_DRAW - 2,
                                         TB_VALUE_DRAW, TB_VALUE_DRAW + 2,
                                         TB_SCORE_WIN};
    fathom_root_move moves[FATHOM_MAX_MOVES];
    unsigned count;
    int wdl;
    (void)rule50;
    if (castling != 0 || !results)
        return 0;
    if (fathom_probe_root_wdl(default_tb, white, black, kings, queens, rooks,
                              bishops, knights, pawns,
                              usable_ep(ep, white, black, pawns, turn), turn,
                              moves, &count, &wdl, NULL) != FATHOM_OK)
        return 0;
    results->size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < results->size; i++) {
        int w = moves[i].wdl;
        if (!useRule50)
            w = w > 0 ? 2 : w < 0 ? -2 : 0;
        fill_root_move(&results->moves[i], &moves[i], wdl_rank[w + 2],
                       wdl_score[w + 2]);
    }
    return 1;
}
