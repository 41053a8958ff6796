/*
 * fen.c - strict FEN / EPD position parser (see fen.h for the grammar).
 *
 * Written for pyfathom.  One pass over the bytes, no allocation, no read
 * past the given length, no dependency on a terminating NUL or on the C
 * locale (ctype is not used).
 */
#include "fen.h"

#include <string.h>

#define MAX_FIELDS 6

static const char *const fen_messages[FATHOM_FEN_STATUS_COUNT] = {
    "ok",
    "bad argument",
    "wrong number of fields (expected 4 or 6)",
    "bad piece letter in the placement field",
    "a rank does not hold exactly 8 files",
    "two digits in a row in the placement field",
    "the placement field does not have exactly 8 ranks",
    "side to move is not 'w' or 'b'",
    "bad castling field (expected '-' or letters from KQkq)",
    "bad en-passant field (expected '-' or a square on rank 3 or 6)",
    "halfmove clock is not a number from 0 to 65535",
    "fullmove number is not a number from 0 to 65535",
};

const char *fathom_fen_strerror(int status)
{
    if (status < 0 || status >= FATHOM_FEN_STATUS_COUNT)
        return "unknown FEN parser status";
    return fen_messages[status];
}

/*
 * Character classes.  A piece letter's class holds its piece type index
 * (0 = kings ... 5 = pawns) plus 1 in bits 0-2 and the colour (set for
 * black) in bit 3; CH_BLANK marks whitespace; 0 is anything else.  A switch
 * rather than a table with designated initializers, which C++ (the
 * single-file build compiled as C++) does not accept; compilers turn it
 * into one table lookup anyway.
 */
#define CH_BLANK 0x10
#define PIECE(type, black) ((unsigned char)(((black) << 3) | ((type) + 1)))

static unsigned char char_class(unsigned char c)
{
    switch (c) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
        return CH_BLANK;
    case 'K': return PIECE(0, 0);
    case 'Q': return PIECE(1, 0);
    case 'R': return PIECE(2, 0);
    case 'B': return PIECE(3, 0);
    case 'N': return PIECE(4, 0);
    case 'P': return PIECE(5, 0);
    case 'k': return PIECE(0, 1);
    case 'q': return PIECE(1, 1);
    case 'r': return PIECE(2, 1);
    case 'b': return PIECE(3, 1);
    case 'n': return PIECE(4, 1);
    case 'p': return PIECE(5, 1);
    default: return 0;
    }
}

static int is_blank(unsigned char c)
{
    return char_class(c) == CH_BLANK;
}

static int parse_placement(const unsigned char *s, size_t n, fathom_board *b)
{
    uint64_t types[6] = {0, 0, 0, 0, 0, 0};
    uint64_t colours[2] = {0, 0};
    int rank = 7;
    unsigned file = 0;
    int prev_digit = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '/') {
            if (file != 8)
                return FATHOM_FEN_ERR_RANK_FILES;
            if (--rank < 0)
                return FATHOM_FEN_ERR_RANK_COUNT;
            file = 0;
            prev_digit = 0;
        } else if (c >= '1' && c <= '8') {
            if (prev_digit)
                return FATHOM_FEN_ERR_DIGITS;
            file += (unsigned)(c - '0');
            if (file > 8)
                return FATHOM_FEN_ERR_RANK_FILES;
            prev_digit = 1;
        } else {
            unsigned char code = char_class(c);
            uint64_t bit;
            if (code == 0 || code == CH_BLANK)
                return FATHOM_FEN_ERR_PIECE;
            if (file >= 8)
                return FATHOM_FEN_ERR_RANK_FILES;
            bit = (uint64_t)1 << (unsigned)(rank * 8 + (int)file);
            types[(code & 7) - 1] |= bit;
            colours[code >> 3] |= bit;
            file++;
            prev_digit = 0;
        }
    }
    if (rank != 0)
        return FATHOM_FEN_ERR_RANK_COUNT;
    if (file != 8)
        return FATHOM_FEN_ERR_RANK_FILES;

    b->white = colours[0];
    b->black = colours[1];
    b->kings = types[0];
    b->queens = types[1];
    b->rooks = types[2];
    b->bishops = types[3];
    b->knights = types[4];
    b->pawns = types[5];
    return FATHOM_FEN_OK;
}

static int parse_castling(const unsigned char *s, size_t n, uint8_t *out)
{
    unsigned mask = 0;
    size_t i;

    if (n == 1 && s[0] == '-') {
        *out = 0;
        return FATHOM_FEN_OK;
    }
    if (n == 0 || n > 4)
        return FATHOM_FEN_ERR_CASTLING;
    for (i = 0; i < n; i++) {
        unsigned bit;
        switch (s[i]) {
        case 'K': bit = FATHOM_CASTLE_WK; break;
        case 'Q': bit = FATHOM_CASTLE_WQ; break;
        case 'k': bit = FATHOM_CASTLE_BK; break;
        case 'q': bit = FATHOM_CASTLE_BQ; break;
        default: return FATHOM_FEN_ERR_CASTLING;
        }
        if (mask & bit)
            return FATHOM_FEN_ERR_CASTLING;
        mask |= bit;
    }
    *out = (uint8_t)mask;
    return FATHOM_FEN_OK;
}

static int parse_ep(const unsigned char *s, size_t n, uint8_t *out)
{
    if (n == 1 && s[0] == '-') {
        *out = 0;
        return FATHOM_FEN_OK;
    }
    if (n != 2 || s[0] < 'a' || s[0] > 'h' || (s[1] != '3' && s[1] != '6'))
        return FATHOM_FEN_ERR_EP;
    *out = (uint8_t)((s[1] - '1') * 8 + (s[0] - 'a'));
    return FATHOM_FEN_OK;
}

/* Decimal digits only, no sign, value at most FATHOM_FEN_MAX_COUNTER. */
static int parse_counter(const unsigned char *s, size_t n, uint16_t *out)
{
    unsigned long v = 0;
    size_t i;

    if (n == 0)
        return 0;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > FATHOM_FEN_MAX_COUNTER)
            return 0;
    }
    *out = (uint16_t)v;
    return 1;
}

static int parse_core(const unsigned char *s, size_t len, unsigned flags,
                      fathom_board *b, size_t *begin, size_t *end)
{
    size_t start[MAX_FIELDS], stop[MAX_FIELDS];
    size_t nfields = 0, i = 0, first = len, last = 0;
    int more = 0; /* a field beyond the sixth exists */
    int status;

    /* Split into at most MAX_FIELDS fields, noting whether more follow. */
    while (i < len) {
        while (i < len && is_blank(s[i]))
            i++;
        if (i >= len)
            break;
        if (nfields == MAX_FIELDS) {
            more = 1;
            break;
        }
        start[nfields] = i;
        while (i < len && !is_blank(s[i]))
            i++;
        stop[nfields] = i;
        nfields++;
    }
    if (nfields > 0) {
        first = start[0];
        last = stop[nfields - 1];
    } else {
        first = last = 0;
    }
    *begin = first;
    *end = last;

    if (flags & FATHOM_FEN_EPD) {
        /* Fields 5.. are opcodes unless the fifth starts with a digit: then
         * they are the two counters, and a field after them is refused as
         * without the flag (python-chess refuses it too). */
        if (nfields < 4)
            return FATHOM_FEN_ERR_FIELD_COUNT;
        if (nfields >= 5 && !(s[start[4]] >= '0' && s[start[4]] <= '9')) {
            nfields = 4;
            more = 0;
        } else if (nfields == 5) {
            return FATHOM_FEN_ERR_FIELD_COUNT;
        }
    }
    if (more || (nfields != 4 && nfields != 6))
        return FATHOM_FEN_ERR_FIELD_COUNT;

    status = parse_placement(s + start[0], stop[0] - start[0], b);
    if (status != FATHOM_FEN_OK)
        return status;

    if (stop[1] - start[1] != 1 || (s[start[1]] != 'w' && s[start[1]] != 'b'))
        return FATHOM_FEN_ERR_SIDE;
    b->turn = s[start[1]] == 'w' ? 1 : 0;

    status = parse_castling(s + start[2], stop[2] - start[2], &b->castling);
    if (status != FATHOM_FEN_OK)
        return status;

    status = parse_ep(s + start[3], stop[3] - start[3], &b->ep);
    if (status != FATHOM_FEN_OK)
        return status;

    b->halfmove = 0;
    b->fullmove = 1;
    if (nfields == 6) {
        if (!parse_counter(s + start[4], stop[4] - start[4], &b->halfmove))
            return FATHOM_FEN_ERR_HALFMOVE;
        if (!parse_counter(s + start[5], stop[5] - start[5], &b->fullmove))
            return FATHOM_FEN_ERR_FULLMOVE;
        if (b->fullmove == 0)
            b->fullmove = 1;
    }
    *end = stop[nfields - 1];
    return FATHOM_FEN_OK;
}

int fathom_parse_fen_ex(const char *fen, size_t len, unsigned flags,
                        fathom_board *out, size_t *fen_begin,
                        size_t *fen_end)
{
    size_t begin = 0, end = 0;
    int status;

    if (out == NULL)
        return FATHOM_FEN_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (fen == NULL && len > 0)
        return FATHOM_FEN_ERR_ARGUMENT;
    status = parse_core((const unsigned char *)fen, len, flags, out, &begin,
                        &end);
    if (status != FATHOM_FEN_OK)
        memset(out, 0, sizeof *out);
    if (fen_begin != NULL)
        *fen_begin = begin;
    if (fen_end != NULL)
        *fen_end = end;
    return status;
}

int fathom_parse_fen(const char *fen, size_t len, fathom_board *out)
{
    return fathom_parse_fen_ex(fen, len, 0, out, NULL, NULL);
}

size_t fathom_parse_fen_batch(const char *buf, const size_t *offsets,
                              const size_t *lengths, size_t n,
                              unsigned flags,
                              uint64_t *white, uint64_t *black,
                              uint64_t *kings, uint64_t *queens,
                              uint64_t *rooks, uint64_t *bishops,
                              uint64_t *knights, uint64_t *pawns,
                              uint8_t *ep, uint8_t *turn, uint8_t *castling,
                              uint16_t *halfmove, size_t *fen_begin,
                              size_t *fen_end, int8_t *status)
{
    size_t i, ok = 0;

    if (status == NULL)
        return 0;
    if (n > 0 && (buf == NULL || offsets == NULL || lengths == NULL ||
                  white == NULL || black == NULL || kings == NULL ||
                  queens == NULL || rooks == NULL || bishops == NULL ||
                  knights == NULL || pawns == NULL || ep == NULL ||
                  turn == NULL || castling == NULL)) {
        for (i = 0; i < n; i++)
            status[i] = FATHOM_FEN_ERR_ARGUMENT;
        return 0;
    }
    for (i = 0; i < n; i++) {
        fathom_board b;
        size_t begin = 0, end = 0;
        int st;

        memset(&b, 0, sizeof b);
        st = parse_core((const unsigned char *)buf + offsets[i], lengths[i],
                        flags, &b, &begin, &end);
        if (st != FATHOM_FEN_OK)
            memset(&b, 0, sizeof b);
        else
            ok++;
        white[i] = b.white;
        black[i] = b.black;
        kings[i] = b.kings;
        queens[i] = b.queens;
        rooks[i] = b.rooks;
        bishops[i] = b.bishops;
        knights[i] = b.knights;
        pawns[i] = b.pawns;
        ep[i] = b.ep;
        turn[i] = b.turn;
        castling[i] = b.castling;
        if (halfmove != NULL)
            halfmove[i] = b.halfmove;
        if (fen_begin != NULL)
            fen_begin[i] = begin;
        if (fen_end != NULL)
            fen_end[i] = end;
        status[i] = (int8_t)st;
    }
    return ok;
}
