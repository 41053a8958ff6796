/*
 * fuzz_game.c - arbitrary bytes to the game replay (fathom_game_replay, the
 * SAN reader of pyfathom annotate).  Input: an optional FEN line (parsed by
 * the C FEN parser; the standard start if there is none or it does not
 * parse), then the SAN tokens, as annotate passes them (space separated,
 * though any bytes go).  Replayed three ways: recording every position into
 * an exactly sized heap buffer (so ASan sees any write past it), probing
 * from the first covered position with the real tables, and with too few
 * records (the replay must stop, not overrun).
 */
#include <stdio.h>

#include "fen.h"
#include "fuzz_common.h"

static fathom_tb *shared;

static void start_position(const char *text, size_t size, fathom_game_position *s,
                           size_t *moves_at)
{
    fathom_board b;
    const char *nl = memchr(text, '\n', size);
    *moves_at = 0;
    memset(s, 0, sizeof *s);
    if (nl && fathom_parse_fen(text, (size_t)(nl - text), &b) == FATHOM_FEN_OK) {
        *moves_at = (size_t)(nl - text) + 1;
        s->white = b.white;
        s->black = b.black;
        s->kings = b.kings;
        s->queens = b.queens;
        s->rooks = b.rooks;
        s->bishops = b.bishops;
        s->knights = b.knights;
        s->pawns = b.pawns;
        s->ep = b.ep;
        s->turn = b.turn;
        s->halfmove = b.halfmove;
        s->fullmove = b.fullmove;
        /* python-chess's rook squares for KQkq */
        s->castling = ((b.castling & FATHOM_CASTLE_WK) ? 1ULL << 7 : 0) |
                      ((b.castling & FATHOM_CASTLE_WQ) ? 1ULL : 0) |
                      ((b.castling & FATHOM_CASTLE_BK) ? 1ULL << 63 : 0) |
                      ((b.castling & FATHOM_CASTLE_BQ) ? 1ULL << 56 : 0);
        /* Any mask at all: the replay checks what it is given. */
        s->promoted = b.knights & b.bishops;
        return;
    }
    s->white = 0xffffULL;
    s->black = 0xffff000000000000ULL;
    s->pawns = 0x00ff00000000ff00ULL;
    s->knights = 0x4200000000000042ULL;
    s->bishops = 0x2400000000000024ULL;
    s->rooks = 0x8100000000000081ULL;
    s->queens = 0x0800000000000008ULL;
    s->kings = 0x1000000000000010ULL;
    s->castling = 0x8100000000000081ULL;
    s->turn = 1;
    s->fullmove = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Copy into an exactly sized buffer so ASan sees any over-read. */
    char *text = (char *)malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    if (!shared && fathom_open(&shared) == FATHOM_OK && fuzz_real_tables())
        fathom_add_directory(shared, fuzz_real_tables(), 1, 1, NULL);

    fathom_game_position start;
    size_t at;
    start_position(text, size, &start, &at);
    const char *sans = text + at;
    size_t len = size - at, cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += sans[i] == ' ';
    cap += 1;
    fathom_game_position *records = malloc(cap * sizeof *records);
    if (records) {
        fathom_game_summary summary;
        int stop = fathom_game_replay(NULL, &start, sans, len, 32, FATHOM_GAME_RECORD_ALL,
                                      records, cap, &summary);
        if (stop < 0 || stop > FATHOM_GAME_STOP_ARGUMENT || summary.records > cap ||
            (stop == FATHOM_GAME_DONE && summary.records != summary.moves + 1))
            abort();
        fathom_game_replay(shared, &start, sans, len, 4, 0, records, cap, &summary);
        if (summary.records > cap)
            abort();
        size_t few = cap / 3;
        fathom_game_replay(shared, &start, sans, len, 32, FATHOM_GAME_RECORD_ALL, records,
                           few, &summary);
        if (summary.records > few)
            abort();
        free(records);
    }
    free(text);
    return 0;
}
