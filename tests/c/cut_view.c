/*
 * cut_view.c - a table file cut short under a running prober: with the
 * fault guard the probes that read the lost part fail with FATHOM_ERR_IO
 * naming the file, and the process lives on (tests/test_platforms.py, on
 * Linux and under wine).
 *
 *   cut_view DIR... READY GO [noguard]
 *
 * Registers the folders DIR (the 3-4-piece tables and one holding a copy
 * of KRPvKR.rtbw), probes KRPvKR positions until some answer, creates the
 * file READY, waits for the file GO to appear (the test cuts the table
 * meanwhile), probes more positions and prints "answered N io M path P"
 * (P: the file the last FATHOM_ERR_IO named).  With "noguard",
 * fathom_set_fault_guard(0) first: a lost page then ends the process, as
 * any read from a mapped file does.  Exit 0 when it got this far.
 */
#include <stdio.h>
#include <string.h>

#include "fathom.h"

#if defined(_WIN32)
#include <windows.h>
static int file_exists(const char *path) { return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES; }
static void nap(void) { Sleep(10); }
#else
#include <time.h>
#include <unistd.h>
static int file_exists(const char *path) { return access(path, F_OK) == 0; }
static void nap(void)
{
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
}
#endif

/* KRPvKR positions spread over the table: kings on e1 and e8 or a1 and
 * h8, the other pieces walked over the board by n.  Invalid ones (two
 * pieces on a square, a pawn on its last rank) get an error status. */
static fathom_board position(unsigned n)
{
    unsigned wk = n & 1 ? 4 : 0, bk = n & 1 ? 60 : 63;
    unsigned wr = (n * 7 + 9) % 64, wp = 8 + (n * 13) % 48, br = (n * 29 + 17) % 64;
    fathom_board b;
    memset(&b, 0, sizeof b);
    b.white = (1ULL << wk) | (1ULL << wr) | (1ULL << wp);
    b.black = (1ULL << bk) | (1ULL << br);
    b.kings = (1ULL << wk) | (1ULL << bk);
    b.rooks = (1ULL << wr) | (1ULL << br);
    b.pawns = 1ULL << wp;
    b.turn = (uint8_t)((n >> 1) & 1);
    b.fullmove = 1;
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s DIR... READY GO [noguard]\n", argv[0]);
        return 2;
    }
    int noguard = strcmp(argv[argc - 1], "noguard") == 0;
    int last = argc - 1 - noguard; /* GO */
    if (noguard)
        fathom_set_fault_guard(0);
    fathom_tb *tb;
    if (fathom_open(&tb) != FATHOM_OK)
        return 2;
    for (int i = 1; i < last - 1; i++) {
        unsigned found = 0;
        if (fathom_add_directory(tb, argv[i], 1, 0, &found) != FATHOM_OK) {
            fprintf(stderr, "cannot register %s\n", argv[i]);
            return 2;
        }
    }
    unsigned answered = 0, n = 0;
    for (; n < 20000 && answered < 50; n++) {
        fathom_board b = position(n);
        answered += FATHOM_RESULT_STATUS(fathom_probe_wdl(tb, &b, NULL)) == FATHOM_OK;
    }
    if (answered == 0) {
        fprintf(stderr, "no KRPvKR position answered before the cut\n");
        return 2;
    }
    FILE *ready = fopen(argv[last - 1], "w");
    if (!ready)
        return 2;
    fclose(ready);
    while (!file_exists(argv[last]))
        nap();
    unsigned io = 0;
    answered = 0;
    fathom_detail detail, io_detail;
    memset(&io_detail, 0, sizeof io_detail);
    for (unsigned k = 0; k < 4000; k++, n++) {
        fathom_board b = position(n);
        int status = FATHOM_RESULT_STATUS(fathom_probe_wdl(tb, &b, &detail));
        answered += status == FATHOM_OK;
        if (status == FATHOM_ERR_IO) {
            io++;
            io_detail = detail;
        }
    }
    printf("answered %u io %u path %s\n", answered, io, io_detail.path);
    fflush(stdout);
    fathom_close(tb);
    return 0;
}
