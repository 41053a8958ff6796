/*
 * tb_rules.h - internal: a game's rules as one table of functions and
 * flags (standard chess's: probe/tb_search.c; each variant's:
 * tb_variant_rules.c), so that one search and one set of root probes serve
 * every game.  The rules know nothing of the search: the probe layer picks
 * the search for a game (tb_rules_are_inline, tb_search.h).
 */
#ifndef PYFATHOM_TB_RULES_H
#define PYFATHOM_TB_RULES_H

#include "rules/tb_chess.h"

/* The rules of one game, as the search (probe/tb_search.h) and the root
 * probes use them.
 * Every move list is in the order python-chess tries the moves (the order
 * decides which table a search needs first, and so whether a set missing
 * some tables answers). */
typedef struct tb_rules {
    /* Captures a WDL search resolves before reading the table (en
     * passant aside). */
    int (*gen_captures)(const tb_pos *pos, tb_move *moves);
    /* The en-passant captures that may beat the table's value (none where
     * the variant's tables already count them). */
    int (*gen_ep)(const tb_pos *pos, tb_move *moves);
    /* Every legal move is an en-passant capture (or there is none). */
    int (*only_ep_moves)(const tb_pos *pos);
    /* Pawn moves that capture nothing (they zero the clock). */
    int (*gen_pawn_pushes)(const tb_pos *pos, tb_move *moves);
    /* Piece moves that capture nothing. */
    int (*gen_piece_quiets)(const tb_pos *pos, tb_move *moves);
    int (*gen_all)(const tb_pos *pos, tb_move *moves);
    void (*do_move)(const tb_pos *pos, tb_move m, tb_pos *child);
    int (*is_checkmate)(const tb_pos *pos);
    /* The value without a table, where the game is over or cannot be won
     * (bare kings): RETURN 1 and *wdl set, else 0. */
    int (*decided)(const tb_pos *pos, int *wdl);
    /* Captures are compulsory (the antichess family): the WDL search is
     * python-chess's sprobe_ab, with the threats of a capture. */
    int compulsory_captures;
    /*
     * What the probes of tb_probe.c can do beyond the search, 1 where they
     * can (standard chess: those parts are written for its moves and
     * checked against python-chess's standard-chess answers), 0 where the
     * game answers without them, as python-chess's variant probes do:
     *
     * marks_mate_in_one    a DTZ of 1 the table stores rounded (1 or 2
     *                      plies) is exact where a move mates
     * settles_clock_edge   the root probes settle a move whose rounded DTZ
     *                      is exactly the plies the clock leaves by a
     *                      search (settle_edge_moves), and the root's own
     *                      outcome there by its best move's
     * dtz_floor_search     the DTZ search may stop once the loss is known
     *                      to be longer than a floor (tb_chess_probe_dtz_no_ep)
     * indexes_from_pieces  well-formed pieces are enough to locate a
     *                      position in its table (the batch order key)
     */
    int marks_mate_in_one;
    int settles_clock_edge;
    int dtz_floor_search;
    int indexes_from_pieces;
} tb_rules;

#endif /* PYFATHOM_TB_RULES_H */
