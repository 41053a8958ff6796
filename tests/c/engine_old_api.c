/*
 * engine_old_api.c - an engine's use of the Fathom API as it stood in 2016:
 * tb_init, TB_LARGEST, tb_probe_wdl in search, tb_probe_root at the root.
 * Built against Fathom's headers of that time (tests/c/fathom_2016) with
 * libfathom.a, and against the single-file build with the engine's old
 * tbconfig.h kept (tests/test_engine_old_headers.py).
 *
 *   engine_old_api TABLE_PATH < positions
 *
 * Input lines: white black kings queens rooks bishops knights pawns (hex),
 * ep, turn (1 white).  Output per line: "wdl W root R" with W and R the
 * raw answers in decimal (4294967295: failed).
 */
#include <stdio.h>

#include "tbprobe.h"

int main(int argc, char **argv)
{
    if (argc < 2 || !tb_init(argv[1]) || TB_LARGEST == 0) {
        fprintf(stderr, "no tables\n");
        return 1;
    }
    unsigned long long bb[8];
    unsigned ep;
    int turn;
    while (scanf("%llx %llx %llx %llx %llx %llx %llx %llx %u %d", &bb[0], &bb[1], &bb[2],
                 &bb[3], &bb[4], &bb[5], &bb[6], &bb[7], &ep, &turn) == 10) {
        unsigned wdl = tb_probe_wdl(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                    0, 0, ep, turn != 0);
        unsigned root = tb_probe_root(bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                      0, 0, ep, turn != 0, NULL);
        printf("wdl %u root %u\n", wdl, root);
    }
    return 0;
}
