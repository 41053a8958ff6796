/*
 * movegen.c - prints the legal moves tchess.h generates for each FEN read
 * from stdin, one line per FEN: "<count> <in check> <checkers> <uci> ..." (sorted by the
 * caller).  tests/test_core_c.py compares them with python-chess, so the
 * self-consistency checks stand on a move generator that is itself tested.
 */
#include <stdio.h>
#include <string.h>

#include "tchess.h"

int main(void)
{
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        tpos p;
        tmove moves[T_MAX_MOVES];
        int n, i;
        line[strcspn(line, "\n")] = '\0';
        if (!t_from_fen(line, &p)) {
            printf("error\n");
            continue;
        }
        n = t_gen_legal(&p, moves);
        printf("%d %d %d", n, t_in_check(&p), t_checkers(&p));
        for (i = 0; i < n; i++) {
            char buf[6];
            t_uci(&moves[i], buf);
            printf(" %s", buf);
        }
        printf("\n");
    }
    return 0;
}
