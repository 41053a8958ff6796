/*
 * engine.c - an engine's use of Pyrrhic's API, written from Pyrrhic's
 * documented interface: tb_init, the int TB_LARGEST (declared again here,
 * as Ethereal does), tb_probe_wdl in search, tb_probe_root at the root with
 * its results array, tb_probe_root_dtz and tb_probe_root_wdl with either
 * record layout.  tests/test_engine_pyrrhic.py builds it against the
 * drop-in pyrrhic/tbprobe.h (make -C src/fathom pyrrhic) with the engine's
 * own pyrrhic/tbconfig.h, and checks its answers against python-chess.
 *
 *   engine TABLE_PATH < positions
 *
 * Input lines: white black kings queens rooks bishops knights pawns (hex),
 * ep, turn (1 white), clock.  Output per line:
 *   wdl W root R results N r1 .. rN dtz OK N m1 rank1 score1 .. wdlroot OK N m1 rank1 ..
 * with raw values in decimal (4294967295: failed); scores are 0 with the
 * newer record, which has none.
 */
#include <stdio.h>

#include "bitboards.h"
#include "pyrrhic/tbprobe.h"

extern int TB_LARGEST; /* as engines redeclare it: must match tbprobe.h's */

int popcount(uint64_t bb)
{
    int n = 0;
    for (; bb; bb &= bb - 1)
        n++;
    return n;
}

int getlsb(uint64_t bb)
{
    int sq = 0;
    while (!(bb & 1)) {
        bb >>= 1;
        sq++;
    }
    return sq;
}

int poplsb(uint64_t *bb)
{
    int sq = getlsb(*bb);
    *bb &= *bb - 1;
    return sq;
}

/* Squares reached by steps (file, rank) from sq, sliding until occ. */
static uint64_t reach(int sq, const int (*steps)[2], int n, int slide, uint64_t occ)
{
    uint64_t out = 0;
    for (int i = 0; i < n; i++) {
        int f = sq % 8, r = sq / 8;
        for (;;) {
            f += steps[i][0];
            r += steps[i][1];
            if (f < 0 || f > 7 || r < 0 || r > 7)
                break;
            out |= 1ULL << (r * 8 + f);
            if (!slide || (occ >> (r * 8 + f) & 1))
                break;
        }
    }
    return out;
}

static const int diagonal[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
static const int straight[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int jumps[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};

uint64_t pawnAttacks(int colour, int sq)
{
    const int white[2][2] = {{1, 1}, {-1, 1}}, black[2][2] = {{1, -1}, {-1, -1}};
    return reach(sq, colour == ENGINE_WHITE ? white : black, 2, 0, 0);
}

uint64_t knightAttacks(int sq) { return reach(sq, jumps, 8, 0, 0); }
uint64_t bishopAttacks(int sq, uint64_t occ) { return reach(sq, diagonal, 4, 1, occ); }
uint64_t rookAttacks(int sq, uint64_t occ) { return reach(sq, straight, 4, 1, occ); }
uint64_t queenAttacks(int sq, uint64_t occ)
{
    return bishopAttacks(sq, occ) | rookAttacks(sq, occ);
}
uint64_t kingAttacks(int sq)
{
    return reach(sq, diagonal, 4, 0, 0) | reach(sq, straight, 4, 0, 0);
}

static void print_root_moves(int ok, const struct TbRootMoves *moves)
{
    printf(" %d %u", ok, ok ? moves->size : 0u);
    for (unsigned i = 0; ok && i < moves->size; i++) {
        const struct TbRootMove *m = &moves->moves[i];
#ifdef PYRRHIC_VALUE_MATE
        int score = m->pvSize == 1 && m->pv[0] == m->move ? (int)m->tbScore : -999999;
#else
        int score = 0;
#endif
        printf(" %u %d %d", (unsigned)m->move, (int)m->tbRank, score);
    }
}

int main(int argc, char **argv)
{
    static struct TbRootMoves root_moves; /* big with the older record */
    unsigned results[TB_MAX_MOVES];
    if (argc < 2 || !tb_init(argv[1]) || TB_LARGEST == 0) {
        fprintf(stderr, "no tables\n");
        return 1;
    }
    printf("tables %d %d %d %d\n", TB_LARGEST, TB_NUM_WDL, TB_NUM_DTZ, TB_NUM_DTM);
    unsigned long long bb[8];
    unsigned ep, clock;
    int turn;
    while (scanf("%llx %llx %llx %llx %llx %llx %llx %llx %u %d %u", &bb[0], &bb[1], &bb[2],
                 &bb[3], &bb[4], &bb[5], &bb[6], &bb[7], &ep, &turn, &clock) == 11) {
        if (PYRRHIC_POPCOUNT(bb[0] | bb[1]) > TB_LARGEST) {
            printf("skip\n");
            continue;
        }
        bool white = turn == PYRRHIC_WHITE;
        unsigned wdl = tb_probe_wdl(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                    ep, white);
        unsigned root = tb_probe_root(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                      clock, ep, white, results);
        printf("wdl %u root %u results", wdl, root);
        unsigned n = 0;
        while (root != TB_RESULT_FAILED && n < TB_MAX_MOVES && results[n] != TB_RESULT_FAILED)
            n++;
        printf(" %u", n);
        for (unsigned i = 0; i < n; i++)
            printf(" %u", results[i]);
#ifdef PYRRHIC_VALUE_MATE
        int ok = tb_probe_root_dtz(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                   clock, ep, white, false, true, &root_moves);
#else
        int ok = tb_probe_root_dtz(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                   clock, ep, white, false, &root_moves);
#endif
        printf(" dtz");
        print_root_moves(ok, &root_moves);
        ok = tb_probe_root_wdl(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7], clock,
                               ep, white, true, &root_moves);
        printf(" wdlroot");
        print_root_moves(ok, &root_moves);
        printf("\n");
    }
    tb_free();
    return 0;
}
