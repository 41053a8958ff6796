/*
 * fen.h - a strict FEN / EPD position parser for pyfathom.
 *
 * Parses the position part of a FEN (or the first four fields of an EPD
 * line) into the eight bitboards python-chess keeps and the prober takes.
 * The parser never allocates, never reads past the length it is given (the
 * text need not be NUL-terminated) and rejects every malformed field with
 * its own status code, so that a file of millions of FENs can be parsed in
 * one C call per chunk without building a python-chess board per line.
 *
 * Accepted input (fields separated by runs of spaces or tabs; leading and
 * trailing whitespace, including a final "\r\n", is ignored):
 *
 *   placement side castling ep [halfmove fullmove]
 *
 *   placement  8 ranks from rank 8 down to rank 1, separated by '/', each
 *              exactly 8 files of piece letters (PNBRQK pnbrqk) and digits
 *              1..8; two digits in a row are rejected (as python-chess does).
 *   side       'w' or 'b'.
 *   castling   '-' or a non-empty set of the letters K Q k q, each at most
 *              once, in any order.  Not checked against the placement.
 *   ep         '-' or a square on rank 3 or rank 6 (e.g. "e3").  Kept as
 *              written: whether a capture is legal is the prober's business
 *              (python-chess keeps it as written too, see Board.ep_square).
 *   halfmove   decimal digits only, 0 .. FATHOM_FEN_MAX_COUNTER.
 *   fullmove   decimal digits only, 0 .. FATHOM_FEN_MAX_COUNTER; 0 is read
 *              as 1, as python-chess does.
 *
 * Four fields (EPD style) give halfmove 0 and fullmove 1.  Five fields are
 * rejected, and so is a field after the sixth, with or without the flag.
 * With FATHOM_FEN_EPD set in flags, a line whose fifth field does not start
 * with a digit is an EPD line: everything from the fifth field on is taken
 * as opcodes and ignored (counters 0 / 1); pyfathom's batch reads those
 * opcodes by its one grammar (pyfathom/fen.py), which may still refuse them.
 *
 * THREAD SAFETY: all functions are pure; call them from any thread.
 *
 * The cffi declarations of this header are in build_ffi.py (CDEF_FEN), the
 * one place that declares C to Python.
 */
#ifndef PYFATHOM_FEN_H
#define PYFATHOM_FEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes of the parser.  Values are pinned (tests and the CLI use them). */
#define FATHOM_FEN_OK 0
#define FATHOM_FEN_ERR_ARGUMENT 1    /* NULL pointer passed */
#define FATHOM_FEN_ERR_FIELD_COUNT 2 /* not 4 or 6 fields (EPD: >= 4) */
#define FATHOM_FEN_ERR_PIECE 3       /* a character that is no piece or digit */
#define FATHOM_FEN_ERR_RANK_FILES 4  /* a rank does not hold exactly 8 files */
#define FATHOM_FEN_ERR_DIGITS 5      /* two digits in a row in a rank */
#define FATHOM_FEN_ERR_RANK_COUNT 6  /* not exactly 8 ranks */
#define FATHOM_FEN_ERR_SIDE 7        /* side to move is not 'w' or 'b' */
#define FATHOM_FEN_ERR_CASTLING 8    /* castling is not '-' or a KQkq set */
#define FATHOM_FEN_ERR_EP 9          /* ep is not '-' or a rank 3/6 square */
#define FATHOM_FEN_ERR_HALFMOVE 10   /* halfmove clock non-numeric / range */
#define FATHOM_FEN_ERR_FULLMOVE 11   /* fullmove number non-numeric / range */
#define FATHOM_FEN_STATUS_COUNT 12

/* flags */
#define FATHOM_FEN_EPD 1u /* allow EPD opcodes after the fourth field */

/* Largest halfmove clock or fullmove number accepted. */
#define FATHOM_FEN_MAX_COUNTER 65535

/* Castling bits (fathom_board.castling). */
#define FATHOM_CASTLE_WK 1
#define FATHOM_CASTLE_WQ 2
#define FATHOM_CASTLE_BK 4
#define FATHOM_CASTLE_BQ 8

/* A parsed position.  Squares: 0 = a1 ... 63 = h8. */
typedef struct fathom_board {
    uint64_t white, black;                  /* occupied by each colour */
    uint64_t kings, queens, rooks, bishops, knights, pawns;
    uint8_t ep;        /* en-passant target square, 0 = none */
    uint8_t turn;      /* 1 = white to move, 0 = black */
    uint8_t castling;  /* FATHOM_CASTLE_* bits */
    uint16_t halfmove; /* halfmove clock (0 when absent) */
    uint16_t fullmove; /* fullmove number (1 when absent or 0) */
} fathom_board;

/* A short English description of a parser status; never NULL. */
const char *fathom_fen_strerror(int status);

/*
 * fathom_parse_fen: parse one FEN (4 or 6 fields) of len bytes.
 * PARAMETERS: fen need not be NUL-terminated; nothing past fen[len-1] is
 * read.  out receives the position; on failure it is zeroed.
 * RETURN: FATHOM_FEN_OK or a FATHOM_FEN_ERR_* code.
 */
int fathom_parse_fen(const char *fen, size_t len, fathom_board *out);

/*
 * fathom_parse_fen_ex: as fathom_parse_fen, with flags (FATHOM_FEN_EPD) and
 * the byte range [*fen_begin, *fen_end) of the position fields within the
 * text (leading whitespace and EPD opcodes excluded).  fen_begin / fen_end
 * may be NULL; on failure they span the fields that were read (from the
 * first to at most the sixth), which is the whole trimmed line when it has
 * six fields or fewer.
 */
int fathom_parse_fen_ex(const char *fen, size_t len, unsigned flags,
                        fathom_board *out, size_t *fen_begin,
                        size_t *fen_end);

/*
 * fathom_parse_fen_batch: parse n lines held in one buffer into
 * struct-of-arrays output, as numpy holds them.  Line i is the bytes
 * buf[offsets[i] .. offsets[i] + lengths[i]).  Every output array has n
 * elements; halfmove, fen_begin and fen_end may be NULL.  A row that fails
 * gets all-zero masks (so a prober rejects it), ep 0, turn 0, castling 0,
 * and its status code in status[i]; fen_begin/fen_end are relative to the
 * line's offset.
 * RETURN: the number of rows parsed without error.
 */
size_t fathom_parse_fen_batch(const char *buf, const size_t *offsets,
                              const size_t *lengths, size_t n,
                              unsigned flags,
                              uint64_t *white, uint64_t *black,
                              uint64_t *kings, uint64_t *queens,
                              uint64_t *rooks, uint64_t *bishops,
                              uint64_t *knights, uint64_t *pawns,
                              uint8_t *ep, uint8_t *turn, uint8_t *castling,
                              uint16_t *halfmove, size_t *fen_begin,
                              size_t *fen_end, int8_t *status);

#ifdef __cplusplus
}
#endif

#endif /* PYFATHOM_FEN_H */
