/*
 * engine_dropin.c - an engine's use of Fathom's tbprobe.h, line by line the
 * calls a Fathom user makes, built against pyfathom's tbprobe.h with
 * -std=c99 -Wall -Wextra -Werror.  test_engine_dropin.py feeds it positions
 * and checks what it prints against python-chess.
 *
 *   engine_dropin TBPATH < positions
 *
 * Input, one position per line: white black kings queens rooks bishops
 * knights pawns (hex), rule50 ep turn (decimal; ep as the engine keeps it,
 * possibly set after a double push nobody can capture).
 *
 * Output, per position i (all numbers decimal):
 *   W i wdl              tb_probe_wdl right after a zeroing move (clock 0)
 *   X i res              tb_probe_wdl with the real clock (fails unless 0)
 *   Y i res              tb_probe_root with castling rights (must fail)
 *   R i kind wdl from to promotes ep dtz
 *                        tb_probe_root; kind = move, mate, stalemate, failed
 *   M i from to promotes ep wdl dtz
 *                        each entry of tb_probe_root's results array
 *   D i from to promotes rank score class
 *                        tb_probe_root_dtz (useRule50), class from tbScore
 *                        read against TB_VALUE_* as an engine reads it:
 *                        win, cursed, draw, blessed, loss
 *   L i from to promotes rank score class   tb_probe_root_wdl (useRule50)
 *   H i count lsb rest   tb_pop_count / tb_lsb / tb_pop_lsb of all pieces
 *   A i square attacks   the helper attack set of the piece on square
 * and once, first, every constant of the header ("K NAME value"), and the
 * number of TB_SET_* round trips that failed ("S mismatches n").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tbprobe.h"

#define CONSTANT(name) printf("K %s %lld\n", #name, (long long)(name))

static void print_constants(void)
{
    CONSTANT(TB_MAX_MOVES);
    CONSTANT(TB_MAX_CAPTURES);
    CONSTANT(TB_MAX_PLY);
    CONSTANT(TB_CASTLING_K);
    CONSTANT(TB_CASTLING_Q);
    CONSTANT(TB_CASTLING_k);
    CONSTANT(TB_CASTLING_q);
    CONSTANT(TB_LOSS);
    CONSTANT(TB_BLESSED_LOSS);
    CONSTANT(TB_DRAW);
    CONSTANT(TB_CURSED_WIN);
    CONSTANT(TB_WIN);
    CONSTANT(TB_PROMOTES_NONE);
    CONSTANT(TB_PROMOTES_QUEEN);
    CONSTANT(TB_PROMOTES_ROOK);
    CONSTANT(TB_PROMOTES_BISHOP);
    CONSTANT(TB_PROMOTES_KNIGHT);
    CONSTANT(TB_RESULT_WDL_MASK);
    CONSTANT(TB_RESULT_TO_MASK);
    CONSTANT(TB_RESULT_FROM_MASK);
    CONSTANT(TB_RESULT_PROMOTES_MASK);
    CONSTANT(TB_RESULT_EP_MASK);
    CONSTANT(TB_RESULT_DTZ_MASK);
    CONSTANT(TB_RESULT_WDL_SHIFT);
    CONSTANT(TB_RESULT_TO_SHIFT);
    CONSTANT(TB_RESULT_FROM_SHIFT);
    CONSTANT(TB_RESULT_PROMOTES_SHIFT);
    CONSTANT(TB_RESULT_EP_SHIFT);
    CONSTANT(TB_RESULT_DTZ_SHIFT);
    CONSTANT(TB_RESULT_CHECKMATE);
    CONSTANT(TB_RESULT_STALEMATE);
    CONSTANT(TB_RESULT_FAILED);
    CONSTANT(TB_VALUE_PAWN);
    CONSTANT(TB_VALUE_MATE);
    CONSTANT(TB_VALUE_INFINITE);
    CONSTANT(TB_VALUE_DRAW);
    CONSTANT(TB_MAX_MATE_PLY);
}

/* How an engine reads a tablebase score: a proven win is scored at
 * TB_VALUE_MATE - TB_MAX_MATE_PLY - 1, anything between is a 50-move
 * affected result in centipawns. */
static const char *score_class(int32_t score)
{
    const int32_t tb_win = TB_VALUE_MATE - TB_MAX_MATE_PLY - 1;
    if (score >= tb_win && score < TB_VALUE_INFINITE)
        return "win";
    if (score <= -tb_win && score > -TB_VALUE_INFINITE)
        return "loss";
    if (score > TB_VALUE_DRAW)
        return "cursed";
    if (score < TB_VALUE_DRAW)
        return "blessed";
    return "draw";
}

static long set_mismatches;

/* Rebuild a packed answer from its fields with TB_SET_*: the engine-side
 * macros must agree with the prober's packing. */
static void check_repack(unsigned res)
{
    unsigned again = 0;
    again = TB_SET_WDL(again, TB_GET_WDL(res));
    again = TB_SET_FROM(again, TB_GET_FROM(res));
    again = TB_SET_TO(again, TB_GET_TO(res));
    again = TB_SET_PROMOTES(again, TB_GET_PROMOTES(res));
    again = TB_SET_EP(again, TB_GET_EP(res));
    again = TB_SET_DTZ(again, TB_GET_DTZ(res));
    if (again != res)
        set_mismatches++;
}

static void print_root_moves(char tag, long i, const struct TbRootMoves *moves)
{
    for (unsigned k = 0; k < moves->size; k++) {
        const struct TbRootMove *m = &moves->moves[k];
        if (m->pvSize < 1 || m->pvSize > TB_MAX_PLY || m->pv[0] != m->move)
            set_mismatches++;
        printf("%c %ld %u %u %u %" PRId32 " %" PRId32 " %s\n", tag, i,
               (unsigned)TB_MOVE_FROM(m->move), (unsigned)TB_MOVE_TO(m->move),
               (unsigned)TB_MOVE_PROMOTES(m->move), m->tbRank, m->tbScore,
               score_class(m->tbScore));
    }
}

/* The attack set of the piece on sq, through the helper API. */
static uint64_t helper_attacks(unsigned sq, uint64_t white, uint64_t occ,
                               uint64_t kings, uint64_t queens, uint64_t rooks,
                               uint64_t bishops, uint64_t knights)
{
    uint64_t bit = (uint64_t)1 << sq;
    if (kings & bit)
        return tb_king_attacks(sq);
    if (queens & bit)
        return tb_queen_attacks(sq, occ);
    if (rooks & bit)
        return tb_rook_attacks(sq, occ);
    if (bishops & bit)
        return tb_bishop_attacks(sq, occ);
    if (knights & bit)
        return tb_knight_attacks(sq);
    return tb_pawn_attacks(sq, (white & bit) != 0);
}

int main(int argc, char **argv)
{
    static unsigned results[TB_MAX_MOVES];
    static struct TbRootMoves root_moves;
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    unsigned rule50, ep, turn;
    long i = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s TBPATH < positions\n", argv[0]);
        return 2;
    }
    if (!tb_init(argv[1]) || TB_LARGEST == 0) {
        fprintf(stderr, "no tables in %s\n", argv[1]);
        return 2;
    }
    print_constants();
    while (scanf("%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
                 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %u %u %u",
                 &white, &black, &kings, &queens, &rooks, &bishops, &knights,
                 &pawns, &rule50, &ep, &turn) == 11) {
        uint64_t occ = white | black;
        bool stm = turn != 0;
        if (tb_pop_count(occ) > TB_LARGEST) {
            printf("R %ld toomany\n", i++);
            continue;
        }

        unsigned wdl = tb_probe_wdl(white, black, kings, queens, rooks, bishops,
                                    knights, pawns, 0, 0, ep, stm);
        printf("W %ld %u\n", i, wdl);
        printf("X %ld %u\n", i,
               tb_probe_wdl(white, black, kings, queens, rooks, bishops, knights,
                            pawns, rule50, 0, ep, stm));
        printf("Y %ld %u\n", i,
               tb_probe_root(white, black, kings, queens, rooks, bishops, knights,
                             pawns, rule50, TB_CASTLING_K | TB_CASTLING_Q |
                             TB_CASTLING_k | TB_CASTLING_q, ep, stm, NULL));

        unsigned res = tb_probe_root(white, black, kings, queens, rooks, bishops,
                                     knights, pawns, rule50, 0, ep, stm, results);
        if (res == TB_RESULT_FAILED) {
            printf("R %ld failed\n", i);
        } else if (res == TB_RESULT_CHECKMATE) {
            printf("R %ld mate\n", i);
        } else if (res == TB_RESULT_STALEMATE) {
            printf("R %ld stalemate\n", i);
        } else {
            check_repack(res);
            printf("R %ld move %u %u %u %u %u %u\n", i, TB_GET_WDL(res),
                   TB_GET_FROM(res), TB_GET_TO(res), TB_GET_PROMOTES(res),
                   TB_GET_EP(res), TB_GET_DTZ(res));
        }
        for (unsigned k = 0; res != TB_RESULT_FAILED && results[k] != TB_RESULT_FAILED; k++) {
            check_repack(results[k]);
            printf("M %ld %u %u %u %u %u %u\n", i, TB_GET_FROM(results[k]),
                   TB_GET_TO(results[k]), TB_GET_PROMOTES(results[k]),
                   TB_GET_EP(results[k]), TB_GET_WDL(results[k]),
                   TB_GET_DTZ(results[k]));
        }

        if (tb_probe_root_dtz(white, black, kings, queens, rooks, bishops, knights,
                              pawns, rule50, 0, ep, stm, false, true, &root_moves))
            print_root_moves('D', i, &root_moves);
        if (tb_probe_root_wdl(white, black, kings, queens, rooks, bishops, knights,
                              pawns, rule50, 0, ep, stm, true, &root_moves))
            print_root_moves('L', i, &root_moves);

        printf("H %ld %u %u %" PRIu64 "\n", i, tb_pop_count(occ), tb_lsb(occ),
               tb_pop_lsb(occ));
        for (uint64_t rest = occ; rest; rest = tb_pop_lsb(rest)) {
            unsigned sq = tb_lsb(rest);
            printf("A %ld %u %" PRIu64 "\n", i, sq,
                   helper_attacks(sq, white, occ, kings, queens, rooks, bishops,
                                  knights));
        }
        i++;
    }
    printf("S mismatches %ld\n", set_mismatches);
    tb_free();
    return TB_LARGEST == 0 ? 0 : 1;
}
