/*
 * fuzz_fen.c - arbitrary bytes to the C FEN parser (single, EPD and batch
 * entry points), and every position it accepts to the prober, so that the
 * bitboards a FEN can spell (no kings, pawns on the back rank, nine queens,
 * a bogus en-passant square) meet the position checks.
 */
#include <stdio.h>

#include "fen.h"
#include "fuzz_common.h"

static fathom_tb *shared;

static void probe_board(const fathom_board *b)
{
    if (!shared) {
        if (fathom_open(&shared) != FATHOM_OK)
            return;
        if (fuzz_real_tables())
            fathom_add_directory(shared, fuzz_real_tables(), 1, 1, NULL);
    }
    fuzz_pos p = {b->white, b->black, b->kings, b->queens, b->rooks,
                  b->bishops, b->knights, b->pawns, b->ep, b->turn};
    fuzz_probe_all(shared, &p, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Copy into an exactly sized buffer so ASan sees any over-read. */
    char *text = (char *)malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    fathom_board b;
    if (fathom_parse_fen(text, size, &b) == FATHOM_FEN_OK)
        probe_board(&b);
    size_t begin, end;
    if (fathom_parse_fen_ex(text, size, FATHOM_FEN_EPD, &b, &begin, &end) ==
        FATHOM_FEN_OK) {
        if (begin > end || end > size)
            abort();
        probe_board(&b);
    }

    /* The same bytes as lines of a batch. */
    enum { MAXL = 64 };
    size_t offs[MAXL], lens[MAXL], n = 0, start = 0;
    for (size_t i = 0; i <= size && n < MAXL; i++)
        if (i == size || text[i] == '\n') {
            offs[n] = start;
            lens[n++] = i - start;
            start = i + 1;
        }
    uint64_t m[8][MAXL];
    uint8_t ep[MAXL], turn[MAXL], castling[MAXL];
    uint16_t half[MAXL];
    size_t fb[MAXL], fe[MAXL];
    int8_t status[MAXL];
    fathom_parse_fen_batch(text, offs, lens, n, FATHOM_FEN_EPD, m[0], m[1],
                           m[2], m[3], m[4], m[5], m[6], m[7], ep, turn,
                           castling, half, fb, fe, status);
    free(text);
    return 0;
}
