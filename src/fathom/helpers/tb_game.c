/*
 * tb_game.c - replaying a game's SAN moves as python-chess 1.11.2 reads
 * them, and probing the positions the tables cover (see fathom.h,
 * fathom_game_replay).
 *
 * A PGN annotator spends most of its time letting python-chess parse and
 * push every move of every game, although it only needs the tablebase
 * positions at the end.  This file does that part in C.  It has to pick
 * exactly the move python-chess's Board.parse_san picks and make it exactly
 * as Board.push makes it, so it follows their rules rather than the rules
 * of chess alone where the two could differ:
 *
 * - a token is split into (piece, file, rank, target, promotion) by the
 *   same backtracking python-chess's SAN_REGEX does (an "x" or "-" is not
 *   checked, "=" is optional, a promotion letter may be lower case);
 * - without a piece letter it is a pawn move, from the target's file unless
 *   a file is given; the move must be the only legal one that matches, the
 *   promotion included (python-chess's AmbiguousMoveError otherwise);
 * - "O-O", "0-0" (and with "-O", "-0") castle as python-chess's
 *   generate_castling_moves allows: the king's path and target square
 *   not attacked with the occupancy it uses, rights cleaned before the
 *   first move of the game only (python-chess trusts them afterwards);
 * - push: castling rights lose the squares a move touches and the king's
 *   rank when the king moves, the en-passant square is set after every
 *   double push, the halfmove clock restarts on pawn moves and captures,
 *   the fullmove number grows after black's move, and the promoted mask
 *   follows promoted pieces.
 *
 * Everything else (null moves, drops, moves given by both squares, which
 * python-chess resolves through find_move, a start position it would not
 * call valid) stops the replay: the caller reads that game with
 * python-chess, so an answer from here is never a guess.
 */
#include "fathom_helpers.h"
#include "probe/tb_probe.h"
#include "rules/tb_chess.h"

#include <string.h>

#define GAME_SQ(file, rank) ((rank) * 8 + (file))
#define GAME_BIT(sq) (1ULL << (sq))

typedef struct game_state {
    tb_pos pos;        /* pieces, en passant, side to move (rule50 unused) */
    uint64_t promoted; /* python-chess's Board.promoted */
    uint64_t castling; /* python-chess's Board.castling_rights */
    uint32_t halfmove, fullmove;
    uint32_t pushed;   /* moves made: python-chess cleans rights before the first */
} game_state;

/* A move as python-chess's Board.push receives it internally: a castling
 * move goes from the king to its rook (python-chess's _to_chess960). */
typedef struct game_move {
    uint8_t from, to, promotion;
    uint8_t castles;    /* 1: `to` is the rook's square */
    uint16_t recorded;  /* from | to << 6 | promotion << 12, as python-chess's Move */
} game_move;

static uint64_t game_occupied(const game_state *g)
{
    return g->pos.color[TB_WHITE] | g->pos.color[TB_BLACK];
}

static int game_piece_at(const tb_pos *pos, int sq)
{
    for (int t = TB_PAWN; t <= TB_KING; t++)
        if (pos->type[t] & GAME_BIT(sq))
            return t;
    return 0;
}

/* python-chess's _remove_piece_at: the type that stood there (0: none). */
static int game_remove_piece(game_state *g, int sq)
{
    int t = game_piece_at(&g->pos, sq);
    uint64_t mask = ~GAME_BIT(sq);
    if (t)
        g->pos.type[t] &= mask;
    g->pos.color[TB_WHITE] &= mask;
    g->pos.color[TB_BLACK] &= mask;
    g->promoted &= mask;
    return t;
}

/* python-chess's _set_piece_at. */
static void game_set_piece(game_state *g, int sq, int type, int color, int promoted)
{
    game_remove_piece(g, sq);
    g->pos.type[type] |= GAME_BIT(sq);
    g->pos.color[color] |= GAME_BIT(sq);
    if (promoted)
        g->promoted |= GAME_BIT(sq);
}

/* python-chess's clean_castling_rights() for standard chess. */
static uint64_t game_clean_castling(const game_state *g)
{
    if (g->pushed)
        return g->castling;
    const tb_pos *p = &g->pos;
    uint64_t rights = g->castling & p->type[TB_ROOK];
    uint64_t white = rights & TB_RANK_1 & p->color[TB_WHITE] & (GAME_BIT(0) | GAME_BIT(7));
    uint64_t black = rights & TB_RANK_8 & p->color[TB_BLACK] & (GAME_BIT(56) | GAME_BIT(63));
    uint64_t kings = p->type[TB_KING] & ~g->promoted;
    if (!(p->color[TB_WHITE] & kings & GAME_BIT(4)))
        white = 0;
    if (!(p->color[TB_BLACK] & kings & GAME_BIT(60)))
        black = 0;
    return white | black;
}

/* The side to move's king is not attacked after the (non-castling) move. */
static int game_king_safe(const tb_pos *pos, tb_move m)
{
    tb_pos child;
    tb_do_move(pos, m, &child);
    uint64_t occ = child.color[0] | child.color[1];
    uint64_t king = child.type[TB_KING] & child.color[pos->turn];
    return tb_attackers(&child, bb_lsb(king), child.turn, occ) == 0;
}

/* Any of the squares of `path` attacked by the side not to move, with
 * `occ` as the blockers (python-chess's _attacked_for_king). */
static int game_attacked(const tb_pos *pos, uint64_t path, uint64_t occ)
{
    for (; path; path &= path - 1)
        if (tb_attackers(pos, bb_lsb(path), !pos->turn, occ))
            return 1;
    return 0;
}

/* Squares strictly between two squares of one rank. */
static uint64_t game_between(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return (GAME_BIT(hi) - 1) & ~(GAME_BIT(lo + 1) - 1);
}

/*
 * Castling as python-chess's parse_san finds it: the first move of
 * generate_castling_moves() on the wanted side.  Returns 1 (found), 0
 * (python-chess finds none: IllegalMoveError) or -1 (rights that standard
 * play cannot leave: not followed here).
 */
static int game_find_castling(const game_state *g, int kingside, game_move *out)
{
    const tb_pos *p = &g->pos;
    int us = p->turn;
    uint64_t backrank = us == TB_WHITE ? TB_RANK_1 : TB_RANK_8;
    uint64_t king = p->color[us] & p->type[TB_KING] & ~g->promoted & backrank;
    king &= 0 - king;
    if (!king)
        return 0;
    uint64_t rights = game_clean_castling(g) & backrank;
    if (!rights)
        return 0;
    int king_sq = bb_lsb(king), home = us == TB_WHITE ? 4 : 60;
    uint64_t corners = us == TB_WHITE ? GAME_BIT(0) | GAME_BIT(7) : GAME_BIT(56) | GAME_BIT(63);
    uint64_t rooks = p->type[TB_ROOK] & p->color[us] & ~g->promoted;
    if (king_sq != home || (rights & ~corners) || (rights & ~rooks))
        return -1;
    uint64_t occ = game_occupied(g);
    /* python-chess scans the rights from the highest square down and keeps
     * the first move on the wanted side: the h-rook for O-O, the a-rook
     * for O-O-O (each side has one corner). */
    int rook_sq = kingside ? home + 3 : home - 4;
    if (!(rights & GAME_BIT(rook_sq)))
        return 0;
    uint64_t rook = GAME_BIT(rook_sq);
    int king_to = kingside ? home + 2 : home - 2;
    int rook_to = kingside ? home + 1 : home - 1;
    uint64_t king_path = game_between(king_sq, king_to);
    uint64_t rook_path = game_between(rook_sq, rook_to);
    if ((occ ^ king ^ rook) & (king_path | rook_path | GAME_BIT(king_to) | GAME_BIT(rook_to)))
        return 0;
    if (game_attacked(p, king_path | king, occ ^ king) ||
        game_attacked(p, GAME_BIT(king_to), occ ^ king ^ rook ^ GAME_BIT(rook_to)))
        return 0;
    out->from = (uint8_t)king_sq;
    out->to = (uint8_t)rook_sq;
    out->promotion = 0;
    out->castles = 1;
    out->recorded = (uint16_t)(king_sq | king_to << 6);
    return 1;
}

/* ---- SAN tokens ------------------------------------------------------------ */

typedef struct game_san {
    int piece;     /* 0: none given, else TB_KNIGHT .. TB_KING */
    int file;      /* -1: none given */
    int rank;      /* -1: none given */
    int to;
    int promotion; /* 0: none given, else TB_KNIGHT .. TB_KING */
} game_san;

/* SAN names every piece but the pawn by its letter. */
static int san_piece_letter(char c)
{
    int type = tb_piece_of_letter(c);
    return type == TB_PAWN ? 0 : type;
}

static int san_promotion_letter(char c)
{
    if (c >= 'a' && c <= 'z')
        c = (char)(c - 'a' + 'A');
    return san_piece_letter(c);
}

static int san_is_file(char c) { return c >= 'a' && c <= 'h'; }
static int san_is_rank(char c) { return c >= '1' && c <= '8'; }

/*
 * Split a token as python-chess's
 *   SAN_REGEX = ^([NBKRQ])?([a-h])?([1-8])?[\-x]?([a-h][1-8])(=?[nbrqkNBRQK])?[\+#]?\Z
 * does: each optional part is tried present first, in order, and the first
 * split that reaches the end wins (the regex engine's backtracking order).
 * Returns 1 and fills *out on a match.
 */
static int san_split(const char *t, size_t n, game_san *out)
{
    for (int with_piece = 1; with_piece >= 0; with_piece--) {
        size_t i0 = 0;
        if (with_piece) {
            if (n < 1 || !san_piece_letter(t[0]))
                continue;
            i0 = 1;
        }
        for (int with_file = 1; with_file >= 0; with_file--) {
            size_t i1 = i0;
            if (with_file) {
                if (i1 >= n || !san_is_file(t[i1]))
                    continue;
                i1++;
            }
            for (int with_rank = 1; with_rank >= 0; with_rank--) {
                size_t i2 = i1;
                if (with_rank) {
                    if (i2 >= n || !san_is_rank(t[i2]))
                        continue;
                    i2++;
                }
                for (int with_sep = 1; with_sep >= 0; with_sep--) {
                    size_t i3 = i2;
                    if (with_sep) {
                        if (i3 >= n || (t[i3] != '-' && t[i3] != 'x'))
                            continue;
                        i3++;
                    }
                    if (i3 + 2 > n || !san_is_file(t[i3]) || !san_is_rank(t[i3 + 1]))
                        continue;
                    size_t i4 = i3 + 2;
                    /* (=?[nbrqkNBRQK])?: with "=", without, absent. */
                    for (int form = 0; form < 3; form++) {
                        size_t i5 = i4;
                        int promotion = 0;
                        if (form == 0) {
                            if (i5 + 2 > n || t[i5] != '=' || !san_promotion_letter(t[i5 + 1]))
                                continue;
                            promotion = san_promotion_letter(t[i5 + 1]);
                            i5 += 2;
                        } else if (form == 1) {
                            if (i5 >= n || !san_promotion_letter(t[i5]))
                                continue;
                            promotion = san_promotion_letter(t[i5]);
                            i5++;
                        }
                        /* [\+#]?\Z */
                        if (!(i5 == n || (i5 + 1 == n && (t[i5] == '+' || t[i5] == '#'))))
                            continue;
                        out->piece = with_piece ? san_piece_letter(t[0]) : 0;
                        out->file = with_file ? t[i0] - 'a' : -1;
                        out->rank = with_rank ? t[i1] - '1' : -1;
                        out->to = GAME_SQ(t[i3] - 'a', t[i3 + 1] - '1');
                        out->promotion = promotion;
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

static int san_token_is(const char *t, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(t, word, n) == 0;
}

/* 1: kingside castling, 2: queenside, 0: neither (python-chess's lists). */
static int san_castling(const char *t, size_t n)
{
    static const char *const king_side[] = {"O-O", "O-O+", "O-O#", "0-0", "0-0+", "0-0#"};
    static const char *const queen_side[] = {"O-O-O", "O-O-O+", "O-O-O#",
                                             "0-0-0", "0-0-0+", "0-0-0#"};
    for (int i = 0; i < 6; i++) {
        if (san_token_is(t, n, king_side[i]))
            return 1;
        if (san_token_is(t, n, queen_side[i]))
            return 2;
    }
    return 0;
}

typedef struct game_matches {
    int count;
    game_move move;
} game_matches;

/* Count a legal candidate whose promotion is the token's. */
static void game_consider(const tb_pos *pos, tb_move m, int promotion, game_matches *found)
{
    if (m.promo != promotion || !game_king_safe(pos, m))
        return;
    if (found->count++ == 0) {
        found->move.from = m.from;
        found->move.to = m.to;
        found->move.promotion = m.promo;
        found->move.castles = 0;
        found->move.recorded = (uint16_t)(m.from | m.to << 6 | m.promo << 12);
    }
}

static void game_consider_pawn(const tb_pos *pos, tb_move m, int promotion, game_matches *found)
{
    if (GAME_BIT(m.to) & (TB_RANK_1 | TB_RANK_8)) {
        /* python-chess generates the four promotions; one can match. */
        if (promotion >= TB_KNIGHT && promotion <= TB_QUEEN) {
            m.promo = (uint8_t)promotion;
            game_consider(pos, m, promotion, found);
        }
        return;
    }
    game_consider(pos, m, promotion, found);
}

/*
 * python-chess's parse_san for a token SAN_REGEX accepts, without a "both
 * squares given" pawn-less form.  Returns 1 (move found), 0 (illegal), 2
 * (ambiguous) or -1 (a form not followed here).
 */
static int game_resolve_san(const game_state *g, const game_san *s, game_move *out)
{
    const tb_pos *p = &g->pos;
    int us = p->turn;
    uint64_t ours = p->color[us], theirs = p->color[!us], occ = ours | theirs;
    uint64_t to_mask = GAME_BIT(s->to) & ~ours;
    uint64_t from_mask = ~0ULL;
    if (s->file >= 0)
        from_mask &= TB_FILE_A << s->file;
    if (s->rank >= 0)
        from_mask &= TB_RANK_1 << (8 * s->rank);
    game_matches found = {0, {0, 0, 0, 0, 0}};
    if (!to_mask)
        return 0;

    if (s->piece) {
        uint64_t movers = from_mask & ours & p->type[s->piece];
        for (; movers; movers &= movers - 1) {
            int from = bb_lsb(movers);
            if (!(bb_piece_attacks(s->piece, from, occ) & to_mask))
                continue;
            tb_move m = {(uint8_t)from, (uint8_t)s->to, (uint8_t)s->piece, 0,
                         (uint8_t)(theirs & to_mask ? TB_MOVE_CAPTURE : 0)};
            game_consider(p, m, s->promotion, &found);
        }
    } else if (s->file >= 0 && s->rank >= 0) {
        return -1; /* python-chess's find_move: not followed here */
    } else {
        if (s->file < 0)
            from_mask &= TB_FILE_A << (s->to & 7);
        uint64_t pawns = from_mask & ours & p->type[TB_PAWN];
        int step = us == TB_WHITE ? 8 : -8;
        for (; pawns; pawns &= pawns - 1) {
            int from = bb_lsb(pawns);
            if (bb_pawn_attacks(from, us) & theirs & to_mask) {
                tb_move m = {(uint8_t)from, (uint8_t)s->to, TB_PAWN, 0,
                             TB_MOVE_CAPTURE | TB_MOVE_PAWN};
                game_consider_pawn(p, m, s->promotion, &found);
            }
            /* En passant: python-chess's generate_pseudo_legal_ep. */
            if (p->ep && (to_mask & GAME_BIT(p->ep)) && !(occ & GAME_BIT(p->ep)) &&
                (bb_pawn_attacks(from, us) & GAME_BIT(p->ep)) &&
                (from >> 3) == (us == TB_WHITE ? 4 : 3)) {
                tb_move m = {(uint8_t)from, p->ep, TB_PAWN, 0,
                             TB_MOVE_CAPTURE | TB_MOVE_PAWN | TB_MOVE_EP};
                game_consider(p, m, s->promotion, &found);
            }
            int one = from + step;
            if (one < 0 || one > 63 || (occ & GAME_BIT(one)))
                continue;
            if (to_mask & GAME_BIT(one)) {
                tb_move m = {(uint8_t)from, (uint8_t)one, TB_PAWN, 0, TB_MOVE_PAWN};
                game_consider_pawn(p, m, s->promotion, &found);
            }
            int two = one + step;
            if ((from >> 3) == (us == TB_WHITE ? 1 : 6) && !(occ & GAME_BIT(two)) &&
                (to_mask & GAME_BIT(two))) {
                tb_move m = {(uint8_t)from, (uint8_t)two, TB_PAWN, 0,
                             TB_MOVE_PAWN | TB_MOVE_DOUBLE};
                game_consider(p, m, s->promotion, &found);
            }
        }
    }
    if (found.count > 1)
        return 2;
    if (found.count == 0)
        return 0;
    *out = found.move;
    return 1;
}

/* ---- pushing ---------------------------------------------------------------- */

/* python-chess's Board.push for a legal move of standard chess. */
static void game_push(game_state *g, const game_move *m)
{
    tb_pos *p = &g->pos;
    int us = p->turn;
    uint64_t from_bb = GAME_BIT(m->from), to_bb = GAME_BIT(m->to);

    g->castling = game_clean_castling(g);
    int ep = p->ep;
    p->ep = 0;
    g->halfmove++;
    if (us == TB_BLACK)
        g->fullmove++;
    uint64_t touched = from_bb ^ to_bb;
    if ((touched & p->type[TB_PAWN]) || (touched & p->color[!us]))
        g->halfmove = 0;

    int promoted = (g->promoted & from_bb) != 0;
    int piece = game_remove_piece(g, m->from);
    int capture_sq = m->to;
    int captured = game_piece_at(p, capture_sq);

    g->castling &= ~to_bb & ~from_bb;
    if (piece == TB_KING && !promoted) {
        g->castling &= us == TB_WHITE ? ~TB_RANK_1 : ~TB_RANK_8;
    } else if (captured == TB_KING && !(g->promoted & to_bb)) {
        if (us == TB_WHITE && (m->to >> 3) == 7)
            g->castling &= ~TB_RANK_8;
        else if (us == TB_BLACK && (m->to >> 3) == 0)
            g->castling &= ~TB_RANK_1;
    }

    if (piece == TB_PAWN) {
        int diff = m->to - m->from;
        if (diff == 16 && (m->from >> 3) == 1) {
            p->ep = (uint8_t)(m->from + 8);
        } else if (diff == -16 && (m->from >> 3) == 6) {
            p->ep = (uint8_t)(m->from - 8);
        } else if (m->to == ep && ep && (diff == 7 || diff == 9 || diff == -7 || diff == -9) &&
                   !captured) {
            capture_sq = ep + (us == TB_WHITE ? -8 : 8);
            game_remove_piece(g, capture_sq);
        }
    }
    if (m->promotion) {
        promoted = 1;
        piece = m->promotion;
    }
    if (piece == TB_KING && (p->color[us] & to_bb)) {
        int a_side = (m->to & 7) < (m->from & 7);
        int rank = us == TB_WHITE ? 0 : 56;
        game_remove_piece(g, m->from);
        game_remove_piece(g, m->to);
        game_set_piece(g, rank + (a_side ? 2 : 6), TB_KING, us, 0);
        game_set_piece(g, rank + (a_side ? 3 : 5), TB_ROOK, us, 0);
    } else {
        game_set_piece(g, m->to, piece, us, promoted);
    }
    p->turn = (uint8_t)!us;
    g->pushed++;
}

/* ---- the replay --------------------------------------------------------------- */

/* A start position python-chess reads as this replay does (see below). */
static int game_start_valid(const fathom_game_position *s, game_state *g)
{
    if (s->turn > 1 || s->ep > 63)
        return 0;
    /* tb_pos_from_bitboards: disjoint masks, one king a side, no pawn on
     * the back ranks, a valid en-passant square, the side not to move not
     * in check, no impossible check. */
    if (!tb_pos_from_bitboards(&g->pos, s->white, s->black, s->kings, s->queens, s->rooks,
                               s->bishops, s->knights, s->pawns, s->ep, s->turn))
        return 0;
    if (s->promoted & (s->kings | s->pawns | ~(s->white | s->black)))
        return 0;
    /* Counters that cannot overflow in any replay of < 2**31 moves. */
    if (s->halfmove > 0x7fffffffu || s->fullmove > 0x7fffffffu)
        return 0;
    g->promoted = s->promoted;
    g->castling = s->castling;
    g->halfmove = s->halfmove;
    g->fullmove = s->fullmove;
    g->pushed = 0;
    return 1;
}

static void game_record(const game_state *g, fathom_game_position *r)
{
    const tb_pos *p = &g->pos;
    r->white = p->color[TB_WHITE];
    r->black = p->color[TB_BLACK];
    r->kings = p->type[TB_KING];
    r->queens = p->type[TB_QUEEN];
    r->rooks = p->type[TB_ROOK];
    r->bishops = p->type[TB_BISHOP];
    r->knights = p->type[TB_KNIGHT];
    r->pawns = p->type[TB_PAWN];
    r->promoted = g->promoted;
    r->castling = g->castling;
    r->halfmove = g->halfmove;
    r->fullmove = g->fullmove;
    r->ep = p->ep;
    r->turn = p->turn;
    r->move = 0;
    r->dtz = 0;
}

/* Records probed together, their reads asked for first. */
#define GAME_PROBE_CHUNK 64

static void game_probe_chunk(fathom_tb *tb, fathom_game_position *r, size_t n, int ask)
{
    if (ask) {
        tb_pos pos[GAME_PROBE_CHUNK];
        size_t valid = 0;
        for (size_t i = 0; i < n; i++)
            valid += (size_t)tb_pos_from_bitboards(
                &pos[valid], r[i].white, r[i].black, r[i].kings, r[i].queens, r[i].rooks,
                r[i].bishops, r[i].knights, r[i].pawns, r[i].ep, r[i].turn);
        tb_prefetch_positions(tb, pos, valid);
    }
    for (size_t i = 0; i < n; i++)
        r[i].dtz = fathom_probe_dtz_lean(tb, r[i].white, r[i].black, r[i].queens, r[i].rooks,
                                         r[i].bishops, r[i].knights, r[i].pawns, r[i].ep,
                                         r[i].turn);
}

/* The DTZ of records r[0 .. n) (the game's positions within the tables,
 * in order).  Probed one after another, each would wait for its table
 * reads in turn on tables not in memory; so where the instance's
 * read-ahead mode says so (tb_prefetch_decide: as for a root probe), the
 * reads of a chunk of them are asked for together first. */
static void game_probe(fathom_tb *tb, fathom_game_position *r, size_t n)
{
    if (n == 0)
        return;
    if (tb == NULL) {
        for (size_t i = 0; i < n; i++)
            r[i].dtz = FATHOM_LEAN_FAILED + FATHOM_ERR_ARGUMENT;
        return;
    }
    tb_prefetch_watch watch;
    int ask = tb_prefetch_decide(tb, tb_popcount(r[0].white | r[0].black), &watch);
    for (size_t done = 0; done < n; done += GAME_PROBE_CHUNK)
        game_probe_chunk(tb, r + done, n - done < GAME_PROBE_CHUNK ? n - done : GAME_PROBE_CHUNK,
                         ask);
    tb_prefetch_end(tb, &watch);
}

/* The next space-separated token of sans[*at .. len), or 0 at the end. */
static int san_next_token(const char *sans, size_t len, size_t *at, const char **t, size_t *n)
{
    size_t i = *at;
    while (i < len && sans[i] == ' ')
        i++;
    if (i >= len)
        return 0;
    size_t j = i;
    while (j < len && sans[j] != ' ')
        j++;
    *t = sans + i;
    *n = j - i;
    *at = j;
    return 1;
}

/* Read one token into a move (fathom_game_stop on failure). */
static int game_read_move(const game_state *g, const char *t, size_t n, game_move *m)
{
    int side = san_castling(t, n);
    int found;
    if (side) {
        found = game_find_castling(g, side == 1, m);
    } else {
        game_san s;
        if (!san_split(t, n, &s))
            return FATHOM_GAME_STOP_TOKEN; /* null moves, drops, unknown */
        found = game_resolve_san(g, &s, m);
    }
    if (found == 1)
        return FATHOM_GAME_DONE;
    if (found == 0)
        return FATHOM_GAME_STOP_ILLEGAL;
    if (found == 2)
        return FATHOM_GAME_STOP_AMBIGUOUS;
    return FATHOM_GAME_STOP_TOKEN;
}

int fathom_game_replay(fathom_tb *tb, const fathom_game_position *start,
                       const char *sans, size_t len, unsigned largest,
                       unsigned flags, fathom_game_position *out, size_t cap,
                       fathom_game_summary *summary)
{
    if (summary == NULL)
        return FATHOM_GAME_STOP_ARGUMENT;
    summary->moves = 0;
    summary->first = -1;
    summary->records = 0;
    if (start == NULL || out == NULL || (sans == NULL && len))
        return FATHOM_GAME_STOP_ARGUMENT;
    game_state g;
    if (!game_start_valid(start, &g))
        return FATHOM_GAME_STOP_START;

    int record_all = (flags & FATHOM_GAME_RECORD_ALL) != 0;
    size_t at = 0, records = 0, probed_from = 0;
    uint32_t index = 0;
    int32_t first = -1;
    int stop;
    for (;;) {
        if (first < 0 && !g.castling &&
            (unsigned)tb_popcount(game_occupied(&g)) <= largest) {
            first = (int32_t)index;
            probed_from = records; /* the records from here on are probed */
        }
        const char *t = NULL;
        size_t n = 0;
        int more = san_next_token(sans, len, &at, &t, &n);
        game_move m = {0, 0, 0, 0, 0};
        stop = FATHOM_GAME_DONE;
        if (more)
            stop = game_read_move(&g, t, n, &m);
        if (first >= 0 || record_all) {
            if (records >= cap)
                stop = FATHOM_GAME_STOP_ROOM;
            else {
                game_record(&g, &out[records]);
                if (more && stop == FATHOM_GAME_DONE)
                    out[records].move = m.recorded;
                records++;
            }
        }
        summary->first = first;
        summary->records = (uint32_t)records;
        summary->moves = index;
        if (stop != FATHOM_GAME_DONE || !more)
            break;
        if (index >= 0x7fffffffu) {
            stop = FATHOM_GAME_STOP_ROOM;
            break;
        }
        game_push(&g, &m);
        index++;
    }
    if (first >= 0)
        game_probe(tb, out + probed_from, records - probed_from);
    return stop;
}
