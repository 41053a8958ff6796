/*
 * tb_search.c - the probing search (tb_search_body.h) compiled for
 * standard chess, with its rules as inline calls, and for the variants,
 * through their rules tables (tb_variant_rules.c); and the rules table of
 * each game, for the root probes.
 */
#include "probe/tb_search.h"
#include "rules/tb_movegen.h"

#include <limits.h>

#include "rules/tb_variant.h"

/* ---- standard chess's rules ---------------------------------------------- */

/*
 * python-chess's order of a list of legal captures or pawn pushes
 * (Board.generate_legal_moves): outside check, piece moves before pawn
 * moves; in check, king moves, then other pieces, then pawns; within a
 * group from the highest origin square down, then the highest target down
 * (promotions keep their queen, rook, bishop, knight order: the sort is
 * stable); single pawn pushes before double ones.
 *
 * The value of a probe does not depend on the order, but whether it
 * answers does: where one capture leads to a missing table and another
 * wins outright, python-chess raises or answers depending on which it
 * tries first (its alpha-beta stops at the win).  Positions with more
 * pieces than the loaded tables meet this all the time, so the searches
 * that can stop early (probe_ab, the winning pawn pushes) take the moves
 * in python-chess's order.  A handful of moves: insertion sort.
 */
static void order_as_python_chess(const tb_pos *pos, tb_move *moves, int n)
{
    if (n < 2)
        return;
    int in_check = -1; /* computed only when a king move is in the list */
    unsigned keys[TB_MAX_LEGAL];
    for (int i = 0; i < n; i++) {
        const tb_move *m = &moves[i];
        unsigned group;
        if (m->piece == TB_PAWN) {
            group = 2 + ((m->flags & TB_MOVE_DOUBLE) != 0);
        } else if (m->piece == TB_KING) {
            if (in_check < 0)
                in_check = tb_in_check(pos);
            group = in_check ? 0 : 1;
        } else {
            group = 1;
        }
        keys[i] = group << 12 | (unsigned)(63 - m->from) << 6 | (unsigned)(63 - m->to);
    }
    for (int i = 1; i < n; i++) {
        tb_move m = moves[i];
        unsigned key = keys[i];
        int j = i;
        while (j > 0 && keys[j - 1] > key) {
            moves[j] = moves[j - 1];
            keys[j] = keys[j - 1];
            j--;
        }
        moves[j] = m;
        keys[j] = key;
    }
}

static inline int chess_gen_captures(const tb_pos *pos, tb_move *moves)
{
    int n = tb_gen_legal(pos, TB_GEN_CAPTURES, moves);
    order_as_python_chess(pos, moves, n);
    return n;
}

/* Highest capturing pawn first, as python-chess (the first missing table
 * met is the one named). */
static inline int chess_gen_ep(const tb_pos *pos, tb_move *moves)
{
    int n = tb_gen_legal(pos, TB_GEN_EP, moves);
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        tb_move m = moves[i];
        moves[i] = moves[j];
        moves[j] = m;
    }
    return n;
}

static inline int chess_only_ep_moves(const tb_pos *pos)
{
    return !tb_has_legal(pos, TB_GEN_ALL & ~TB_GEN_EP);
}

static inline int chess_gen_pawn_pushes(const tb_pos *pos, tb_move *moves)
{
    int n = tb_gen_legal(pos, TB_GEN_PAWN_PUSHES, moves);
    order_as_python_chess(pos, moves, n);
    return n;
}

static inline int chess_gen_piece_quiets(const tb_pos *pos, tb_move *moves)
{
    return tb_gen_legal(pos, TB_GEN_PIECE_QUIETS, moves);
}

static inline int chess_gen_all(const tb_pos *pos, tb_move *moves)
{
    return tb_gen_legal(pos, TB_GEN_ALL, moves);
}

static inline void chess_do_move(const tb_pos *pos, tb_move m, tb_pos *child)
{
    tb_do_move(pos, m, child);
}

static inline int chess_is_checkmate(const tb_pos *pos)
{
    return tb_is_checkmate(pos);
}

/* Bare kings draw; otherwise the table decides. */
static inline int chess_decided(const tb_pos *pos, int *wdl)
{
    if (!tb_only_kings(pos))
        return 0;
    *wdl = 0;
    return 1;
}

/* The search named in it is defined below, over these rules inline. */
static const tb_rules chess_rules = {
    chess_gen_captures, chess_gen_ep,       chess_only_ep_moves,
    chess_gen_pawn_pushes, chess_gen_piece_quiets, chess_gen_all,
    chess_do_move,      chess_is_checkmate, chess_decided,
    0,
    /* marks_mate_in_one, settles_clock_edge, dtz_floor_search,
     * indexes_from_pieces: positional, as C++11 has no designators */
    1, 1, 1, 1,
};

/* ---- the search for standard chess: every rule an inline call ------------ */

#define SEARCH(name) chess_##name
#define RULE(pr, op) chess_##op
#define SEARCH_MAY_COMPEL 0
#define SEARCH_LICHESS_FLAG(pr) ((pr)->as_stored)
#include "probe/tb_search_body.h"
#undef SEARCH_LICHESS_FLAG
#undef SEARCH_MAY_COMPEL
#undef RULE
#undef SEARCH

int tb_chess_probe_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    return chess_probe_wdl(pr, pos, wdl);
}

int tb_chess_wdl_split(probe *pr, const tb_pos *pos, int *wdl, const tb_table **table,
                       tb_key *key)
{
    int cut;
    *wdl = -2;
    *table = NULL;
    int status = chess_capture_alpha(pr, pos, wdl, 2, &cut);
    if (status != FATHOM_OK || cut)
        return status;
    int decided;
    if (chess_decided(pos, &decided)) {
        if (decided > *wdl)
            *wdl = decided;
        return FATHOM_OK;
    }
    tb_entry *e = NULL;
    status = chess_wdl_entry(pr, pos, &e, key);
    if (status == FATHOM_OK)
        *table = &e->wdl.table;
    return status;
}

int tb_chess_probe_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    return chess_probe_dtz(pr, pos, dtz, precise);
}

int tb_chess_probe_dtz_no_ep(probe *pr, const tb_pos *pos, int floor, int *dtz,
                             int *precise)
{
    return chess_probe_dtz_no_ep(pr, pos, floor, dtz, precise);
}

/* ---- the search for the variants: rules from the instance's table -------- */

#define SEARCH(name) variant_##name
#define RULE(pr, op) tb_rules_of((pr)->tb)->op
#define SEARCH_MAY_COMPEL 1
/* Variants keep pyfathom's flag: lichess's rule is shakmaty-syzygy's
 * standard-chess move order, not checked against its variant rules. */
#define SEARCH_LICHESS_FLAG(pr) 0
#include "probe/tb_search_body.h"
#undef SEARCH_LICHESS_FLAG
#undef SEARCH_MAY_COMPEL
#undef RULE
#undef SEARCH

int tb_variant_search_wdl(probe *pr, const tb_pos *pos, int *wdl)
{
    return variant_probe_wdl(pr, pos, wdl);
}

int tb_variant_search_dtz(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    return variant_probe_dtz(pr, pos, dtz, precise);
}

const tb_rules *tb_rules_of(const fathom_tb *tb)
{
    return tb->consts.variant ? tb_variant_rules(tb->consts.variant) : &chess_rules;
}
