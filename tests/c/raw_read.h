/*
 * raw_read.h - tests only (see raw_read.c).  Reads `count` positions from
 * the table file at `path` (named `name`, e.g. "KRRvKQN"; is_dtz 0 for
 * WDL).  values[i]: WDL -2..2, or DTZ as the file stores it after the
 * value maps and the moves-to-plies doubling; stored[i] 0 when a DTZ file
 * holds the other side to move; status[i] FATHOM_OK or FATHOM_ERR_CORRUPT.
 * pyfathom_test_search_targets: per position, the read-ahead's targets
 * for its DTZ search with and without its captures' values asked (see
 * raw_read.c).
 * RETURN: the status of opening the file (FATHOM_OK, FATHOM_ERR_*).
 */
#ifndef PYFATHOM_RAW_READ_H
#define PYFATHOM_RAW_READ_H

#include <stddef.h>
#include <stdint.h>

int pyfathom_test_raw_read(const char *path, const char *name, int is_dtz,
                           size_t count, const uint64_t *boards,
                           const uint8_t *turns, const int8_t *wdls,
                           int32_t *values, int8_t *stored, int8_t *status);

int pyfathom_test_search_targets(const char *dir, size_t count, const uint64_t *boards,
                                 const uint8_t *turns, uint32_t *asked, uint32_t *unasked,
                                 uint32_t *captures);

#endif /* PYFATHOM_RAW_READ_H */
