/*
 * raw_read.c - for the tests only: the value one table file stores for
 * each of a list of positions, straight from the decoder (tb_table_wdl,
 * tb_table_dtz), with no probing logic (captures, en passant, DTZ search)
 * on top.  tests/test_beyond_five.py compares it with python-chess's own
 * table reader (WdlTable.probe_wdl_table, DtzTable.probe_dtz_table) on
 * synthetic 6- and 7-piece files.  Not part of the public API, and in no
 * shipped module: build_ffi.build_test_decoder builds it with the core into
 * a module of its own for the tests (tests/support/raw_decoder.py).
 */
#include <stdint.h>
#include <string.h>

#include "fathom.h"
#include "format/tb_table.h"

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
