/*
 * tb_io.h - file access for table files: read-only memory maps (or bytes
 * the caller holds), directory listing, and bounds-checked little/big-endian
 * reads.  This is the only part of the core that talks to the operating
 * system about files.
 */
#ifndef PYFATHOM_TB_IO_H
#define PYFATHOM_TB_IO_H

#include "platform/tb_internal.h"
#include "platform/tb_platform.h"

#include <stddef.h>
#include <stdint.h>

/* A read-only view of a whole file.  data == NULL means "not mapped". */
typedef struct tb_map {
    const uint8_t *data;
    size_t size;
    int borrowed; /* the caller's bytes (tb_map_memory): never unmapped */
    tb_fault_guard *guard; /* a mapped file's (tb_platform.h), or NULL */
} tb_map;

/*
 * Map `path` read-only.  The descriptor is closed before returning, so an
 * instance with a thousand tables keeps no descriptor open.
 * RETURN: FATHOM_OK, FATHOM_ERR_IO (cannot open/stat/map, not a regular
 * file) or FATHOM_ERR_BAD_SIZE (empty file).
 */
TB_INTERNAL int tb_map_file(const char *path, tb_map *out);

/*
 * View `size` bytes the caller holds as a file (they must stay unchanged
 * until the view is released).  Reads through it are checked exactly as
 * for a mapped file.  RETURN: FATHOM_OK or FATHOM_ERR_BAD_SIZE (no bytes).
 */
TB_INTERNAL int tb_map_memory(const void *data, size_t size, tb_map *out);

/*
 * Serve the head of a mapped file (tb_map_file) from a prefix file, a copy
 * of its first bytes kept on faster storage (lila-tablebase's
 * --hot-prefix files): tb_os_map_prefix.  *covered receives how many
 * bytes of the view now come from it.  On failure the caller releases
 * the view.  RETURN: as tb_os_map_prefix; FATHOM_ERR_ARGUMENT for the
 * caller's bytes.
 */
TB_INTERNAL int tb_map_prefix(tb_map *map, const char *prefix_path, size_t *covered);

/* Release a view made by tb_map_file or tb_map_memory; a zeroed map is fine. */
TB_INTERNAL void tb_unmap_file(tb_map *map);

/*
 * Has a page of the mapped file been lost since it was mapped (the file
 * cut short, a disk error)?  Such a page reads as zeros (tb_platform.c's
 * fault guard), which every reader decodes safely; a reader asks this
 * after its reads and answers FATHOM_ERR_IO when it is set, whatever it
 * decoded.  Set for good: the view stays damaged until it is released.
 * Never set for the caller's bytes, nor where the system has no guard.
 */
static inline int tb_map_damaged(const tb_map *map)
{
    return map->guard != NULL && tb_os_guard_damaged(map->guard);
}

/*
 * Call visit(name, context) for each entry of directory `dir` (file names
 * only, in the order the system gives them) until it returns nonzero.
 * RETURN: FATHOM_OK, FATHOM_ERR_IO (cannot list the directory),
 * FATHOM_ERR_ARGUMENT (a path too long for the system), or the nonzero
 * value visit returned.
 */
TB_INTERNAL int tb_list_dir(const char *dir, int (*visit)(const char *name, void *context),
                void *context);

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
