/*
 * raw_read.c - for the tests only: the value one table file stores for
 * each of a list of positions, straight from the decoder (tb_table_wdl,
 * tb_table_dtz), with no probing logic (captures, en passant, DTZ search)
 * on top.  tests/test_beyond_five.py compares it with python-chess's own
 * table reader (WdlTable.probe_wdl_table, DtzTable.probe_dtz_table) on
 * synthetic 6- and 7-piece files.  pyfathom_test_search_targets, below,
 * counts the read-ahead's targets for a position's DTZ search
 * (tests/test_root_prefetch.py).  Not part of the public API, and in no
 * shipped module: build_ffi.build_test_decoder builds it with the core into
 * a module of its own for the tests (tests/support/raw_decoder.py).
 */
#include <stdint.h>
#include <string.h>

#include "fathom.h"
#include "format/tb_table.h"
#include "probe/tb_probe.h"

#include "raw_read.h"

/* boards[8 * i ..]: white, black, then pawns .. kings (python-chess's
 * piece types 1..6).  Per position: turn (1 white), and for DTZ the WDL
 * (-2..2) that selects the value map. */
static void board_of(const uint64_t *b, uint8_t turn, tb_pos *pos)
{
    memset(pos, 0, sizeof *pos);
    pos->color[TB_WHITE] = b[0];
    pos->color[TB_BLACK] = b[1];
    for (int t = TB_PAWN; t <= TB_KING; t++)
        pos->type[t] = b[1 + t];
    pos->turn = turn ? TB_WHITE : TB_BLACK;
}

int pyfathom_test_raw_read(const char *path, const char *name, int is_dtz,
                           size_t count, const uint64_t *boards,
                           const uint8_t *turns, const int8_t *wdls,
                           int32_t *values, int8_t *stored, int8_t *status)
{
    if (!path || !name || (count && (!boards || !turns || !wdls || !values ||
                                      !stored || !status)))
        return FATHOM_ERR_ARGUMENT;
    tb_material mat;
    if (!tb_material_parse(name, strlen(name), &mat))
        return FATHOM_ERR_ARGUMENT;
    tb_lone_table *lone;
    int open_status = tb_lone_table_open(path, &mat, is_dtz, &lone);
    if (open_status != FATHOM_OK)
        return open_status;
    for (size_t i = 0; i < count; i++) {
        tb_pos pos;
        board_of(boards + 8 * i, turns[i], &pos);
        tb_key key = tb_key_of(&pos, 0);
        int value = 0, precise = 0, is_stored = 1;
        int s = is_dtz ? tb_table_dtz(&lone->table, &lone->consts, &pos, key, wdls[i],
                                      NULL, &value, &precise, &is_stored)
                       : tb_table_wdl(&lone->table, &lone->consts, &pos, key, NULL, &value);
        values[i] = value;
        stored[i] = (int8_t)is_stored;
        status[i] = (int8_t)s;
    }
    tb_lone_table_close(lone);
    return open_status;
}

/* Per position (bitboards as above, no en passant, clock 0), after its
 * DTZ probe through the instance (which opens the tables it reads): the
 * read-ahead's targets for its DTZ search (tb_search_targets, without the
 * children's captures) when pos's captures' values count as asked, three
 * plies deep as the root waves ask them (asked[i]), and when not
 * (unasked[i]), and its captures' alone
 * (captures[i]: where unasked[i] is more, a search was asked).
 * RETURN: the status of opening the instance and adding dir. */
int pyfathom_test_search_targets(const char *dir, size_t count, const uint64_t *boards,
                                 const uint8_t *turns, uint32_t *asked, uint32_t *unasked,
                                 uint32_t *captures)
{
    static tb_ahead_target out[4096];
    if (!dir || (count && (!boards || !turns || !asked || !unasked || !captures)))
        return FATHOM_ERR_ARGUMENT;
    fathom_tb *tb;
    int status = fathom_open(&tb);
    if (status != FATHOM_OK)
        return status;
    status = fathom_add_directory(tb, dir, 1, 1, NULL);
    for (size_t i = 0; i < count && status == FATHOM_OK; i++) {
        const uint64_t *b = boards + 8 * i;
        fathom_board board = {b[0], b[1], b[7], b[6], b[5], b[4], b[3], b[2], 0,
                              turns[i], 0, 0, 1};
        (void)fathom_probe_dtz(tb, &board, NULL);
        tb_pos pos;
        board_of(b, turns[i], &pos);
        asked[i] = tb_search_targets(tb, &pos, 0, 3, out, 4096);
        unasked[i] = tb_search_targets(tb, &pos, 0, 0, out, 4096);
        captures[i] = tb_capture_targets(tb, &pos, 1, out, 4096);
    }
    fathom_close(tb);
    return status;
}
