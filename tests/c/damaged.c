/*
 * damaged.c - what a damaged table gives: an error status, never a crash.
 *
 *   damaged DIR
 *
 * DIR holds KQvK.rtbw cut short (test_platforms.py makes it).  Prints the
 * status of a probe of a KQvK position and of fathom_check_table on the
 * file, as "probe N text" and "check N offset"; exits 0 unless the core
 * answered as if the table were whole.
 */
#include <stdio.h>
#include <string.h>

#include "fathom.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    fathom_tb *tb;
    unsigned found = 0;
    if (fathom_open(&tb) != FATHOM_OK ||
        fathom_add_directory(tb, argv[1], 1, 0, &found) != FATHOM_OK || found != 1) {
        fprintf(stderr, "cannot register %s (found %u)\n", argv[1], found);
        return 2;
    }
    /* White: Ke1 Qd1; black: Ke8; white to move. */
    uint64_t white = (1ULL << 4) | (1ULL << 3), black = 1ULL << 60;
    fathom_board board = {white, black, (1ULL << 4) | (1ULL << 60), 1ULL << 3, 0, 0, 0, 0,
                          0, 1, 0, 0, 1};
    fathom_result r = fathom_probe_wdl(tb, &board, NULL);
    int status = FATHOM_RESULT_STATUS(r);
    printf("probe %d %s\n", status, fathom_strerror(status));
    fathom_close(tb);

    char path[4096];
    size_t len = strlen(argv[1]);
    if (len + 12 > sizeof path)
        return 2;
    memcpy(path, argv[1], len);
    memcpy(path + len, "/KQvK.rtbw", 11);
    fathom_check_result check;
    int checked = fathom_check_table(path, &check);
    printf("check %d %llu\n", checked, (unsigned long long)check.offset);
    return status == FATHOM_OK || checked == FATHOM_OK;
}
