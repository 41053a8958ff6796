/*
 * tb_search_body.h - the probing search, written once (see tb_search.h),
 * compiled by tb_search.c once per set of rules.  Not a header to include
 * anywhere else: it has no include guard on purpose (it is included once
 * per instantiation; amalgamate.sh pastes a *_body.h at every include).
 *
 * The includer defines:
 *   SEARCH(name)        the name of this instantiation's copy of a function;
 *   RULE(pr, op)        the rules' operation op (a tb_rules member) for the
 *                       probe pr;
 *   SEARCH_MAY_COMPEL   1 if some of these rules have compulsory captures
 *                       (the antichess search is then compiled in).
 *   SEARCH_LICHESS_FLAG(pr)  whether ties in the one-ply DTZ searches take
 *                       lichess's precise flag (search_offer in tb_search.h).
 */

static int SEARCH(fail)(probe *pr, int status, tb_key key, const tb_entry *entry,
                        int is_dtz)
{
    pr->failure.key = key;
    pr->failure.entry = entry;
    pr->failure.is_dtz = is_dtz;
    return status;
}

/* The entry of the position's WDL table, mapped (*e), and its material
 * key; a failure is recorded in pr. */
TB_ALWAYS_INLINE int SEARCH(wdl_entry)(probe *pr, const tb_pos *pos, tb_entry **e,
                                       tb_key *key)
{
    *key = tb_key_of(pos, 0);
    *e = tb_lookup(pr->tb, *key);
    pr->reads++;
    if (!*e || !(*e)->wdl.path)
        return SEARCH(fail)(pr, FATHOM_ERR_MISSING_TABLE, *key, *e, 0);
    int status = tb_slot_ready(pr->tb, *e, &(*e)->wdl, 0);
    return status == FATHOM_OK ? status : SEARCH(fail)(pr, status, *key, *e, 0);
}

/* The table's WDL value, unless the game's result is known without it
 * (python-chess's probe_wdl_table).  It may be a "don't care" where a
 * capture decides; probe_ab resolves those. */
static int SEARCH(table_wdl)(probe *pr, const tb_pos *pos, int *wdl)
{
    if (RULE(pr, decided)(pos, wdl))
        return FATHOM_OK;
    tb_key key = 0;
    tb_entry *e = NULL;
    int status = SEARCH(wdl_entry)(pr, pos, &e, &key);
    if (status != FATHOM_OK)
        return status;
    status = tb_table_wdl(&e->wdl.table, &pr->tb->consts, pos, key, pr->memo, wdl);
    return status == FATHOM_OK ? status : SEARCH(fail)(pr, status, key, e, 0);
}

static int SEARCH(table_dtz)(probe *pr, const tb_pos *pos, int wdl, int *dtz,
                             int *precise, int *stored)
{
    tb_key key = tb_key_of(pos, 0);
    tb_entry *e = tb_lookup(pr->tb, key);
    pr->reads++;
    if (!e || !e->dtz.path)
        return SEARCH(fail)(pr, FATHOM_ERR_MISSING_TABLE, key, e, 1);
    int status = tb_slot_ready(pr->tb, e, &e->dtz, 1);
    if (status == FATHOM_OK)
        status = tb_table_dtz(&e->dtz.table, &pr->tb->consts, pos, key, wdl,
                              pr->memo, dtz, precise, stored);
    return status == FATHOM_OK ? status : SEARCH(fail)(pr, status, key, e, 1);
}

static int SEARCH(probe_ab)(probe *pr, const tb_pos *pos, int alpha, int beta,
                            int threats, int *value, int *how);

#if SEARCH_MAY_COMPEL
/* ---- compulsory captures (python-chess's sprobe_ab / sprobe_capts) ------- */

static int SEARCH(compelled_ab)(probe *pr, const tb_pos *pos, int alpha, int beta,
                                int threats, int *value, int *how);

/* Best of the captures (compulsory ones) for the side to move; *found says
 * whether there was any. */
static int SEARCH(compelled_captures)(probe *pr, const tb_pos *pos, int alpha,
                                      int beta, int *value, int *found)
{
    tb_move moves[TB_MAX_LEGAL];
    int n = RULE(pr, gen_captures)(pos, moves);
    *found = n > 0;
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, how;
        RULE(pr, do_move)(pos, moves[i], &child);
        int status = SEARCH(compelled_ab)(pr, &child, -beta, -alpha, 0, &v, &how);
        if (status != FATHOM_OK)
            return status;
        if (-v > alpha)
            alpha = -v;
        if (alpha >= beta)
            break;
    }
    *value = alpha;
    return FATHOM_OK;
}

/* The best quiet move that forces the opponent into a capture, where the
 * table may store a "don't care" (threats asked for, or 6 pieces and
 * more): *alpha raised, and *cut set where that reaches beta. */
static int SEARCH(compelled_threats)(probe *pr, const tb_pos *pos, int *alpha,
                                     int beta, int *found, int *cut)
{
    tb_move moves[TB_MAX_LEGAL];
    /* No capture is possible here: the quiet piece moves are all moves
     * but the pawns'. */
    int n = RULE(pr, gen_piece_quiets)(pos, moves);
    *found = *cut = 0;
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, any;
        RULE(pr, do_move)(pos, moves[i], &child);
        int status = SEARCH(compelled_captures)(pr, &child, -beta, -*alpha, &v, &any);
        if (status != FATHOM_OK)
            return status;
        if (any && -v > *alpha) {
            *found = 1;
            *alpha = -v;
            if (*alpha >= beta) {
                *cut = 1;
                return FATHOM_OK;
            }
        }
    }
    return FATHOM_OK;
}

static int SEARCH(compelled_ab)(probe *pr, const tb_pos *pos, int alpha, int beta,
                                int threats, int *value, int *how)
{
    int status;
    *how = FROM_CAPTURE;
    if (tb_popcount(pos->color[!pos->turn]) > 1) {
        int found;
        status = SEARCH(compelled_captures)(pr, pos, alpha, beta, value, &found);
        if (status != FATHOM_OK || found)
            return status;
    } else {
        /* Taking the last enemy piece hands the opponent the win. */
        tb_move moves[TB_MAX_LEGAL];
        if (RULE(pr, gen_captures)(pos, moves) > 0) {
            *value = -2;
            return FATHOM_OK;
        }
    }

    int threats_found = 0;
    if (threats || tb_popcount(pos->color[0] | pos->color[1]) >= 6) {
        int cut;
        status = SEARCH(compelled_threats)(pr, pos, &alpha, beta, &threats_found, &cut);
        if (status != FATHOM_OK)
            return status;
        if (cut) {
            *value = alpha;
            *how = FROM_THREAT;
            return FATHOM_OK;
        }
    }

    int v;
    status = SEARCH(table_wdl)(pr, pos, &v);
    if (status != FATHOM_OK)
        return status;
    if (v > alpha) {
        *value = v;
        *how = FROM_TABLE;
    } else {
        *value = alpha;
        *how = threats_found ? FROM_THREAT : FROM_TABLE;
    }
    return FATHOM_OK;
}
#endif /* SEARCH_MAY_COMPEL */

/* ---- WDL ------------------------------------------------------------------ */

/*
 * The captures' part of probe_ab (en passant aside): *alpha raised to the
 * best capture's value; *cut set, and *alpha that capture's value, where it
 * reaches beta (the table is then not read).
 */
TB_ALWAYS_INLINE int SEARCH(capture_alpha)(probe *pr, const tb_pos *pos, int *alpha,
                                           int beta, int *cut)
{
    tb_move moves[TB_MAX_LEGAL];
    int n = RULE(pr, gen_captures)(pos, moves);
    *cut = 0;
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, ignored;
        RULE(pr, do_move)(pos, moves[i], &child);
        int status = SEARCH(probe_ab)(pr, &child, -beta, -*alpha, 0, &v, &ignored);
        if (status != FATHOM_OK)
            return status;
        v = -v;
        if (v > *alpha) {
            *alpha = v;
            if (v >= beta) {
                *cut = 1;
                return FATHOM_OK;
            }
        }
    }
    return FATHOM_OK;
}

/*
 * WDL by alpha-beta over captures (en passant aside), falling back to the
 * table.  *how says whether the best line starts with a capture, in which
 * case the DTZ table holds no meaningful value for the position.  threats:
 * compulsory captures only (compelled_ab).
 */
static int SEARCH(probe_ab)(probe *pr, const tb_pos *pos, int alpha, int beta,
                            int threats, int *value, int *how)
{
#if SEARCH_MAY_COMPEL
    if (RULE(pr, compulsory_captures)) {
        if (RULE(pr, decided)(pos, value)) {
            *how = FROM_CAPTURE;
            return FATHOM_OK;
        }
        return SEARCH(compelled_ab)(pr, pos, alpha, beta, threats, value, how);
    }
#else
    (void)threats;
#endif
    int cut;
    int status = SEARCH(capture_alpha)(pr, pos, &alpha, beta, &cut);
    if (status != FATHOM_OK || cut) {
        *value = alpha;
        *how = FROM_CAPTURE;
        return status;
    }
    int v;
    status = SEARCH(table_wdl)(pr, pos, &v);
    if (status != FATHOM_OK)
        return status;
    if (alpha >= v) {
        *value = alpha;
        *how = alpha > 0 ? FROM_CAPTURE : FROM_TABLE;
    } else {
        *value = v;
        *how = FROM_TABLE;
    }
    return FATHOM_OK;
}

/* Best WDL over the en-passant captures the rules count, -3 if none. */
static int SEARCH(best_ep_capture)(probe *pr, const tb_pos *pos, int *best)
{
    *best = -3;
    if (!pos->ep)
        return FATHOM_OK;
    tb_move moves[TB_MAX_LEGAL];
    int n = RULE(pr, gen_ep)(pos, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, how;
        RULE(pr, do_move)(pos, moves[i], &child);
        int status = SEARCH(probe_ab)(pr, &child, -2, 2, 0, &v, &how);
        if (status != FATHOM_OK)
            return status;
        if (-v > *best)
            *best = -v;
    }
    return FATHOM_OK;
}

static int SEARCH(probe_wdl)(probe *pr, const tb_pos *pos, int *wdl)
{
    int how, v1;
    int status = SEARCH(probe_ab)(pr, pos, -2, 2, 0, wdl, &how);
    if (status != FATHOM_OK || !pos->ep)
        return status;
    status = SEARCH(best_ep_capture)(pr, pos, &v1);
    if (status != FATHOM_OK)
        return status;
    /* The table assumes no en passant: an ep capture may be better, or
     * forced when it is the only move. */
    if (v1 > -3 && (v1 >= *wdl || (*wdl == 0 && RULE(pr, only_ep_moves)(pos))))
        *wdl = v1;
    return FATHOM_OK;
}

/* ---- DTZ ------------------------------------------------------------------ */

static int SEARCH(probe_dtz)(probe *pr, const tb_pos *pos, int *dtz, int *precise);

/*
 * DTZ of a won position whose table stores only the other side to move:
 * one ply more than the quickest win among the quiet piece moves (pawn
 * moves and captures, which zero, were tried before).
 */
static int SEARCH(dtz_win_by_search)(probe *pr, const tb_pos *pos, int *dtz,
                                     int *precise)
{
    tb_move moves[TB_MAX_LEGAL];
    search_best best = {0xffff, 1, UINT_MAX};
    int lichess = SEARCH_LICHESS_FLAG(pr);
    int in_check = lichess && tb_in_check(pos);
    int n = RULE(pr, gen_piece_quiets)(pos, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, p;
        RULE(pr, do_move)(pos, moves[i], &child);
        int status = SEARCH(probe_dtz)(pr, &child, &v, &p);
        if (status != FATHOM_OK)
            return status;
        v = -v;
        if (v == 1 && RULE(pr, is_checkmate)(&child))
            search_offer(lichess, &best, 1, 1, 0, 1); /* a mate is exact whatever the table */
        else if (v > 0)
            search_offer(lichess, &best, v + 1, p,
                         lichess ? search_shakmaty_order(&moves[i], in_check) : 0, 1);
    }
    *dtz = best.dtz;
    *precise = best.precise;
    return FATHOM_OK;
}

/*
 * DTZ of a lost (or blessed-lost) position whose table stores only the
 * other side to move: the longest resistance over every legal move, a
 * zeroing move counted by the WDL it leaves.  The search may stop as soon
 * as the DTZ is below floor (tb_search.h).
 */
static int SEARCH(dtz_loss_by_search)(probe *pr, const tb_pos *pos, int wdl, int floor,
                                      int *dtz, int *precise)
{
    tb_move moves[TB_MAX_LEGAL];
    search_best best = {-1, 1, 0};
    int lichess = SEARCH_LICHESS_FLAG(pr);
    int in_check = lichess && tb_in_check(pos);
    int n = RULE(pr, gen_all)(pos, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v, p = 1, status;
        unsigned order = 0;
        RULE(pr, do_move)(pos, moves[i], &child);
        if (child.rule50 == 0) {
            if (wdl == -2) {
                v = -1;
            } else {
                int how_child;
                status = SEARCH(probe_ab)(pr, &child, 1, 2, 1, &v, &how_child);
                if (status != FATHOM_OK)
                    return status;
                v = v == 2 ? 0 : -101;
            }
        } else {
            status = SEARCH(probe_dtz)(pr, &child, &v, &p);
            if (status != FATHOM_OK)
                return status;
            v = -v - 1;
            if (lichess)
                order = search_shakmaty_order(&moves[i], in_check);
        }
        search_offer(lichess, &best, v, p, order, 0);
        if (best.dtz < floor)
            break;
    }
    *dtz = best.dtz;
    *precise = best.precise;
    return FATHOM_OK;
}

/* A winning move that zeroes at once: a threat that forces a capture next
 * move (2 plies), or a winning pawn push (1).  RETURN: FATHOM_OK with
 * *found set, or a failure. */
static int SEARCH(zeroing_win)(probe *pr, const tb_pos *pos, int wdl, int how,
                               int *dtz, int *found)
{
    *found = 1;
    if (how == FROM_THREAT) {
        *dtz = wdl == 2 ? 2 : 102;
        return FATHOM_OK;
    }
    tb_move moves[TB_MAX_LEGAL];
    int n = RULE(pr, gen_pawn_pushes)(pos, moves);
    for (int i = 0; i < n; i++) {
        tb_pos child;
        int v;
        RULE(pr, do_move)(pos, moves[i], &child);
        int status = SEARCH(probe_wdl)(pr, &child, &v);
        if (status != FATHOM_OK)
            return status;
        if (-v == wdl) {
            *dtz = dtz_before_zeroing(wdl);
            return FATHOM_OK;
        }
    }
    *found = 0;
    return FATHOM_OK;
}

/* floor: see dtz_loss_by_search. */
static int SEARCH(probe_dtz_no_ep)(probe *pr, const tb_pos *pos, int floor, int *dtz,
                                   int *precise)
{
    int wdl, how;
    int status = SEARCH(probe_ab)(pr, pos, -2, 2, 1, &wdl, &how);
    if (status != FATHOM_OK)
        return status;
    *precise = 1;
    if (wdl == 0) {
        *dtz = 0;
        return FATHOM_OK;
    }
    /* A capture zeroes; so does any move of a side with only pawns (no
     * royal king: the antichess family). */
    if (how == FROM_CAPTURE || !(pos->color[pos->turn] & ~pos->type[TB_PAWN])) {
        *dtz = dtz_before_zeroing(wdl);
        return FATHOM_OK;
    }
    if (wdl > 0) {
        int found;
        status = SEARCH(zeroing_win)(pr, pos, wdl, how, dtz, &found);
        if (status != FATHOM_OK || found)
            return status;
    }

    int value, stored;
    status = SEARCH(table_dtz)(pr, pos, wdl, &value, precise, &stored);
    if (status != FATHOM_OK)
        return status;
    if (stored) {
        *dtz = dtz_before_zeroing(wdl) + (wdl > 0 ? value : -value);
        return FATHOM_OK;
    }
    /* The table holds the other side to move: search one ply. */
    return wdl > 0 ? SEARCH(dtz_win_by_search)(pr, pos, dtz, precise)
                   : SEARCH(dtz_loss_by_search)(pr, pos, wdl, floor, dtz, precise);
}

static int SEARCH(probe_dtz)(probe *pr, const tb_pos *pos, int *dtz, int *precise)
{
    int status = SEARCH(probe_dtz_no_ep)(pr, pos, INT_MIN, dtz, precise);
    if (status != FATHOM_OK || !pos->ep)
        return status;
    int best;
    status = SEARCH(best_ep_capture)(pr, pos, &best);
    if (status != FATHOM_OK || best == -3)
        return status;

    int v = *dtz, ep = dtz_before_zeroing(best), take;
    if (v < -100)
        take = ep >= 0;
    else if (v < 0)
        take = ep >= 0 || ep < -100;
    else if (v > 100)
        take = ep > 0;
    else if (v > 0)
        take = ep == 1;
    else if (ep >= 0)
        take = 1;
    else
        take = RULE(pr, only_ep_moves)(pos);
    if (take) {
        *dtz = ep;
        *precise = 1;
    }
    return FATHOM_OK;
}
