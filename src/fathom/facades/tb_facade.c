/*
 * tb_facade.c - what the Fathom and Pyrrhic facades share (tb_facade.h),
 * without their packed layout: en-passant reading, the root move their
 * rule plays, ranks and scores.  The packing: tb_facade_body.h, compiled
 * by each facade against its own tbprobe.h.
 */
#include "facades/tb_facade.h"

#include "rules/tb_chess.h"
#include "probe/tb_instance.h"

/* Ranks of WDL-only root moves sit this far below a certain win: Fathom's
 * 899 of 1000 for a cursed win, Stockfish's MAX_DTZ - 101. */
#define WDL_RANK_CURSED_GAP 101
/* tbScore (Fathom's 1000 scale): ranks from this bound up count as wins
 * when the 50-move rule is used (dtz + clock <= 100). */
#define RANK_RULE50_BOUND 900
/* The centipawn ramp of cursed wins starts at this rank. */
#define RANK_RAMP 800

unsigned tb_facade_ep(unsigned ep, uint64_t white, uint64_t black, uint64_t pawns,
                      bool turn)
{
    if (ep == 0 || ep > 63) /* none, or not a square: the core fails that */
        return ep;
    uint64_t movers = turn ? white : black;
    /* A pawn of the mover attacks ep iff it stands where a pawn of the
     * other colour on ep would attack. */
    uint64_t capturers = bb_pawn_attacks((int)ep, turn ? TB_BLACK : TB_WHITE);
    return (capturers & pawns & movers) ? ep : 0;
}

/* The core's board for a facade position: its en-passant square only where
 * a capture is possible (tb_facade_ep), no castling rights (the facade
 * refuses them before it probes), the clock at most what the board keeps. */
static fathom_board facade_board(uint64_t white, uint64_t black, uint64_t kings,
                                 uint64_t queens, uint64_t rooks, uint64_t bishops,
                                 uint64_t knights, uint64_t pawns, unsigned rule50,
                                 unsigned ep, bool turn)
{
    unsigned usable = tb_facade_ep(ep, white, black, pawns, turn);
    fathom_board board = {white, black, kings, queens, rooks, bishops, knights, pawns,
                          (uint8_t)(usable > 63 ? 64 : usable), /* not a square: refused */
                          (uint8_t)turn, 0,
                          (uint16_t)(rule50 > 0xffff ? 0xffff : rule50), 1};
    return board;
}

int tb_facade_wdl(fathom_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                  uint64_t queens, uint64_t rooks, uint64_t bishops, uint64_t knights,
                  uint64_t pawns, unsigned ep, bool turn, int *wdl)
{
    fathom_board board = facade_board(white, black, kings, queens, rooks, bishops,
                                      knights, pawns, 0, ep, turn);
    fathom_result r = fathom_probe_wdl(tb, &board, NULL);
    *wdl = FATHOM_RESULT_VALUE(r);
    return FATHOM_RESULT_STATUS(r);
}

int tb_facade_root_moves(fathom_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                         uint64_t queens, uint64_t rooks, uint64_t bishops,
                         uint64_t knights, uint64_t pawns, unsigned rule50, unsigned ep,
                         bool turn, int wdl_root, fathom_root_move *moves,
                         unsigned *count, int *wdl, int *dtz)
{
    int precise;
    fathom_board board = facade_board(white, black, kings, queens, rooks, bishops,
                                      knights, pawns, rule50, ep, turn);
    return tb_probe_root_moves(tb, &board, wdl_root, moves, count, wdl, dtz, &precise,
                               NULL);
}

int tb_facade_wdl_moves(fathom_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                        uint64_t queens, uint64_t rooks, uint64_t bishops,
                        uint64_t knights, uint64_t pawns, unsigned ep, bool turn,
                        fathom_root_move *moves, unsigned *count)
{
    int wdl;
    fathom_board board = facade_board(white, black, kings, queens, rooks, bishops,
                                      knights, pawns, 0, ep, turn);
    return fathom_probe_root_wdl(tb, &board, moves, count, &wdl, NULL);
}

unsigned tb_facade_promotion(unsigned type)
{
    return type ? 6 - type : 0;
}

/* Rank of a promotion piece (python-chess type: N 2, B 3, R 4, Q 5; 0
 * none) in the order each generator adds the four promotions: Fathom
 * Q N R B, Pyrrhic Q R B N. */
static unsigned promotion_rank(unsigned type, tb_move_order order)
{
    static const unsigned fathom[6] = {0, 0, 1, 3, 2, 0};
    static const unsigned pyrrhic[6] = {0, 0, 3, 2, 1, 0};
    if (type > 5)
        return 0;
    return order == TB_ORDER_FATHOM ? fathom[type] : pyrrhic[type];
}

/*
 * Where a move comes in the generator's list: ordered by the group of the
 * moving piece, its square, then (pawns) the kind of move, the destination
 * and the promotion piece.
 *   Fathom:  king, queens, rooks, bishops, knights, pawns; a pawn's
 *            en-passant capture first, then its pushes and captures by
 *            destination.
 *   Pyrrhic: king, rook-direction moves of rooks and queens, diagonal ones
 *            of bishops and queens (each by square), knights, pawns; a
 *            pawn's en-passant capture, single push, double push, then
 *            captures by destination.
 */
static uint32_t generator_key(const fathom_root_move *m, const tb_facade_pieces *p,
                              tb_move_order order)
{
    enum { KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN };
    uint64_t from = 1ULL << m->from;
    int piece = (p->kings & from) ? KING : (p->queens & from) ? QUEEN
              : (p->rooks & from) ? ROOK : (p->bishops & from) ? BISHOP
              : (p->knights & from) ? KNIGHT : PAWN;
    uint32_t group = (uint32_t)piece, kind = 0;
    if (order == TB_ORDER_PYRRHIC) {
        int straight = m->from % 8 == m->to % 8 || m->from / 8 == m->to / 8;
        static const uint32_t pyrrhic_group[6] = {0, 1, 1, 2, 3, 4};
        group = piece == QUEEN ? (straight ? 1 : 2) : pyrrhic_group[piece];
    }
    if (piece == PAWN) {
        int step = m->to > m->from ? m->to - m->from : m->from - m->to;
        if (m->is_ep)
            kind = 0;
        else if (order == TB_ORDER_FATHOM)
            kind = 1;
        else
            kind = step == 8 ? 1 : step == 16 ? 2 : 3;
    }
    return group << 20 | (uint32_t)m->from << 12 | kind << 9 | (uint32_t)m->to << 3 |
           promotion_rank(m->promotion, order);
}

void tb_facade_generator_order(fathom_root_move *moves, unsigned count,
                               const tb_facade_pieces *pieces, tb_move_order order)
{
    for (unsigned i = 1; i < count; i++) {
        fathom_root_move m = moves[i];
        uint32_t key = generator_key(&m, pieces, order);
        unsigned j = i;
        for (; j > 0 && generator_key(&moves[j - 1], pieces, order) > key; j--)
            moves[j] = moves[j - 1];
        moves[j] = m;
    }
}

/* Fathom's and Pyrrhic's material key of the position, taken from the side
 * to move's point of view (their calc_key(pos, !turn)): the "random"
 * number that picks among drawing moves. */
static uint64_t draw_pick_key(uint64_t white, uint64_t black, const tb_facade_pieces *p,
                              uint64_t pawns, bool turn)
{
    /* Fathom's PRIME_* constants, white's then black's, Q R B N P. */
    static const uint64_t primes[2][5] = {
        {11811845319353239651ULL, 10979190538029446137ULL, 12311744257139811149ULL,
         15202887380319082783ULL, 17008651141875982339ULL},
        {15484752644942473553ULL, 18264461213049635989ULL, 15394650811035483107ULL,
         13469005675588064321ULL, 11695583624105689831ULL}};
    uint64_t first = turn ? white : black, second = turn ? black : white;
    const uint64_t types[5] = {p->queens, p->rooks, p->bishops, p->knights, pawns};
    uint64_t key = 0;
    for (int t = 0; t < 5; t++)
        key += (uint64_t)tb_popcount(first & types[t]) * primes[0][t] +
               (uint64_t)tb_popcount(second & types[t]) * primes[1][t];
    return key;
}

/* The index of the move Fathom's rule plays, moves in generator order and
 * best the core's best move: the first move as good as the best (same WDL
 * and DTZ: the quickest win, the slowest loss), or among drawing moves the
 * one the draw-pick key chooses. */
static unsigned fathom_choice(const fathom_root_move *moves, unsigned count,
                              const fathom_root_move *best, uint64_t draw_key)
{
    if (best->dtz == 0) {
        unsigned draws = 0;
        for (unsigned i = 0; i < count; i++)
            draws += moves[i].dtz == 0;
        uint64_t pick = draws ? draw_key % draws : 0;
        for (unsigned i = 0; i < count; i++)
            if (moves[i].dtz == 0 && pick-- == 0)
                return i;
    }
    for (unsigned i = 0; i < count; i++)
        if (moves[i].wdl == best->wdl && moves[i].dtz == best->dtz)
            return i;
    return 0;
}

int tb_facade_root_pick(fathom_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                        uint64_t queens, uint64_t rooks, uint64_t bishops, uint64_t knights,
                        uint64_t pawns, unsigned rule50, unsigned ep, bool turn,
                        tb_move_order order, fathom_root_move *moves, unsigned *count,
                        unsigned *chosen, int *wdl, int *dtz)
{
    *chosen = 0;
    int status = tb_facade_root_moves(tb, white, black, kings, queens, rooks, bishops,
                                      knights, pawns, rule50, ep, turn, 0, moves, count, wdl,
                                      dtz);
    if (status != FATHOM_OK || *count == 0)
        return status;
    const tb_facade_pieces pieces = {kings, queens, rooks, bishops, knights};
    /* The core lists moves best first; the libraries list them in their
     * generators' order and take the first of the best. */
    fathom_root_move best = moves[0];
    tb_facade_generator_order(moves, *count, &pieces, order);
    *chosen = fathom_choice(moves, *count, &best,
                            draw_pick_key(white, black, &pieces, pawns, turn));
    return FATHOM_OK;
}

/* A win is certain within the 50-move rule when its last ply lands by ply
 * 100 even if a rounded DTZ is one ply short.  Fathom's win - (d + c) goes
 * below zero once d + c passes 1000 (possible with 7 pieces); clamping to
 * 1 / -1 keeps such moves on the right side of a draw (their order among
 * themselves is lost). */
int32_t tb_facade_rank(const fathom_root_move *m, unsigned rule50, bool repeated,
                       int32_t win)
{
    int32_t d = m->dtz, c = (int32_t)rule50;
    if (d > 0) {
        int certain = fathom_clock_result(d, m->dtz_precise, rule50) == FATHOM_CLOCK_WIN;
        if (certain && !repeated)
            return win;
        int32_t r = win - (d + c);
        return r > 1 ? r : 1;
    }
    if (d < 0) {
        if (-d * 2 + c < 100)
            return -win;
        int32_t r = -win + (-d + c);
        return r < -1 ? r : -1;
    }
    return 0;
}

/* Without the 50-move rule a cursed win is a win, a blessed loss a loss. */
static int wdl_ignoring_rule50(int wdl, bool use_rule50)
{
    if (use_rule50)
        return wdl;
    return wdl > 0 ? 2 : wdl < 0 ? -2 : 0;
}

int32_t tb_facade_wdl_rank(int wdl, bool use_rule50, int32_t win)
{
    const int32_t ranks[5] = {-win, -win + WDL_RANK_CURSED_GAP, 0,
                              win - WDL_RANK_CURSED_GAP, win};
    return ranks[wdl_ignoring_rule50(wdl, use_rule50) + 2];
}

/* Fathom's documented formula, parenthesised as intended (see tbprobe.h). */
int32_t tb_facade_score(int32_t rank, bool use_rule50, const tb_score_scale *scale)
{
    int32_t win = scale->mate - scale->max_mate_ply - 1;
    int32_t bound = use_rule50 ? RANK_RULE50_BOUND : 1;
    if (rank >= bound)
        return win;
    if (rank > 0) {
        int32_t ramp = rank - RANK_RAMP;
        return ((ramp > 3 ? ramp : 3) * scale->pawn) / 200;
    }
    if (rank == 0)
        return scale->draw;
    if (rank > -bound) {
        int32_t ramp = rank + RANK_RAMP;
        return ((ramp < -3 ? ramp : -3) * scale->pawn) / 200;
    }
    return -win;
}

int32_t tb_facade_wdl_score(int wdl, bool use_rule50, const tb_score_scale *scale)
{
    int32_t win = scale->mate - scale->max_mate_ply - 1;
    const int32_t scores[5] = {-win, scale->draw - 2, scale->draw, scale->draw + 2, win};
    return scores[wdl_ignoring_rule50(wdl, use_rule50) + 2];
}
