/*
 * tchess.h - a small, slow, independent chess model for the C tests.
 *
 * The self-consistency checks must not trust the core's move generator, so
 * this header has its own: a 64-square mailbox, ray-walking attacks, legal
 * moves by "make, then see whether the own king is attacked".  It is written
 * for clarity, not speed, and shares no code with src/fathom/.
 *
 * Squares 0 = a1 ... 63 = h8.  Pieces: +type for white, -type for black,
 * with python-chess's types 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen,
 * 6 king.  turn: 1 = white to move, 0 = black.
 */
#ifndef PYFATHOM_TESTS_TCHESS_H
#define PYFATHOM_TESTS_TCHESS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { T_PAWN = 1, T_KNIGHT, T_BISHOP, T_ROOK, T_QUEEN, T_KING };

typedef struct tpos {
    int8_t sq[64]; /* 0 empty, +type white, -type black */
    int ep;        /* en-passant target square after a double push, else 0 */
    int turn;      /* 1 white, 0 black */
} tpos;

typedef struct tmove {
    uint8_t from, to, promo; /* promo: 0 or piece type 2..5 */
    uint8_t capture;         /* a piece is taken (en passant included) */
    uint8_t pawn;            /* a pawn moves */
    uint8_t ep;              /* en-passant capture */
} tmove;

#define T_MAX_MOVES 256

static inline int t_file(int s) { return s & 7; }
static inline int t_rank(int s) { return s >> 3; }

static inline int t_on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

static const int T_KNIGHT_D[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                     {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
static const int T_KING_D[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1},
                                   {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
static const int T_DIAG_D[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
static const int T_ORTH_D[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static inline int t_color_of(int8_t p) { return p > 0 ? 1 : 0; }

/* Is square s attacked by a piece of colour `by`? */
static inline int t_attacked(const tpos *p, int s, int by)
{
    int f = t_file(s), r = t_rank(s), i;
    int sign = by ? 1 : -1;
    /* Pawns: a white pawn on (f+-1, r-1) attacks s. */
    int pr = by ? r - 1 : r + 1;
    for (i = -1; i <= 1; i += 2)
        if (t_on_board(f + i, pr) && p->sq[pr * 8 + f + i] == sign * T_PAWN)
            return 1;
    for (i = 0; i < 8; i++) {
        int nf = f + T_KNIGHT_D[i][0], nr = r + T_KNIGHT_D[i][1];
        if (t_on_board(nf, nr) && p->sq[nr * 8 + nf] == sign * T_KNIGHT)
            return 1;
        nf = f + T_KING_D[i][0];
        nr = r + T_KING_D[i][1];
        if (t_on_board(nf, nr) && p->sq[nr * 8 + nf] == sign * T_KING)
            return 1;
    }
    for (i = 0; i < 4; i++) {
        int k;
        for (k = 0; k < 2; k++) {
            const int(*d)[2] = k ? T_DIAG_D : T_ORTH_D;
            int slider = k ? T_BISHOP : T_ROOK;
            int nf = f + d[i][0], nr = r + d[i][1];
            while (t_on_board(nf, nr)) {
                int8_t q = p->sq[nr * 8 + nf];
                if (q) {
                    if (q == sign * slider || q == sign * T_QUEEN)
                        return 1;
                    break;
                }
                nf += d[i][0];
                nr += d[i][1];
            }
        }
    }
    return 0;
}

static inline int t_king_square(const tpos *p, int color)
{
    int s;
    for (s = 0; s < 64; s++)
        if (p->sq[s] == (color ? T_KING : -T_KING))
            return s;
    return -1;
}

/* Does the piece on square s attack square k (in the full position)? */
static inline int t_attacks_from(const tpos *p, int s, int k)
{
    int type = abs(p->sq[s]), df = t_file(k) - t_file(s), dr = t_rank(k) - t_rank(s);
    int sf, sr, f, r;
    switch (type) {
    case T_PAWN:
        return abs(df) == 1 && dr == (p->sq[s] > 0 ? 1 : -1);
    case T_KNIGHT:
        return (abs(df) == 1 && abs(dr) == 2) || (abs(df) == 2 && abs(dr) == 1);
    case T_KING:
        return abs(df) <= 1 && abs(dr) <= 1 && (df || dr);
    default:
        break;
    }
    if (!df && !dr)
        return 0;
    if (df && dr && abs(df) != abs(dr))
        return 0;
    if ((df && dr) ? type == T_ROOK : type == T_BISHOP)
        return 0;
    sf = (df > 0) - (df < 0);
    sr = (dr > 0) - (dr < 0);
    for (f = t_file(s) + sf, r = t_rank(s) + sr; r * 8 + f != k; f += sf, r += sr)
        if (p->sq[r * 8 + f])
            return 0;
    return 1;
}

/* Number of pieces giving check to the side to move. */
static inline int t_checkers(const tpos *p)
{
    int k = t_king_square(p, p->turn), s, n = 0;
    for (s = 0; s < 64; s++)
        if (p->sq[s] && t_color_of(p->sq[s]) != p->turn && t_attacks_from(p, s, k))
            n++;
    return n;
}

static inline int t_in_check(const tpos *p)
{
    int k = t_king_square(p, p->turn);
    return k >= 0 && t_attacked(p, k, !p->turn);
}

/* Play a (pseudo-legal) move; the en-passant square is set after every
 * double push, as python-chess does. */
static inline void t_make(const tpos *p, const tmove *m, tpos *out)
{
    int8_t piece = p->sq[m->from];
    *out = *p;
    out->sq[m->from] = 0;
    if (m->ep)
        out->sq[p->turn ? m->to - 8 : m->to + 8] = 0;
    out->sq[m->to] = m->promo ? (int8_t)(p->turn ? m->promo : -m->promo) : piece;
    out->ep = 0;
    if (m->pawn && abs(m->to - m->from) == 16)
        out->ep = (m->from + m->to) / 2;
    out->turn = !p->turn;
}

static inline int t_push(tmove *list, int n, int from, int to, int promo, int cap,
                  int pawn, int ep)
{
    list[n].from = (uint8_t)from;
    list[n].to = (uint8_t)to;
    list[n].promo = (uint8_t)promo;
    list[n].capture = (uint8_t)cap;
    list[n].pawn = (uint8_t)pawn;
    list[n].ep = (uint8_t)ep;
    return n + 1;
}

static inline int t_pawn_to(tmove *list, int n, int from, int to, int cap)
{
    int r = t_rank(to), promo;
    if (r == 0 || r == 7) {
        for (promo = T_QUEEN; promo >= T_KNIGHT; promo--)
            n = t_push(list, n, from, to, promo, cap, 1, 0);
        return n;
    }
    return t_push(list, n, from, to, 0, cap, 1, 0);
}

/* All pseudo-legal moves of the side to move (no castling). */
static inline int t_gen_pseudo(const tpos *p, tmove *list)
{
    int n = 0, s, i;
    int us = p->turn, sign = us ? 1 : -1;
    for (s = 0; s < 64; s++) {
        int8_t piece = p->sq[s];
        int f = t_file(s), r = t_rank(s), type;
        if (!piece || t_color_of(piece) != us)
            continue;
        type = abs(piece);
        if (type == T_PAWN) {
            int dir = us ? 1 : -1, start = us ? 1 : 6;
            int one = s + 8 * dir;
            if (t_on_board(f, r + dir) && !p->sq[one]) {
                n = t_pawn_to(list, n, s, one, 0);
                if (r == start && !p->sq[one + 8 * dir])
                    n = t_push(list, n, s, one + 8 * dir, 0, 0, 1, 0);
            }
            for (i = -1; i <= 1; i += 2) {
                int nf = f + i, nr = r + dir, t;
                if (!t_on_board(nf, nr))
                    continue;
                t = nr * 8 + nf;
                if (p->sq[t] && t_color_of(p->sq[t]) != us)
                    n = t_pawn_to(list, n, s, t, 1);
                else if (!p->sq[t] && p->ep && t == p->ep &&
                         p->sq[t - 8 * dir] == -sign * T_PAWN)
                    n = t_push(list, n, s, t, 0, 1, 1, 1);
            }
        } else if (type == T_KNIGHT || type == T_KING) {
            const int(*d)[2] = type == T_KNIGHT ? T_KNIGHT_D : T_KING_D;
            for (i = 0; i < 8; i++) {
                int nf = f + d[i][0], nr = r + d[i][1], t;
                if (!t_on_board(nf, nr))
                    continue;
                t = nr * 8 + nf;
                if (!p->sq[t])
                    n = t_push(list, n, s, t, 0, 0, 0, 0);
                else if (t_color_of(p->sq[t]) != us)
                    n = t_push(list, n, s, t, 0, 1, 0, 0);
            }
        } else {
            int k;
            for (k = 0; k < 2; k++) {
                const int(*d)[2] = k ? T_DIAG_D : T_ORTH_D;
                if (k == 0 && type == T_BISHOP)
                    continue;
                if (k == 1 && type == T_ROOK)
                    continue;
                for (i = 0; i < 4; i++) {
                    int nf = f + d[i][0], nr = r + d[i][1];
                    while (t_on_board(nf, nr)) {
                        int t = nr * 8 + nf;
                        if (p->sq[t]) {
                            if (t_color_of(p->sq[t]) != us)
                                n = t_push(list, n, s, t, 0, 1, 0, 0);
                            break;
                        }
                        n = t_push(list, n, s, t, 0, 0, 0, 0);
                        nf += d[i][0];
                        nr += d[i][1];
                    }
                }
            }
        }
    }
    return n;
}

/* Legal moves: pseudo-legal moves that do not leave the own king attacked. */
static inline int t_gen_legal(const tpos *p, tmove *list)
{
    tmove pseudo[T_MAX_MOVES];
    int n = t_gen_pseudo(p, pseudo), i, k = 0;
    for (i = 0; i < n; i++) {
        tpos c;
        int ks;
        t_make(p, &pseudo[i], &c);
        ks = t_king_square(&c, p->turn);
        if (ks >= 0 && !t_attacked(&c, ks, !p->turn))
            list[k++] = pseudo[i];
    }
    return k;
}

static inline int t_piece_count(const tpos *p)
{
    int s, n = 0;
    for (s = 0; s < 64; s++)
        n += p->sq[s] != 0;
    return n;
}

/* Basic validity: one king each, no pawn on rank 1 or 8, the side not to
 * move is not in check. */
static inline int t_valid(const tpos *p)
{
    int s, wk = 0, bk = 0, them;
    for (s = 0; s < 64; s++) {
        if (p->sq[s] == T_KING)
            wk++;
        if (p->sq[s] == -T_KING)
            bk++;
        if (abs(p->sq[s]) == T_PAWN && (t_rank(s) == 0 || t_rank(s) == 7))
            return 0;
    }
    if (wk != 1 || bk != 1)
        return 0;
    them = !p->turn;
    return !t_attacked(p, t_king_square(p, them), p->turn);
}

/* The eight bitboards in python-chess's order. */
typedef struct tbb {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
} tbb;

static inline tbb t_bitboards(const tpos *p)
{
    tbb b;
    int s;
    memset(&b, 0, sizeof b);
    for (s = 0; s < 64; s++) {
        uint64_t bit = (uint64_t)1 << s;
        int8_t q = p->sq[s];
        if (!q)
            continue;
        if (q > 0)
            b.white |= bit;
        else
            b.black |= bit;
        switch (abs(q)) {
        case T_KING: b.kings |= bit; break;
        case T_QUEEN: b.queens |= bit; break;
        case T_ROOK: b.rooks |= bit; break;
        case T_BISHOP: b.bishops |= bit; break;
        case T_KNIGHT: b.knights |= bit; break;
        default: b.pawns |= bit; break;
        }
    }
    return b;
}

/* Colour-flipped twin: ranks mirrored, colours and side to move swapped.
 * Its value is the same for the side to move. */
static inline void t_flip(const tpos *p, tpos *out)
{
    int s;
    memset(out, 0, sizeof *out);
    for (s = 0; s < 64; s++)
        out->sq[s ^ 56] = (int8_t)-p->sq[s];
    out->ep = p->ep ? p->ep ^ 56 : 0;
    out->turn = !p->turn;
}

/* Deterministic PRNG (splitmix64). */
static inline uint64_t t_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline int t_piece_from_char(char c)
{
    int sign = (c >= 'a' && c <= 'z') ? -1 : 1;
    switch (c | 0x20) {
    case 'k': return sign * T_KING;
    case 'q': return sign * T_QUEEN;
    case 'r': return sign * T_ROOK;
    case 'b': return sign * T_BISHOP;
    case 'n': return sign * T_KNIGHT;
    case 'p': return sign * T_PAWN;
    default: return 0;
    }
}

/*
 * A random valid position with the material of a key like "KRPvKP" (white
 * first), colours swapped when `swap`.  Returns 1 on success.
 */
static inline int t_random_position(const char *key, int swap, uint64_t *rng, tpos *out)
{
    int tries;
    for (tries = 0; tries < 100000; tries++) {
        int color = 1, ok = 1;
        const char *c;
        memset(out, 0, sizeof *out);
        for (c = key; *c; c++) {
            int type, s, piece;
            if (*c == 'v') {
                color = 0;
                continue;
            }
            type = t_piece_from_char(*c);
            piece = (color ^ swap) ? type : -type;
            if (type == T_PAWN)
                s = 8 + (int)(t_rand(rng) % 48);
            else
                s = (int)(t_rand(rng) % 64);
            if (out->sq[s]) {
                ok = 0;
                break;
            }
            out->sq[s] = (int8_t)piece;
        }
        out->turn = (int)(t_rand(rng) & 1);
        if (ok && t_valid(out))
            return 1;
    }
    return 0;
}

/*
 * A random position just after a double push of the side not to move, with
 * a pawn of the side to move beside the pushed pawn (an en-passant capture
 * is pseudo-legal).  Needs pawns on both sides of the key.
 */
static inline int t_random_ep_position(const char *key, uint64_t *rng, tpos *out)
{
    int tries;
    for (tries = 0; tries < 100000; tries++) {
        tpos before;
        tmove moves[T_MAX_MOVES];
        int n, i, found = -1;
        int swap = (int)(t_rand(rng) & 1);
        if (!t_random_position(key, swap, rng, &before))
            return 0;
        n = t_gen_legal(&before, moves);
        for (i = 0; i < n; i++) {
            tpos after;
            tmove reply[T_MAX_MOVES];
            int m, j;
            if (!(moves[i].pawn && abs(moves[i].to - moves[i].from) == 16))
                continue;
            t_make(&before, &moves[i], &after);
            m = t_gen_legal(&after, reply);
            for (j = 0; j < m; j++)
                if (reply[j].ep)
                    found = i;
        }
        if (found >= 0) {
            t_make(&before, &moves[found], out);
            return 1;
        }
    }
    return 0;
}

/* Parse the board, side and en-passant fields of a FEN (castling ignored).
 * Returns 1 on success. */
static inline int t_from_fen(const char *fen, tpos *out)
{
    int r = 7, f = 0;
    const char *c = fen;
    memset(out, 0, sizeof *out);
    for (; *c && *c != ' '; c++) {
        if (*c == '/') {
            r--;
            f = 0;
        } else if (*c >= '1' && *c <= '8') {
            f += *c - '0';
        } else {
            int piece = t_piece_from_char(*c);
            if (!piece || r < 0 || f > 7)
                return 0;
            out->sq[r * 8 + f++] = (int8_t)piece;
        }
    }
    if (*c++ != ' ')
        return 0;
    out->turn = *c == 'w';
    c++;
    if (*c++ != ' ')
        return 0;
    while (*c && *c != ' ')
        c++; /* castling */
    if (*c++ != ' ')
        return 0;
    if (*c != '-' && c[0] >= 'a' && c[0] <= 'h' && c[1] >= '1' && c[1] <= '8')
        out->ep = (c[1] - '1') * 8 + (c[0] - 'a');
    return 1;
}

/* UCI text of a move ("e7e8q"); buf has room for 6 bytes. */
static inline void t_uci(const tmove *m, char *buf)
{
    static const char promo[] = " pnbrqk";
    buf[0] = (char)('a' + t_file(m->from));
    buf[1] = (char)('1' + t_rank(m->from));
    buf[2] = (char)('a' + t_file(m->to));
    buf[3] = (char)('1' + t_rank(m->to));
    buf[4] = m->promo ? promo[m->promo] : '\0';
    buf[5] = '\0';
}

#endif /* PYFATHOM_TESTS_TCHESS_H */
