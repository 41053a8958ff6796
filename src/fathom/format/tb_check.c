/*
 * tb_check.c - read a whole table file the way probes read parts of it,
 * and say where it is damaged (fathom_check_table, see fathom.h).
 *
 * A probe opens a table (header, piece order, Huffman headers, the places
 * of the index, size and data regions: tb_table_open) and then, per
 * position, reads one index entry, walks the size table from the block it
 * names, and decodes codes from one data block.  A damaged region is met
 * only by the probe that lands there, possibly hours into a search.  This
 * check opens the table the same way and then goes through every index
 * entry, every block size and every code of every block, so the damage a
 * probe could meet is found before.  What it checks, per value stream:
 *
 *   - the blocks hold at least as many values as the stream has indices;
 *   - each index entry names a real block and a value inside it, and that
 *     value is the one the entry stands for (the middle of its range):
 *     entry j points at value j * 2^idx_bits + 2^(idx_bits - 1);
 *   - the codes of each block are known symbols that reach its stored
 *     number of values (the last symbol may expand past it) inside the
 *     block, and every bit after them is zero, as the generator pads blocks
 *     (true of all 470,706 blocks of the 3-, 4- and 5-piece files the tests
 *     use): a flipped bit in compressed data almost always changes where
 *     the codes end, so it shows.
 *
 * A flipped bit that turns one code into another of the same length and
 * expansion is not seen (the format has no checksum): compare files with
 * published checksums for that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fathom.h"
#include "format/tb_table.h"
#include "format/tb_variant_format.h"
#include "platform/tb_platform.h"

/* What a damaged stream gets as result->what: where, then what. */
static int damaged(fathom_check_result *result, uint64_t offset, const char *what)
{
    result->offset = offset;
    snprintf(result->what, sizeof result->what, "%s", what);
    return FATHOM_ERR_CORRUPT;
}

/* The caller's stop flag (fathom_check_table_stoppable), and whether the
 * check has seen it raised: once seen, every loop ends. */
typedef struct check_stop {
    const int *flag;
    int stopped;
} check_stop;

static int should_stop(check_stop *stop)
{
    if (!stop->stopped && stop->flag && tb_flag_raised(stop->flag))
        stop->stopped = 1;
    return stop->stopped;
}

/* Big-endian reads from a block, zeros past its end. */
static uint32_t be32_padded(const uint8_t *block, uint64_t len, uint64_t at)
{
    uint32_t out = 0;
    for (unsigned i = 0; i < 4; i++)
        out = (out << 8) | (at + i < len ? block[at + i] : 0u);
    return out;
}

static int check_stream(const tb_pairs *p, const tb_map *map, uint64_t values,
                        fathom_check_result *result, check_stop *stop)
{
    if (p->constant)
        return FATHOM_OK;
    const uint8_t *d = map->data;
    const uint8_t *sizes = d + p->size_table;
    uint64_t block_bytes = 1ull << p->block_log;
    char what[128];

    /* Block sizes: where each block's values start in the stream. */
    uint64_t *start = (uint64_t *)malloc(sizeof(uint64_t) * (p->num_blocks + 1));
    if (!start)
        return FATHOM_ERR_NO_MEMORY;
    start[0] = 0;
    for (uint64_t b = 0; b < p->num_blocks; b++)
        start[b + 1] = start[b] + tb_u16le(sizes + 2 * b) + 1;
    if (start[p->real_num_blocks] < values) {
        snprintf(what, sizeof what, "the blocks hold %llu values, the table %llu",
                 (unsigned long long)start[p->real_num_blocks], (unsigned long long)values);
        free(start);
        return damaged(result, p->size_table, what);
    }

    /* Index entries: each names the block and offset of its middle value. */
    uint64_t half = 1ull << (p->idx_bits - 1);
    for (uint64_t j = 0; j < p->num_indices; j++) {
        if ((j & 4095) == 0 && should_stop(stop)) {
            free(start);
            return FATHOM_OK;
        }
        const uint8_t *entry = d + p->index_table + 6 * j;
        uint64_t block = tb_u32le(entry), offset = tb_u16le(entry + 4);
        if (block >= p->num_blocks || offset > tb_u16le(sizes + 2 * block) ||
            start[block] + offset != (j << p->idx_bits) + half) {
            snprintf(what, sizeof what, "index entry %llu points at the wrong block or value",
                     (unsigned long long)j);
            free(start);
            return damaged(result, p->index_table + 6 * j, what);
        }
    }
    free(start);

    /* Blocks: the codes of each reach its number of values inside it (the
     * last symbol may expand past it), and every bit after them is zero. */
    for (uint64_t b = 0; b < p->real_num_blocks; b++) {
        if (should_stop(stop))
            return FATHOM_OK;
        const uint8_t *block = d + p->data + (b << p->block_log);
        uint64_t need = (uint64_t)tb_u16le(sizes + 2 * b) + 1, pos = 0;
        /* The code stream as probes read it: 64 bits, refilled 32 at a time. */
        uint64_t code = (uint64_t)be32_padded(block, block_bytes, 0) << 32 |
                        be32_padded(block, block_bytes, 4);
        uint64_t next = 8;
        unsigned bits_free = 0;
        int fine = 1;
        while (need > 0 && fine) {
            /* Whole codes in the top bits are skipped at once, as a probe does. */
            tb_top_code top = p->by_top[TB_TOP_OF(code)];
            unsigned len = 0;
            if (TB_TOP_SKIP_VALUES(top) && need > TB_TOP_SKIP_VALUES(top)) {
                need -= TB_TOP_SKIP_VALUES(top);
                len = TB_TOP_SKIP_BITS(top);
            } else {
                uint32_t sym;
                fine = tb_huffman_decode(p, top, code, &len, &sym);
                if (fine) {
                    uint64_t n = (uint64_t)p->sym_len[sym] + 1;
                    need -= n < need ? n : need;
                }
            }
            pos += len;
            fine = fine && pos <= 8 * block_bytes;
            if (!fine)
                break;
            code <<= len;
            bits_free += len;
            if (bits_free >= 32) {
                bits_free -= 32;
                code |= (uint64_t)be32_padded(block, block_bytes, next) << bits_free;
                next += 4;
            }
        }
        if (fine && (pos & 7))
            fine = (block[pos >> 3] & (0xffu >> (pos & 7))) == 0;
        for (uint64_t q = (pos + 7) >> 3; fine && q < block_bytes; q++)
            fine = block[q] == 0;
        if (!fine) {
            snprintf(what, sizeof what, "block %llu does not decode to its %llu values",
                     (unsigned long long)b, (unsigned long long)tb_u16le(sizes + 2 * b) + 1);
            return damaged(result, p->data + (b << p->block_log), what);
        }
    }
    return FATHOM_OK;
}

/* The table's material and kind from the file name at the end of path. */
static int parse_name(const char *path, tb_material *mat, int *is_dtz)
{
    const char *name = path;
    for (const char *s = path; *s; s++)
        if (*s == '/' || *s == '\\')
            name = s + 1;
    size_t len = strlen(name);
    if (len < 5 || name[len - 5] != '.' || strncmp(name + len - 4, "rtb", 3) != 0)
        return 0;
    char kind = name[len - 1];
    if (kind != 'w' && kind != 'z')
        return 0;
    *is_dtz = kind == 'z';
    return tb_material_parse(name, len - 5, mat);
}

int fathom_check_table(const char *path, fathom_check_result *result)
{
    return fathom_check_table_stoppable(path, result, NULL, NULL);
}

int fathom_check_table_stoppable(const char *path, fathom_check_result *result,
                                 const int *stop, int *stopped)
{
    check_stop state = {stop, 0};
    if (stopped)
        *stopped = 0;
    if (!path || !result)
        return FATHOM_ERR_ARGUMENT;
    memset(result, 0, sizeof *result);
    tb_material mat;
    int is_dtz;
    if (!parse_name(path, &mat, &is_dtz)) {
        snprintf(result->what, sizeof result->what,
                 "not a Syzygy table name (like KRPvKR.rtbw or KRPvKR.rtbz)");
        return FATHOM_ERR_ARGUMENT;
    }
    tb_lone_table *lone;
    int status = tb_lone_table_open(path, &mat, is_dtz, &lone);
    if (status == FATHOM_OK) {
        const tb_table *t = &lone->table;
        int streams = t->files * t->sides;
        for (int i = 0; i < streams && status == FATHOM_OK && !state.stopped; i++)
            status = check_stream(&t->enc[i].pairs, &t->map, t->enc[i].size, result, &state);
        if (tb_map_damaged(&t->map)) {
            /* A page could not be read while checking: not the file's
             * content but its reading failed. */
            status = FATHOM_ERR_IO;
            snprintf(result->what, sizeof result->what, "%s", fathom_strerror(status));
        }
        tb_lone_table_close(lone);
    } else {
        snprintf(result->what, sizeof result->what, "%s", fathom_strerror(status));
    }
    if (stopped)
        *stopped = state.stopped;
    return status;
}

int tb_lone_table_open(const char *path, const tb_material *mat, int is_dtz,
                       tb_lone_table **out)
{
    *out = NULL;
    tb_lone_table *lone = (tb_lone_table *)malloc(sizeof *lone);
    if (!lone)
        return FATHOM_ERR_NO_MEMORY;
    tb_consts_init(&lone->consts);
    tb_variant_format_init(&lone->consts, FATHOM_VARIANT_STANDARD);
    int status = tb_table_open(&lone->table, path, NULL, NULL, 0, mat, is_dtz, &lone->consts);
    if (status != FATHOM_OK) {
        free(lone);
        return status;
    }
    *out = lone;
    return FATHOM_OK;
}

void tb_lone_table_close(tb_lone_table *lone)
{
    if (!lone)
        return;
    tb_table_close(&lone->table);
    free(lone);
}

/* One part of a layout, unless it is empty. */
static void add_part(fathom_table_part *parts, unsigned *count, uint64_t offset,
                     uint64_t length, int kind, int stream, int sides)
{
    if (length == 0)
        return;
    fathom_table_part *part = &parts[(*count)++];
    part->offset = offset;
    part->length = length;
    part->kind = (uint8_t)kind;
    part->file = (uint8_t)(stream / sides);
    part->side = (uint8_t)(stream % sides);
}

int fathom_table_layout(const char *path, fathom_table_part *parts, unsigned capacity,
                        unsigned *count)
{
    if (!path || !parts || !count || capacity < FATHOM_LAYOUT_MAX_PARTS)
        return FATHOM_ERR_ARGUMENT;
    *count = 0;
    tb_material mat;
    int is_dtz;
    if (!parse_name(path, &mat, &is_dtz))
        return FATHOM_ERR_ARGUMENT;
    tb_lone_table *lone;
    int status = tb_lone_table_open(path, &mat, is_dtz, &lone);
    if (status != FATHOM_OK)
        return status;
    const tb_table *t = &lone->table;
    int streams = t->files * t->sides;
    /* The regions follow each other in this order (place_regions in
     * tb_table.c): everything before the first stored stream's sparse
     * index is header. */
    uint64_t head_end = t->map.size;
    for (int i = 0; i < streams; i++)
        if (!t->enc[i].pairs.constant && t->enc[i].pairs.index_table < head_end)
            head_end = t->enc[i].pairs.index_table;
    add_part(parts, count, 0, head_end, FATHOM_PART_HEADER, 0, 1);
    for (int kind = FATHOM_PART_SPARSE_INDEX; kind <= FATHOM_PART_DATA; kind++)
        for (int i = 0; i < streams; i++) {
            const tb_pairs *p = &t->enc[i].pairs;
            if (p->constant)
                continue;
            if (kind == FATHOM_PART_SPARSE_INDEX)
                add_part(parts, count, p->index_table, 6 * p->num_indices, kind, i, t->sides);
            else if (kind == FATHOM_PART_BLOCK_LENGTHS)
                add_part(parts, count, p->size_table, 2 * p->num_blocks, kind, i, t->sides);
            else
                add_part(parts, count, p->data, p->real_num_blocks << p->block_log, kind, i,
                         t->sides);
        }
    tb_lone_table_close(lone);
    return FATHOM_OK;
}

int fathom_file_resident(const char *path, size_t n, const uint64_t *offsets,
                         const uint64_t *lengths, uint64_t *resident)
{
    if (!path || (n && (!offsets || !lengths || !resident)))
        return FATHOM_ERR_ARGUMENT;
    const void *data;
    size_t size;
    tb_fault_guard *guard; /* mincore reads no page: it never faults */
    int status = tb_os_map_file(path, &data, &size, &guard);
    if (status != FATHOM_OK)
        return status;
    for (size_t i = 0; i < n && status == FATHOM_OK; i++)
        status = tb_os_resident(data, size, offsets[i], lengths[i], &resident[i]);
    tb_os_unmap_file(data, size, guard);
    return status;
}
