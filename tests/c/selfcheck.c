/*
 * selfcheck.c - the tables, probed through the core's instance API, must be
 * consistent with the rules of chess as tchess.h (not the core) plays them.
 *
 *   selfcheck DIR [N4]
 *
 * Part A, every valid position of the five 3-piece tables (white holding the
 * extra piece; both sides to move):
 *   - WDL(pos) == max over legal moves of the mover's outcome of that move
 *     (mated: LOSS, stalemate: DRAW; a capture into KvK is a draw);
 *   - DTZ agrees with the children's DTZ: for a win, the minimum over moves
 *     of 1 (a winning zeroing move or a mate) or 1 + |DTZ(child)| (a quiet
 *     move to a lost child); for a loss, the maximum over moves of 1 (a
 *     zeroing move) or 1 + DTZ(child); equal when the position and the
 *     children are precise, else within one ply (the rounding the tables
 *     allow, reported by the precise flag);
 *   - the colour-flipped twin probes the same.
 * Part B, N4 (default 2000) random valid positions of each 4-piece table,
 * plus N4/4 positions with an en-passant capture for KPvKP, children probed
 * directly, the same rules, with the 50-move rule at the DTZ 100 boundary.
 *
 * Prints one line per table and "TOTAL ... failures F"; exits 1 on any
 * failure.  Mismatches are printed (first 10 per table) with the position.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fathom_helpers.h"
#include "tboard.h"

typedef struct value {
    int ok;      /* 0: the probe failed */
    int wdl;     /* -2..2 */
    int dtz;     /* signed plies */
    int precise; /* 1 if dtz is exact */
    int status;  /* status of the failed probe */
} value;

static fathom_tb *TB;

static const char *TABLES3[5] = {"KQvK", "KRvK", "KBvK", "KNvK", "KPvK"};
static const int EXTRA3[5] = {T_QUEEN, T_ROOK, T_BISHOP, T_KNIGHT, T_PAWN};

static const char *TABLES4[30] = {
    "KQQvK", "KQRvK", "KQBvK", "KQNvK", "KQPvK", "KRRvK", "KRBvK", "KRNvK",
    "KRPvK", "KBBvK", "KBNvK", "KBPvK", "KNNvK", "KNPvK", "KPPvK", "KQvKQ",
    "KQvKR", "KQvKB", "KQvKN", "KQvKP", "KRvKR", "KRvKB", "KRvKN", "KRvKP",
    "KBvKB", "KBvKN", "KBvKP", "KNvKN", "KNvKP", "KPvKP"};

static void describe(const tpos *p, char *buf)
{
    static const char letters[] = " pnbrqk";
    int r, f, n = 0, empty;
    for (r = 7; r >= 0; r--) {
        empty = 0;
        for (f = 0; f < 8; f++) {
            int8_t q = p->sq[r * 8 + f];
            if (!q) {
                empty++;
                continue;
            }
            if (empty)
                buf[n++] = (char)('0' + empty);
            empty = 0;
            buf[n++] = (char)(q > 0 ? letters[q] - 32 : letters[-q]);
        }
        if (empty)
            buf[n++] = (char)('0' + empty);
        if (r)
            buf[n++] = '/';
    }
    n += sprintf(buf + n, " %c - ", p->turn ? 'w' : 'b');
    if (p->ep)
        n += sprintf(buf + n, "%c%c", 'a' + t_file(p->ep), '1' + t_rank(p->ep));
    else
        buf[n++] = '-';
    sprintf(buf + n, " 0 1");
}

/* The lean probes (no kings, small results) answer as the full ones. */
static long LEAN_BAD;

static void check_lean(const tpos *p, const fathom_board *b, fathom_result w, fathom_result d)
{
    int32_t lw = fathom_probe_wdl_lean(TB, b->white, b->black, b->queens, b->rooks,
                                       b->bishops, b->knights, b->pawns,
                                       (unsigned)p->ep, p->turn);
    int32_t ld = fathom_probe_dtz_lean(TB, b->white, b->black, b->queens, b->rooks,
                                       b->bishops, b->knights, b->pawns,
                                       (unsigned)p->ep, p->turn);
    int32_t want_w = FATHOM_RESULT_STATUS(w) ? FATHOM_LEAN_FAILED + FATHOM_RESULT_STATUS(w)
                                             : FATHOM_RESULT_VALUE(w) + 2;
    int32_t want_d = FATHOM_RESULT_STATUS(d)
                         ? FATHOM_LEAN_FAILED + FATHOM_RESULT_STATUS(d)
                         : FATHOM_RESULT_VALUE(d) * 2 + FATHOM_RESULT_PRECISE(d);
    if (lw != want_w || ld != want_d) {
        char fen[100];
        if (LEAN_BAD++ < 10) {
            describe(p, fen);
            printf("LEAN MISMATCH %s: wdl %ld (want %ld), dtz %ld (want %ld)\n", fen,
                   (long)lw, (long)want_w, (long)ld, (long)want_d);
        }
    }
}

static value probe(const tpos *p)
{
    value v;
    fathom_board board = t_board(p);
    fathom_result w = fathom_probe_wdl(TB, &board, NULL);
    fathom_result d = fathom_probe_dtz(TB, &board, NULL);
    v.ok = FATHOM_RESULT_STATUS(w) == FATHOM_OK && FATHOM_RESULT_STATUS(d) == FATHOM_OK;
    v.wdl = FATHOM_RESULT_VALUE(w);
    v.dtz = FATHOM_RESULT_VALUE(d);
    v.precise = FATHOM_RESULT_PRECISE(d);
    v.status = FATHOM_RESULT_STATUS(w) != FATHOM_OK ? FATHOM_RESULT_STATUS(w)
                                                    : FATHOM_RESULT_STATUS(d);
    check_lean(p, &board, w, d);
    return v;
}

/* ---- Part A lookup tables: value of every 3-piece position -------------- */

#define IDX3(wk, x, bk, turn) ((((wk) * 64 + (x)) * 64 + (bk)) * 2 + (turn))
#define N3 (64 * 64 * 64 * 2)

static value *VALUES3[5]; /* NULL until computed */

static int table3_of(int type)
{
    int i;
    for (i = 0; i < 5; i++)
        if (EXTRA3[i] == type)
            return i;
    return -1;
}

/* Value of a position reached in Part A: KvK, or a lookup. */
static value lookup3(const tpos *c)
{
    value v;
    int s, wk = -1, bk = -1, x = -1, type = 0, t;
    memset(&v, 0, sizeof v);
    for (s = 0; s < 64; s++) {
        if (c->sq[s] == T_KING)
            wk = s;
        else if (c->sq[s] == -T_KING)
            bk = s;
        else if (c->sq[s] > 0) {
            x = s;
            type = c->sq[s];
        }
    }
    if (x < 0) { /* bare kings */
        v.ok = 1;
        v.status = FATHOM_OK;
        v.precise = 1;
        return v;
    }
    t = table3_of(type);
    if (t < 0 || !VALUES3[t])
        return v; /* not ok */
    return VALUES3[t][IDX3(wk, x, bk, c->turn)];
}

/* ---- The consistency rules ----------------------------------------------- */

typedef value (*child_fn)(const tpos *);

static int sgn(int x) { return (x > 0) - (x < 0); }

typedef struct stats {
    long positions, wdl_bad, dtz_bad, flip_bad, probe_bad, skipped;
    int printed;
} stats;

static void report(stats *st, const tpos *p, const char *what, int got, int want)
{
    char fen[100];
    if (st->printed++ >= 10)
        return;
    describe(p, fen);
    printf("  MISMATCH %s: %s got %d expected %d\n", fen, what, got, want);
}

/*
 * Check one position whose value is `v` against its children.  Returns
 * nothing; counts into st.
 */
static void check_node(const tpos *p, value v, child_fn child, stats *st)
{
    tmove moves[T_MAX_MOVES];
    int n = t_gen_legal(p, moves), i;
    int best = -3;           /* max over moves of the mover's outcome */
    int ambiguous = 0;       /* a quiet child sits at the DTZ 100 boundary */
    int win_min = 1 << 30;   /* DTZ candidates for a win */
    int loss_max = -1;       /* ... for a loss */
    int children_precise = 1;
    st->positions++;
    if (!v.ok && v.status == FATHOM_ERR_INVALID_POSITION && t_checkers(p) >= 2) {
        /* python-chess rejects impossible double checks too. */
        st->skipped++;
        return;
    }
    if (!v.ok) {
        st->probe_bad++;
        report(st, p, "probe status", 0, 1);
        return;
    }
    if (n == 0) {
        int want_wdl = t_in_check(p) ? -2 : 0;
        int want_dtz = t_in_check(p) ? -1 : 0;
        if (v.wdl != want_wdl) {
            st->wdl_bad++;
            report(st, p, "wdl (no legal move)", v.wdl, want_wdl);
        }
        if (v.dtz != want_dtz) {
            st->dtz_bad++;
            report(st, p, "dtz (no legal move)", v.dtz, want_dtz);
        }
        return;
    }
    for (i = 0; i < n; i++) {
        tpos c;
        value cv;
        tmove reply[T_MAX_MOVES];
        int outcome, zeroing = moves[i].capture || moves[i].pawn;
        int mate;
        t_make(p, &moves[i], &c);
        mate = t_in_check(&c) && t_gen_legal(&c, reply) == 0;
        cv = child(&c);
        if (!cv.ok) {
            st->probe_bad++;
            report(st, &c, "child probe status", 0, 1);
            return;
        }
        if (!cv.precise)
            children_precise = 0;
        if (mate) {
            outcome = 2;
        } else if (zeroing) {
            outcome = -cv.wdl;
        } else if (cv.wdl == -2 || cv.wdl == 2) {
            /* The quiet move costs a ply of the 50-move budget. */
            int plies = 1 + abs(cv.dtz);
            if ((abs(cv.dtz) == 99 || abs(cv.dtz) == 100) && !cv.precise)
                ambiguous = 1;
            outcome = -sgn(cv.wdl) * (plies <= 100 ? 2 : 1);
        } else {
            outcome = -cv.wdl;
        }
        if (outcome > best)
            best = outcome;
        /* DTZ candidates. */
        if (v.wdl == 2 && outcome == 2)
            win_min = (mate || zeroing) ? (win_min < 1 ? win_min : 1)
                                        : (win_min < 1 + abs(cv.dtz) ? win_min : 1 + abs(cv.dtz));
        if (v.wdl == -2) {
            int cand = zeroing ? 1 : 1 + cv.dtz;
            if (cand > loss_max)
                loss_max = cand;
        }
    }
    if (ambiguous) {
        st->skipped++;
        return;
    }
    if (v.wdl != best) {
        st->wdl_bad++;
        report(st, p, "wdl vs children", v.wdl, best);
        return;
    }
    /* DTZ: sign and range first. */
    if (sgn(v.dtz) != sgn(v.wdl) || (abs(v.wdl) == 2 && abs(v.dtz) > 100) ||
        (abs(v.wdl) == 1 && abs(v.dtz) <= 100)) {
        st->dtz_bad++;
        report(st, p, "dtz range for wdl", v.dtz, v.wdl);
        return;
    }
    {
        int tol = (v.precise && children_precise) ? 0 : 1;
        if (v.wdl == 2 && abs(v.dtz - win_min) > tol) {
            st->dtz_bad++;
            report(st, p, "dtz vs children (win)", v.dtz, win_min);
        }
        if (v.wdl == -2 && abs(-v.dtz - loss_max) > tol) {
            st->dtz_bad++;
            report(st, p, "dtz vs children (loss)", v.dtz, -loss_max);
        }
    }
}

static void check_flip(const tpos *p, value v, stats *st)
{
    tpos f;
    value fv;
    t_flip(p, &f);
    fv = probe(&f);
    if (fv.ok != v.ok || fv.wdl != v.wdl || fv.dtz != v.dtz || fv.precise != v.precise) {
        st->flip_bad++;
        report(st, &f, "colour-flipped dtz", fv.dtz, v.dtz);
    }
}

static long finish(const char *name, stats *st)
{
    long failures = st->wdl_bad + st->dtz_bad + st->flip_bad + st->probe_bad;
    printf("table %s positions %ld wdl_bad %ld dtz_bad %ld flip_bad %ld "
           "probe_bad %ld skipped %ld\n",
           name, st->positions, st->wdl_bad, st->dtz_bad, st->flip_bad,
           st->probe_bad, st->skipped);
    fflush(stdout);
    return failures;
}

/* ---- Part A -------------------------------------------------------------- */

static long part_a(void)
{
    long failures = 0;
    int t;
    for (t = 0; t < 5; t++) {
        stats st;
        int wk, x, bk, turn;
        int pawn = EXTRA3[t] == T_PAWN;
        value *vals = calloc(N3, sizeof *vals);
        if (!vals) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        memset(&st, 0, sizeof st);
        /* Pass 1: probe every valid position (and its colour twin). */
        for (wk = 0; wk < 64; wk++)
            for (x = pawn ? 8 : 0; x < (pawn ? 56 : 64); x++)
                for (bk = 0; bk < 64; bk++)
                    for (turn = 0; turn < 2; turn++) {
                        tpos p;
                        if (wk == x || wk == bk || x == bk)
                            continue;
                        memset(&p, 0, sizeof p);
                        p.sq[wk] = T_KING;
                        p.sq[bk] = -T_KING;
                        p.sq[x] = (int8_t)EXTRA3[t];
                        p.turn = turn;
                        if (!t_valid(&p))
                            continue;
                        vals[IDX3(wk, x, bk, turn)] = probe(&p);
                        check_flip(&p, vals[IDX3(wk, x, bk, turn)], &st);
                    }
        VALUES3[t] = vals;
        /* Pass 2: each position against its children. */
        for (wk = 0; wk < 64; wk++)
            for (x = pawn ? 8 : 0; x < (pawn ? 56 : 64); x++)
                for (bk = 0; bk < 64; bk++)
                    for (turn = 0; turn < 2; turn++) {
                        tpos p;
                        if (wk == x || wk == bk || x == bk)
                            continue;
                        memset(&p, 0, sizeof p);
                        p.sq[wk] = T_KING;
                        p.sq[bk] = -T_KING;
                        p.sq[x] = (int8_t)EXTRA3[t];
                        p.turn = turn;
                        if (!t_valid(&p))
                            continue;
                        check_node(&p, vals[IDX3(wk, x, bk, turn)], lookup3, &st);
                    }
        failures += finish(TABLES3[t], &st);
    }
    return failures;
}

/* ---- Part B -------------------------------------------------------------- */

static value probe_child(const tpos *c)
{
    if (t_piece_count(c) == 2) {
        value v;
        v.ok = 1;
        v.wdl = 0;
        v.dtz = 0;
        v.precise = 1;
        v.status = FATHOM_OK;
        return v;
    }
    return probe(c);
}

static long part_b(long n4)
{
    long failures = 0;
    int t;
    for (t = 0; t < 30; t++) {
        stats st;
        long i, n_ep = 0;
        uint64_t rng = 0x5eed0000u + (uint64_t)t;
        int both_pawns = strchr(TABLES4[t], 'P') && strchr(strchr(TABLES4[t], 'v'), 'P') &&
                         strchr(TABLES4[t], 'P') < strchr(TABLES4[t], 'v');
        memset(&st, 0, sizeof st);
        for (i = 0; i < n4; i++) {
            tpos p;
            if (!t_random_position(TABLES4[t], (int)(t_rand(&rng) & 1), &rng, &p)) {
                st.probe_bad++;
                break;
            }
            check_node(&p, probe(&p), probe_child, &st);
            check_flip(&p, probe(&p), &st);
        }
        if (both_pawns) {
            for (i = 0; i < n4 / 4; i++) {
                tpos p;
                if (!t_random_ep_position(TABLES4[t], &rng, &p)) {
                    st.probe_bad++;
                    break;
                }
                n_ep++;
                check_node(&p, probe(&p), probe_child, &st);
                check_flip(&p, probe(&p), &st);
            }
        }
        failures += finish(TABLES4[t], &st);
        if (both_pawns)
            printf("  (%ld positions with an en-passant capture)\n", n_ep);
    }
    return failures;
}

int main(int argc, char **argv)
{
    long n4 = 2000, failures;
    unsigned found = 0;
    int t;
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [N4]\n", argv[0]);
        return 2;
    }
    if (argc > 2)
        n4 = atol(argv[2]);
    if (fathom_open(&TB) != FATHOM_OK ||
        fathom_add_directory(TB, argv[1], 1, 1, &found) != FATHOM_OK) {
        fprintf(stderr, "cannot open tables in %s\n", argv[1]);
        return 2;
    }
    printf("tables found %u\n", found);
    failures = part_a();
    failures += part_b(n4);
    printf("lean probes: %ld mismatches\n", LEAN_BAD);
    failures += LEAN_BAD;
    printf("TOTAL failures %ld\n", failures);
    for (t = 0; t < 5; t++)
        free(VALUES3[t]);
    fathom_close(TB);
    return failures ? 1 : 0;
}
