/*
 * fathom_helpers.h - what the Python binding and pyfathom annotate build on,
 * beside the instance API of fathom.h: lean probes for a binding that pays
 * for every argument, the best move as pyfathom annotate ranks moves, a
 * move in SAN, and the replay of a game's moves.  Same rules as fathom.h
 * (squares 0 = a1 ... 63 = h8, any number of threads per instance).
 * Positions travel as a const fathom_board * (fen.h), except in the lean
 * probes, whose point is a call of plain integers.
 */
#ifndef PYFATHOM_FATHOM_HELPERS_H
#define PYFATHOM_FATHOM_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "fathom.h"
#include "fen.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Lean forms of fathom_probe_wdl and fathom_probe_dtz (fathom.h), for bindings that pay for every
 * argument and every result bit (a cffi call converts each argument from a
 * Python int, and big ints are the slow case): the kings are not passed
 * (they are the squares of white | black in no other piece set), there is
 * no detail, and the result is a small int:
 *
 *   fathom_probe_wdl_lean: wdl + 2 (0..4: loss .. win);
 *   fathom_probe_dtz_lean: dtz * 2 + precise (so dtz = result >> 1);
 *
 * and FATHOM_LEAN_FAILED + status on failure (below any answer of
 * either).  Repeat a failed probe with the full form for its detail.
 */
#define FATHOM_LEAN_FAILED (-0x40000000)
int32_t fathom_probe_wdl_lean(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks, uint64_t bishops,
                              uint64_t knights, uint64_t pawns, unsigned ep,
                              int turn);
int32_t fathom_probe_dtz_lean(fathom_tb *tb, uint64_t white, uint64_t black,
                              uint64_t queens, uint64_t rooks, uint64_t bishops,
                              uint64_t knights, uint64_t pawns, unsigned ep,
                              int turn);

/* What fathom_best_move found. */
typedef struct fathom_best {
    fathom_root_move move; /* the best move's record as fathom_probe_root
                            * would give it */
    int result;            /* the mover's result under the clock: 1, 0, -1 */
    unsigned count;        /* legal moves (0: mate or stalemate) */
    unsigned dtz_probes;   /* DTZ probes made */
    int on_edge;           /* 1: rank with fathom_probe_root (see below) */
} fathom_best;

/*
 * fathom_best_move: the best legal move of board under the 50-move rule
 * counted from board->halfmove, as pyfathom annotate ranks moves: the
 * mover's result (a win or loss only within the rule: fathom_clock_result
 * at face value), then the fastest win / longest loss, among draws one the
 * rule saves the opponent from first; ties go to the move
 * fathom_probe_root lists first.  Every child gets a WDL probe, and only
 * the quiet moves that can still be best a DTZ probe.  dtz_hint is the
 * position's own DTZ if the caller knows it (else 0): the answer does not
 * depend on it, but slower wins are dropped sooner.  out->move and
 * out->result are set only when count > 0 and on_edge is 0.  on_edge is 1
 * when a move whose rounded DTZ is exactly the plies the 50-move rule
 * leaves is the best one, or could tie or pass it once settled:
 * fathom_probe_root settles such moves by a search whose budget they all
 * share, so the caller ranks with fathom_probe_root then.
 * RETURN: a status code (FATHOM_ERR_CASTLING for castling rights; a child
 * that cannot be probed fails the call).
 */
int fathom_best_move(fathom_tb *tb, const fathom_board *board, int dtz_hint,
                     fathom_best *out, fathom_detail *detail);

/*
 * fathom_move_san: the legal move from -> to (promotion: 0, or the piece
 * type 2..5 as in fathom_root_move) of a position without castling rights,
 * written in SAN as python-chess's Board.san() writes it (with "+" or "#"),
 * into out, which has room for FATHOM_SAN_MAX bytes (NUL included).
 * RETURN: the length, or minus a status code (FATHOM_ERR_ARGUMENT for a
 * move that is not legal there or a short buffer, FATHOM_ERR_CASTLING for
 * castling rights).
 */
#define FATHOM_SAN_MAX 16
int fathom_move_san(const fathom_board *board, unsigned from, unsigned to,
                    unsigned promotion, char *out, size_t cap);

/*
 * Replaying a game's moves (for PGN annotators such as pyfathom annotate).
 *
 * fathom_game_replay plays a game's mainline, given as SAN move tokens
 * separated by spaces, from a start position, the way python-chess 1.11.2's
 * Board.parse_san and Board.push do for standard chess (castling rights,
 * en passant, promotions, the clocks and the promoted-pieces mask included),
 * and probes the DTZ of every position from the first one the tables can
 * cover: no castling rights and at most `largest` pieces.  The probes come
 * after the replay, their reads asked for together first where the
 * instance's read-ahead mode says so (fathom.h, fathom_set_read_ahead).
 *
 * It is an accelerator, not a judge: whatever it is not certain python-chess
 * would read the same way (a null move, a drop, a move given by both
 * squares, an illegal or ambiguous move, a start position python-chess
 * would not call valid, a token it does not know) stops the replay with a
 * FATHOM_GAME_STOP_* reason, and the caller reads the game with
 * python-chess instead.
 *
 * A position record (also the type of the start position):
 */
typedef struct fathom_game_position {
    uint64_t white, black;
    uint64_t kings, queens, rooks, bishops, knights, pawns;
    uint64_t promoted;  /* python-chess's Board.promoted */
    uint64_t castling;  /* python-chess's Board.castling_rights (rook squares) */
    uint32_t halfmove;  /* halfmove clock */
    uint32_t fullmove;  /* fullmove number */
    int32_t dtz;        /* fathom_probe_dtz_lean's answer (covered positions) */
    uint16_t move;      /* the move made from here: from | to << 6 |
                           promotion << 12 (python-chess's from/to squares);
                           0 for the last position */
    uint8_t ep;         /* python-chess's ep_square, 0 for none */
    uint8_t turn;       /* 1 white, 0 black */
} fathom_game_position;

typedef struct fathom_game_summary {
    uint32_t moves;     /* moves replayed (all of them unless stopped) */
    int32_t first;      /* index of the first covered position, -1 if none */
    uint32_t records;   /* position records written */
} fathom_game_summary;

/* Why a replay stopped (0: it did not). */
enum fathom_game_stop {
    FATHOM_GAME_DONE = 0,
    FATHOM_GAME_STOP_START = 1,     /* the start position is not one it takes */
    FATHOM_GAME_STOP_TOKEN = 2,     /* a token it does not replay itself */
    FATHOM_GAME_STOP_ILLEGAL = 3,   /* no legal move matches the token */
    FATHOM_GAME_STOP_AMBIGUOUS = 4, /* several legal moves match it */
    FATHOM_GAME_STOP_ROOM = 5,      /* more positions than the records hold */
    FATHOM_GAME_STOP_ARGUMENT = 6   /* NULL start, summary or records */
};

/* Record every position, not only those from the first covered one. */
#define FATHOM_GAME_RECORD_ALL 1u

/*
 * tb may be NULL (nothing is probed: dtz is FATHOM_LEAN_FAILED +
 * FATHOM_ERR_ARGUMENT).  Records go to out[0 .. cap): position `first` + k
 * in out[k], or position k with FATHOM_GAME_RECORD_ALL (where positions
 * before `first` are not probed: their dtz is 0).  Nothing is allocated.
 * RETURN: FATHOM_GAME_DONE, or the reason it stopped (*summary then tells
 * how far it got).
 */
int fathom_game_replay(fathom_tb *tb, const fathom_game_position *start,
                       const char *sans, size_t len, unsigned largest,
                       unsigned flags, fathom_game_position *out, size_t cap,
                       fathom_game_summary *summary);

#ifdef __cplusplus
}
#endif

#endif /* PYFATHOM_FATHOM_HELPERS_H */
