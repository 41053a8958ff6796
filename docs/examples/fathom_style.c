/* Fathom's API (tbprobe.h) as an engine calls it: WDL at a node entry,
 * DTZ at the root.  Build against the single-file core:
 *   sh src/fathom/amalgamate.sh build/fathom-engine
 *   cc -std=c99 -O2 fathom_style.c -Ibuild/fathom-engine build/fathom-engine/tbprobe.c -pthread
 *   ./a.out /path/to/syzygy
 */
#include <stdint.h>
#include <stdio.h>

#include "tbprobe.h"

/* Your engine's own helpers; minimal stand-ins here. */
static unsigned popcount(uint64_t b) { unsigned n = 0; for (; b; b &= b - 1) n++; return n; }
static int score_from_wdl(unsigned wdl) { return ((int)wdl - TB_DRAW) * 10000; }

#define SQ(file, rank) ((file) + 8 * (rank))
#define BB(sq) ((uint64_t)1 << (sq))

int main(int argc, char **argv) {
    /* 8/8/8/8/8/8/2Rk4/1K6 b - - 0 1: white Kb1 Rc2, black Kd2, black to move */
    uint64_t white = BB(SQ(1, 0)) | BB(SQ(2, 1)), black = BB(SQ(3, 1));
    uint64_t kings = BB(SQ(1, 0)) | BB(SQ(3, 1)), rooks = BB(SQ(2, 1));
    uint64_t queens = 0, bishops = 0, knights = 0, pawns = 0;
    unsigned ep = 0, castling = 0, rule50 = 0;
    int turn = 0;                        /* true: white to move */

    if (argc < 2 || !tb_init(argv[1])) /* a list: ':'-separated (';' on Windows) */
        return 1;
    if (popcount(white | black) <= TB_LARGEST && castling == 0 && rule50 == 0) {
        unsigned r = tb_probe_wdl(white, black, kings, queens, rooks, bishops,
                                  knights, pawns, 0, 0, ep, turn);
        if (r != TB_RESULT_FAILED)       /* TB_LOSS .. TB_WIN (0..4): exact */
            printf("wdl %u score %d\n", r, score_from_wdl(r));
    }
    /* at the root: */
    unsigned moves[TB_MAX_MOVES];
    unsigned best = tb_probe_root(white, black, kings, queens, rooks, bishops,
                                  knights, pawns, rule50, 0, ep, turn, moves);
    if (best != TB_RESULT_FAILED)
        printf("best %u-%u dtz %u\n", TB_GET_FROM(best), TB_GET_TO(best), TB_GET_DTZ(best));
    tb_free();
    return 0;
}
