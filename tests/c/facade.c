/*
 * facade.c - C code written against Fathom's tbprobe.h compiles against
 * ours and gives the instance API's answers.
 *
 *   facade DIR [PER_TABLE]
 *
 * Only Fathom's names are used for the facade side: tb_init, TB_LARGEST,
 * tb_probe_wdl (12 arguments), tb_probe_root with a results array, the
 * TB_GET_* macros, TB_PROMOTES_*, TB_RESULT_CHECKMATE/STALEMATE/FAILED,
 * tb_probe_root_dtz / tb_probe_root_wdl, tb_free.  Expected values come from
 * a separate fathom.h instance; legal moves from tchess.h.
 * Prints "TOTAL mismatches N"; exits 1 if N > 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fathom.h"
#include "positions_c.h"
#include "tboard.h"
#include "tbprobe.h"

static long BAD;

static void fail(const tpos *p, const char *what, long got, long want)
{
    if (BAD++ < 10) {
        int s;
        printf("MISMATCH %s: got %ld expected %ld; position:", what, got, want);
        for (s = 0; s < 64; s++)
            if (p->sq[s])
                printf(" %d@%c%c", p->sq[s], 'a' + (s & 7), '1' + (s >> 3));
        printf(" turn %d ep %d\n", p->turn, p->ep);
    }
}

/* Fathom's promotes code for a python-chess piece type. */
static unsigned promotes_of(int type)
{
    switch (type) {
    case T_QUEEN: return TB_PROMOTES_QUEEN;
    case T_ROOK: return TB_PROMOTES_ROOK;
    case T_BISHOP: return TB_PROMOTES_BISHOP;
    case T_KNIGHT: return TB_PROMOTES_KNIGHT;
    default: return TB_PROMOTES_NONE;
    }
}

/* The instance's record of the move a packed answer names, or NULL. */
static const fathom_root_move *instance_move(const fathom_root_move *fm, unsigned count,
                                             unsigned packed)
{
    unsigned i;
    for (i = 0; i < count; i++)
        if (fm[i].from == TB_GET_FROM(packed) && fm[i].to == TB_GET_TO(packed) &&
            promotes_of(fm[i].promotion) == TB_GET_PROMOTES(packed) &&
            fm[i].is_ep == TB_GET_EP(packed))
            return &fm[i];
    return NULL;
}

int main(int argc, char **argv)
{
    int per_table = argc > 2 ? atoi(argv[2]) : 100, n, i;
    fathom_tb *inst = NULL;
    unsigned found = 0;
    tpos *pos;
    static unsigned results[TB_MAX_MOVES];
    static struct TbRootMoves root_moves;
    static fathom_root_move fm[FATHOM_MAX_MOVES];
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [PER_TABLE]\n", argv[0]);
        return 2;
    }
    if (!tb_init(argv[1])) {
        printf("tb_init failed\n");
        return 1;
    }
    if (TB_LARGEST != 4) {
        printf("MISMATCH TB_LARGEST %u, expected 4\n", TB_LARGEST);
        BAD++;
    }
    if (fathom_open(&inst) != FATHOM_OK ||
        fathom_add_directory(inst, argv[1], 1, 1, &found) != FATHOM_OK) {
        fprintf(stderr, "cannot open the instance\n");
        return 2;
    }
    pos = tc_positions(per_table, 0xfacadeu, &n);
    for (i = 0; i < n; i++) {
        const tpos *p = &pos[i];
        tbb b = t_bitboards(p);
        fathom_board board = t_board(p);
        fathom_result w = fathom_probe_wdl(inst, &board, NULL);
        unsigned fw = tb_probe_wdl(b.white, b.black, b.kings, b.queens, b.rooks,
                                   b.bishops, b.knights, b.pawns, 0, 0,
                                   (unsigned)p->ep, p->turn != 0);
        unsigned fr;
        unsigned count = 0, k;
        int rwdl = 0, rdtz = 0, rprec = 0, status;
        tmove legal[T_MAX_MOVES];
        int nlegal = t_gen_legal(p, legal);

        if (FATHOM_RESULT_STATUS(w) != FATHOM_OK) {
            if (fw != TB_RESULT_FAILED)
                fail(p, "tb_probe_wdl should fail", (long)fw, -1);
            continue;
        }
        if (fw != (unsigned)(FATHOM_RESULT_VALUE(w) + 2))
            fail(p, "tb_probe_wdl", (long)fw, FATHOM_RESULT_VALUE(w) + 2);
        /* Fathom's failure conditions. */
        if (tb_probe_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                         b.knights, b.pawns, 3, 0, (unsigned)p->ep, p->turn != 0) !=
            TB_RESULT_FAILED)
            fail(p, "tb_probe_wdl with rule50 != 0 must fail", 0, -1);
        if (tb_probe_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                         b.knights, b.pawns, 0, TB_CASTLING_K, (unsigned)p->ep,
                         p->turn != 0) != TB_RESULT_FAILED)
            fail(p, "tb_probe_wdl with castling must fail", 0, -1);
        if (tb_probe_root(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                          b.knights, b.pawns, 0, TB_CASTLING_q, (unsigned)p->ep,
                          p->turn != 0, NULL) != TB_RESULT_FAILED)
            fail(p, "tb_probe_root with castling must fail", 0, -1);

        /* Root probe: the facade against the instance and the legal moves. */
        status = fathom_probe_root(inst, &board, fm, &count, &rwdl, &rdtz, &rprec, NULL);
        fr = tb_probe_root(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                           b.knights, b.pawns, 0, 0, (unsigned)p->ep, p->turn != 0,
                           results);
        if (status != FATHOM_OK) {
            if (fr != TB_RESULT_FAILED)
                fail(p, "tb_probe_root should fail", (long)fr, -1);
            continue;
        }
        if ((int)count != nlegal)
            fail(p, "fathom_probe_root move count", (long)count, nlegal);
        if (nlegal == 0) {
            unsigned want = t_in_check(p) ? TB_RESULT_CHECKMATE : TB_RESULT_STALEMATE;
            if (fr != want)
                fail(p, "tb_probe_root with no legal move", (long)fr, (long)want);
            continue;
        }
        if (fr == TB_RESULT_FAILED) {
            fail(p, "tb_probe_root failed", -1, 0);
            continue;
        }
        if (TB_GET_WDL(fr) != (unsigned)(rwdl + 2))
            fail(p, "tb_probe_root WDL", (long)TB_GET_WDL(fr), rwdl + 2);
        if (TB_GET_DTZ(fr) != (unsigned)abs(rdtz))
            fail(p, "tb_probe_root |DTZ|", (long)TB_GET_DTZ(fr), abs(rdtz));
        /* The move played is as good as the instance's best (Fathom breaks
         * ties its own way: tests/test_engine_fathom_order.py checks how). */
        {
            const fathom_root_move *played = instance_move(fm, count, fr);
            if (!played || played->wdl != fm[0].wdl || played->dtz != fm[0].dtz)
                fail(p, "tb_probe_root best move (from*64+to)",
                     (long)(TB_GET_FROM(fr) * 64 + TB_GET_TO(fr)), fm[0].from * 64 + fm[0].to);
        }
        /* The results array: one entry per legal move (in Fathom's order),
         * each with the instance's WDL for that move. */
        for (k = 0; k < TB_MAX_MOVES && results[k] != TB_RESULT_FAILED; k++) {
            int j, hit = 0;
            const fathom_root_move *same = instance_move(fm, count, results[k]);
            for (j = 0; j < nlegal; j++)
                if (legal[j].from == TB_GET_FROM(results[k]) &&
                    legal[j].to == TB_GET_TO(results[k]) &&
                    promotes_of(legal[j].promo) == TB_GET_PROMOTES(results[k]) &&
                    legal[j].ep == TB_GET_EP(results[k]))
                    hit = 1;
            if (!hit || !same)
                fail(p, "results[] holds an illegal move", (long)results[k], 0);
            else if (TB_GET_WDL(results[k]) != (unsigned)(same->wdl + 2))
                fail(p, "results[] WDL", (long)TB_GET_WDL(results[k]), same->wdl + 2);
        }
        if (k != (unsigned)nlegal)
            fail(p, "results[] length", (long)k, nlegal);
        /* Stockfish-style root ranking: every legal move, success. */
        if (!tb_probe_root_dtz(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                               b.knights, b.pawns, 0, 0, (unsigned)p->ep, p->turn != 0,
                               false, true, &root_moves) ||
            root_moves.size != (unsigned)nlegal)
            fail(p, "tb_probe_root_dtz size", (long)root_moves.size, nlegal);
        if (!tb_probe_root_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                               b.knights, b.pawns, 0, 0, (unsigned)p->ep, p->turn != 0,
                               true, &root_moves) ||
            root_moves.size != (unsigned)nlegal)
            fail(p, "tb_probe_root_wdl size", (long)root_moves.size, nlegal);
    }
    printf("positions %d\n", n);
    printf("TOTAL mismatches %ld\n", BAD);
    free(pos);
    fathom_close(inst);
    tb_free();
    /* tb_init again after tb_free works (engines re-init on path change). */
    if (!tb_init(argv[1]) || TB_LARGEST != 4) {
        printf("tb_init after tb_free failed\n");
        return 1;
    }
    tb_free();
    return BAD ? 1 : 0;
}
