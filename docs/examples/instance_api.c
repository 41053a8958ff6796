/* The instance API (fathom.h): no global state, an error code per failure.
 * Compile against the headers of src/fathom, link the single-file core:
 *   cc -std=c99 -O2 -Isrc/fathom -c instance_api.c
 *   cc -std=c99 -O2 -Ibuild/fathom-engine -c build/fathom-engine/tbprobe.c
 *   cc instance_api.o tbprobe.o -pthread
 * and run as
 *   ./a.out /path/to/syzygy "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"
 */
#include <stdio.h>
#include <string.h>

#include "fathom.h" /* the instance API; the single-file tbprobe.c exports it */
#include "fen.h"    /* fathom_board and the FEN parser */

int main(int argc, char **argv) {
    fathom_tb *tb;
    fathom_board board;
    const char *fen = argc > 2 ? argv[2] : "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1";

    if (argc < 2 || fathom_open(&tb) != FATHOM_OK)
        return 1;
    fathom_add_directory(tb, argv[1], 1, 1, NULL);
    if (fathom_parse_fen(fen, strlen(fen), &board) == FATHOM_FEN_OK) {
        fathom_result r = fathom_probe_dtz(tb, &board, NULL);
        if (FATHOM_RESULT_STATUS(r) == FATHOM_OK)
            printf("dtz %d\n", FATHOM_RESULT_VALUE(r));
    }
    fathom_close(tb);
    return 0;
}
