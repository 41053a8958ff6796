/*
 * tb_io.h - file access for table files: read-only memory maps and
 * bounds-checked little/big-endian reads.  This is the only part of the
 * core that talks to the operating system about files.
 */
#ifndef PYFATHOM_TB_IO_H
#define PYFATHOM_TB_IO_H

#include "tb_internal.h"

#include <stddef.h>
#include <stdint.h>

/* A read-only view of a whole file.  data == NULL means "not mapped". */
typedef struct tb_map {
    const uint8_t *data;
    size_t size;
} tb_map;

/*
 * Map `path` read-only.  The descriptor is closed before returning, so an
 * instance with a thousand tables keeps no descriptor open.
 * RETURN: FATHOM_OK, FATHOM_ERR_IO (cannot open/stat/map, not a regular
 * file) or FATHOM_ERR_BAD_SIZE (empty file).
 */
TB_INTERNAL int tb_map_file(const char *path, tb_map *out);

/* Release a mapping made by tb_map_file; a zeroed map is fine. */
TB_INTERNAL void tb_unmap_file(tb_map *map);

/* True when [offset, offset + len) lies inside the map (overflow-safe). */
static inline int tb_in_bounds(const tb_map *map, uint64_t offset, uint64_t len)
{
    return offset <= map->size && len <= map->size - offset;
}

/*
 * Unchecked readers: callers have checked the range with tb_in_bounds (or
 * validated the whole region once when a table was opened).
 */
static inline uint16_t tb_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t tb_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint32_t tb_u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t tb_u64be(const uint8_t *p)
{
    return ((uint64_t)tb_u32be(p) << 32) | tb_u32be(p + 4);
}

#endif /* PYFATHOM_TB_IO_H */
