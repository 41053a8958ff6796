/*
 * tbprobe_pyrrhic.c - the Pyrrhic-compatible facade (pyrrhic/tbprobe.h):
 * one default instance of the instance API, Pyrrhic's argument lists and
 * globals, the conversions shared with Fathom's facade (tb_facade.h).
 * Built only into the single file of `make -C src/fathom pyrrhic`, in place
 * of tbprobe.c and tbprobe_helpers.c (both facades define tb_init).
 */
#define PYRRHIC_FACADE_BUILD 1
#include "tbprobe.h"

#include <string.h>

#include "fathom.h"
#include "facades/tb_facade.h"
#include "facades/tb_facade_body.h" /* after tbprobe.h: its packed layout */
#include "probe/tb_instance.h"
#include "platform/tb_platform.h"

int TB_LARGEST = 0;
int TB_NUM_WDL = 0;
int TB_NUM_DTM = 0;
int TB_NUM_DTZ = 0;

/* The one piece of global state: the instance Pyrrhic's API implies. */
static fathom_tb *default_tb = NULL;

/* Path values that load nothing (Pyrrhic's "<embedded>" means "only from
 * a loader", and no loader is offered here). */
static bool loads_nothing(const char *path)
{
    return !path || !*path || strcmp(path, "<empty>") == 0 ||
           strcmp(path, "<embedded>") == 0;
}

static void count_files(const fathom_tb *tb)
{
    TB_NUM_WDL = TB_NUM_DTZ = 0;
    for (size_t i = 0; i < tb->num_entries; i++) {
        TB_NUM_WDL += tb->entries[i]->wdl.path != NULL;
        TB_NUM_DTZ += tb->entries[i]->dtz.path != NULL;
    }
}

bool tb_init(const char *path)
{
    tb_free();
    if (fathom_open(&default_tb) != FATHOM_OK)
        return false;
    if (!loads_nothing(path))
        fathom_add_path_list(default_tb, path, TB_PATH_LIST_SEPARATOR, NULL);
    TB_LARGEST = (int)fathom_largest(default_tb);
    count_files(default_tb);
    return true;
}

void tb_free(void)
{
    fathom_close(default_tb);
    default_tb = NULL;
    TB_LARGEST = TB_NUM_WDL = TB_NUM_DTM = TB_NUM_DTZ = 0;
}

unsigned tb_probe_wdl(uint64_t white, uint64_t black, uint64_t kings, uint64_t queens,
                      uint64_t rooks, uint64_t bishops, uint64_t knights,
                      uint64_t pawns, unsigned ep, bool turn)
{
    return facade_packed_wdl(default_tb, white, black, kings, queens, rooks, bishops,
                             knights, pawns, ep, turn);
}

unsigned tb_probe_root(uint64_t white, uint64_t black, uint64_t kings, uint64_t queens,
                       uint64_t rooks, uint64_t bishops, uint64_t knights,
                       uint64_t pawns, unsigned rule50, unsigned ep, bool turn,
                       unsigned *results)
{
    return facade_packed_root(default_tb, white, black, kings, queens, rooks,
                              bishops, knights, pawns, rule50, ep, turn, results,
                              TB_MAX_MOVES, TB_ORDER_PYRRHIC);
}

static PyrrhicMove pyrrhic_move_of(const fathom_root_move *m)
{
    unsigned flag = m->is_ep ? PYRRHIC_FLAG_ENPASS : tb_facade_promotion(m->promotion);
    return (PyrrhicMove)((flag << PYRRHIC_SHIFT_FLAGS) | ((unsigned)m->from << PYRRHIC_SHIFT_FROM) |
                         ((unsigned)m->to << PYRRHIC_SHIFT_TO));
}

int tb_pyrrhic_root_impl(uint64_t white, uint64_t black, uint64_t kings,
                         uint64_t queens, uint64_t rooks, uint64_t bishops,
                         uint64_t knights, uint64_t pawns, unsigned rule50,
                         unsigned ep, bool turn, int by_wdl, bool hasRepeated,
                         bool useRule50, int32_t win_rank, const int32_t *values,
                         unsigned *size, PyrrhicMove *moves, int32_t *ranks,
                         int32_t *scores)
{
    fathom_root_move root[FATHOM_MAX_MOVES];
    unsigned count;
    int wdl, dtz, status;
    if (!size || !moves || !ranks || (values && !scores))
        return 0;
    *size = 0;
    if (by_wdl)
        status = tb_facade_wdl_moves(default_tb, white, black, kings, queens, rooks,
                                     bishops, knights, pawns, ep, turn, root, &count);
    else /* like Pyrrhic's, answered from the root's WDL where only its DTZ
          * file is missing (wdl_root) */
        status = tb_facade_root_moves(default_tb, white, black, kings, queens, rooks,
                                      bishops, knights, pawns, rule50, ep, turn, 1,
                                      root, &count, &wdl, &dtz);
    if (status != FATHOM_OK)
        return 0;
    const tb_facade_pieces pieces = {kings, queens, rooks, bishops, knights};
    tb_facade_generator_order(root, count, &pieces, TB_ORDER_PYRRHIC);
    tb_score_scale scale = {0, 0, 0, 0};
    if (values) {
        scale.pawn = values[0];
        scale.mate = values[1];
        scale.draw = values[2];
        scale.max_mate_ply = values[3];
    }
    *size = count < TB_MAX_MOVES ? count : TB_MAX_MOVES;
    for (unsigned i = 0; i < *size; i++) {
        moves[i] = pyrrhic_move_of(&root[i]);
        if (by_wdl) {
            ranks[i] = tb_facade_wdl_rank(root[i].wdl, useRule50, win_rank);
            if (values)
                scores[i] = tb_facade_wdl_score(root[i].wdl, useRule50, &scale);
        } else {
            ranks[i] = tb_facade_rank(&root[i], rule50, hasRepeated, win_rank);
            if (values)
                scores[i] = tb_facade_score(ranks[i], useRule50, &scale);
        }
    }
    return 1;
}
