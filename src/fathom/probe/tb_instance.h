/*
 * tb_instance.h - internal: the instance (registry of tables, lazy
 * mapping) shared by tb_instance.c and tb_probe.c.  Not installed.
 */
#ifndef PYFATHOM_TB_INSTANCE_H
#define PYFATHOM_TB_INSTANCE_H

#include "platform/tb_internal.h"

#include "fathom.h"
#include "fen.h"
#include "format/tb_table.h"

#include "platform/tb_platform.h"

enum { SLOT_UNLOADED = 0, SLOT_READY = 1, SLOT_FAILED = 2 };

/* One file (WDL or DTZ) of a material; mapped on first use. */
typedef struct tb_slot {
    char *path;   /* NULL: no such file registered ("memory:NAME" for bytes) */
    const void *data; /* the caller's table bytes (fathom_add_table_memory), */
    size_t size;      /* or NULL: the file at path */
    tb_atomic_int state; /* SLOT_*, read with acquire, written under init_lock */
    int error;    /* status when SLOT_FAILED */
    const char *prefix; /* the prefix file read with it (the instance's), or NULL */
    int prefix_failed;  /* the failure is the prefix file's, not the table's */
    tb_table table;
} tb_slot;

typedef struct tb_entry {
    tb_material mat;
    tb_slot wdl, dtz;
} tb_entry;

typedef struct tb_hash_cell {
    tb_key key;
    tb_entry *entry;
} tb_hash_cell;

/* Read-ahead waves' memory an instance keeps: as many root probes as this
 * can ask ahead at once without allocating (tb_prefetch.c). */
#define TB_WAVE_SPARES 8

struct fathom_tb {
    tb_consts consts;
    tb_entry **entries; /* individually allocated: pointers stay valid */
    size_t num_entries, cap_entries;
    tb_hash_cell *hash; /* open addressing, both colour orientations */
    size_t hash_mask;   /* cells - 1 */
    unsigned hash_bits; /* log2 of the number of cells */
    unsigned largest;
    tb_atomic_int mapped; /* counter of mapped files */
    tb_mutex init_lock; /* taken only while a table is being mapped */
    tb_atomic_int read_ahead; /* FATHOM_READ_AHEAD_* (fathom_set_read_ahead) */
    tb_atomic_int root_prefetch; /* root probes left to ask ahead (tb_prefetch.c) */
    /* fathom_read_ahead_moves in AUTO (tb_prefetch.c): calls until the
     * next one that looks which pages are in memory, and how many looks
     * in a row found every page there. */
    tb_atomic_int moves_until_check;
    tb_atomic_int moves_clean_checks;
    /* Read-ahead waves' memory kept for the next (tb_prefetch.c), as
     * uintptr_t, 0 for none: taken and given back by exchange. */
    tb_atomic_size wave_spare[TB_WAVE_SPARES];
    char **prefixes;    /* prefix files' paths (fathom_add_prefix_directory) */
    size_t num_prefixes, cap_prefixes;
};

/* Where a failure happened, for fathom_detail. */
typedef struct tb_failure {
    tb_key key;            /* material of the table involved (0: none) */
    const tb_entry *entry; /* registered entry, if any */
    int is_dtz;
} tb_failure;

/* The cell a material's search starts at, in a hash of 2^bits cells: the
 * top bits of a multiplicative hash.  Not bits from the middle of the
 * product: those depend only on the key's low fields (a product's bit k
 * sees the factors' bits up to k), so materials differing only in the
 * black pieces shared cells and a lookup took 2.7 probes on average
 * (callgrind, 300,000 random 3-4-5-piece batch rows: 1.3 mispredicted
 * branches a lookup). */
static inline size_t tb_hash_home(tb_key key, unsigned bits)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

/* The cell of a page number (an address >> 12) in a hash of 2^bits cells
 * of pages already asked for (the root waves', tb_prefetch.c, and the
 * batch's read-ahead, tb_read_ahead.c): the same multiplicative hash. */
static inline size_t tb_page_slot(uintptr_t page, unsigned bits)
{
    return tb_hash_home((tb_key)page, bits);
}

/* The registered entry for a material, or NULL. */
static inline tb_entry *tb_lookup(const fathom_tb *tb, tb_key key)
{
    if (!tb->hash)
        return NULL;
    size_t i = tb_hash_home(key, tb->hash_bits);
    for (;;) {
        const tb_hash_cell *cell = &tb->hash[i];
        if (cell->key == key)
            return cell->entry;
        if (cell->key == 0)
            return NULL;
        i = (i + 1) & tb->hash_mask;
    }
}

/*
 * Make sure a slot is mapped and parsed.  Lock-free once ready; the first
 * caller maps it under the instance lock while others wait for it.
 */
TB_INTERNAL int tb_slot_load(fathom_tb *tb, tb_entry *entry, tb_slot *slot, int is_dtz);

static inline int tb_slot_ready(fathom_tb *tb, tb_entry *entry, tb_slot *slot,
                                int is_dtz)
{
    int state = tb_atomic_load_acquire(&slot->state);
    if (state == SLOT_READY)
        return FATHOM_OK;
    if (state == SLOT_FAILED)
        return slot->error;
    return tb_slot_load(tb, entry, slot, is_dtz);
}

/* Table name for a material key, stronger side first ("KRvKP"). */
TB_INTERNAL void tb_key_name(tb_key key, char *out, size_t size);

/* fathom_probe_root (tb_probe.c) of board (its halfmove clock; castling
 * rights answer FATHOM_ERR_CASTLING); with wdl_root set, a root whose own DTZ
 * table is missing is still answered from its WDL and its moves' probes
 * (Fathom's tb_probe_root_dtz does). */
TB_INTERNAL int tb_probe_root_moves(fathom_tb *tb, const fathom_board *board, int wdl_root,
                                    fathom_root_move *moves, unsigned *count, int *wdl,
                                    int *dtz, int *dtz_precise, fathom_detail *detail);

#endif /* PYFATHOM_TB_INSTANCE_H */
