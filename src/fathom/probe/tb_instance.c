/*
 * tb_instance.c - creating and closing instances, registering table files
 * found in directories (or table bytes the caller holds), and mapping them
 * on first use.
 */
#include "probe/tb_instance.h"
#include "format/tb_variant_format.h"

#include <stdlib.h>
#include <string.h>

static const char *const status_text[FATHOM_STATUS_COUNT] = {
    "ok",
    "a required table is not loaded",
    "positions with castling rights are not in tablebases",
    "more pieces than the tables hold",
    "invalid position",
    "invalid magic header: not a Syzygy table of this kind",
    "invalid file size: truncated or not a Syzygy table",
    "corrupt table: data points outside the file or is inconsistent",
    "cannot open, map or read the file",
    "out of memory",
    "invalid argument",
};

const char *fathom_strerror(int status)
{
    if (status < 0 || status >= FATHOM_STATUS_COUNT)
        return "unknown status";
    return status_text[status];
}

void fathom_set_fault_guard(int enabled)
{
    tb_os_set_fault_guard(enabled);
}

int fathom_open(fathom_tb **out)
{
    return fathom_open_variant(out, FATHOM_VARIANT_STANDARD);
}

int fathom_open_variant(fathom_tb **out, int variant)
{
    if (!out)
        return FATHOM_ERR_ARGUMENT;
    *out = NULL;
    if (variant < 0 || variant >= FATHOM_VARIANT_COUNT)
        return FATHOM_ERR_ARGUMENT;
    fathom_tb *tb = (fathom_tb *)calloc(1, sizeof *tb);
    if (!tb)
        return FATHOM_ERR_NO_MEMORY;
    tb_consts_init(&tb->consts);
    tb_variant_format_init(&tb->consts, variant);
    tb_mutex_init(&tb->init_lock);
    tb_atomic_store_release(&tb->read_ahead, FATHOM_READ_AHEAD_AUTO);
    tb_atomic_store_release(&tb->root_prefetch, 0);
    tb_atomic_store_release(&tb->moves_until_check, 0);
    tb_atomic_store_release(&tb->moves_clean_checks, 0);
    for (int i = 0; i < TB_WAVE_SPARES; i++)
        tb_atomic_size_init(&tb->wave_spare[i], 0);
    *out = tb;
    return FATHOM_OK;
}

int fathom_set_read_ahead(fathom_tb *tb, int mode)
{
    if (!tb || mode < FATHOM_READ_AHEAD_OFF || mode > FATHOM_READ_AHEAD_ALWAYS)
        return FATHOM_ERR_ARGUMENT;
    tb_atomic_store_release(&tb->read_ahead, mode);
    return FATHOM_OK;
}

int fathom_read_ahead(const fathom_tb *tb)
{
    return tb ? tb_atomic_load_acquire((tb_atomic_int *)&tb->read_ahead) : -1;
}

int fathom_variant(const fathom_tb *tb) { return tb ? tb->consts.variant : -1; }

static void free_slot(tb_slot *slot)
{
    if (tb_atomic_load_relaxed(&slot->state) == SLOT_READY)
        tb_table_close(&slot->table);
    free(slot->path);
    memset(slot, 0, sizeof *slot);
}

void fathom_close(fathom_tb *tb)
{
    if (!tb)
        return;
    for (size_t i = 0; i < tb->num_entries; i++) {
        free_slot(&tb->entries[i]->wdl);
        free_slot(&tb->entries[i]->dtz);
        free(tb->entries[i]);
    }
    free(tb->entries);
    free(tb->hash);
    for (size_t i = 0; i < tb->num_prefixes; i++)
        free(tb->prefixes[i]);
    free(tb->prefixes);
    for (int i = 0; i < TB_WAVE_SPARES; i++)
        free((void *)(uintptr_t)tb_atomic_exchange_size(&tb->wave_spare[i], 0));
    tb_mutex_destroy(&tb->init_lock);
    free(tb);
}

unsigned fathom_largest(const fathom_tb *tb) { return tb ? tb->largest : 0; }

unsigned fathom_mapped_count(const fathom_tb *tb)
{
    /* Reading the counter changes nothing; the cast only drops the const
     * that Win32's interlocked reads cannot take. */
    return tb ? (unsigned)tb_atomic_load_relaxed((tb_atomic_int *)&tb->mapped) : 0;
}

static void hash_insert(tb_hash_cell *hash, unsigned bits, tb_key key, tb_entry *e)
{
    size_t mask = ((size_t)1 << bits) - 1;
    size_t i = tb_hash_home(key, bits);
    while (hash[i].key != 0 && hash[i].key != key)
        i = (i + 1) & mask;
    hash[i].key = key;
    hash[i].entry = e;
}

/* Keep the hash at most a quarter full so probes stay short. */
static int rebuild_hash(fathom_tb *tb)
{
    size_t size = 64;
    unsigned bits = 6;
    while (size < 8 * (tb->num_entries + 1)) {
        size *= 2;
        bits++;
    }
    tb_hash_cell *hash = (tb_hash_cell *)calloc(size, sizeof *hash);
    if (!hash)
        return FATHOM_ERR_NO_MEMORY;
    for (size_t i = 0; i < tb->num_entries; i++) {
        tb_entry *e = tb->entries[i];
        hash_insert(hash, bits, e->mat.key, e);
        hash_insert(hash, bits, e->mat.mirror_key, e);
    }
    free(tb->hash);
    tb->hash = hash;
    tb->hash_mask = size - 1;
    tb->hash_bits = bits;
    return FATHOM_OK;
}

/*
 * Register one file of a table: dir/file_name, or with data not NULL the
 * caller's bytes, named "memory:" file_name.
 */
static int register_file(fathom_tb *tb, const tb_material *mat, int is_dtz,
                         const char *dir, const char *file_name,
                         const void *data, size_t size)
{
    tb_entry *e = tb_lookup(tb, mat->key);
    if (!e) {
        if (tb->num_entries == tb->cap_entries) {
            size_t cap = tb->cap_entries ? 2 * tb->cap_entries : 64;
            tb_entry **grown = (tb_entry **)realloc(tb->entries, cap * sizeof *grown);
            if (!grown)
                return FATHOM_ERR_NO_MEMORY;
            tb->entries = grown;
            tb->cap_entries = cap;
        }
        e = (tb_entry *)calloc(1, sizeof *e);
        if (!e)
            return FATHOM_ERR_NO_MEMORY;
        e->mat = *mat;
        tb->entries[tb->num_entries++] = e;
        int status = rebuild_hash(tb);
        if (status != FATHOM_OK) {
            tb->num_entries--;
            free(e);
            return status;
        }
    }
    size_t dir_len = strlen(dir), name_len = strlen(file_name);
    char *path = (char *)malloc(dir_len + name_len + 2);
    if (!path)
        return FATHOM_ERR_NO_MEMORY;
    memcpy(path, dir, dir_len);
    size_t at = dir_len;
    if (!data && dir_len && dir[dir_len - 1] != '/' && dir[dir_len - 1] != '\\')
        path[at++] = '/';
    memcpy(path + at, file_name, name_len + 1);

    /* A later directory replaces an earlier file of the same table. */
    tb_slot *slot = is_dtz ? &e->dtz : &e->wdl;
    free_slot(slot);
    slot->path = path;
    slot->data = data;
    slot->size = size;
    if (!is_dtz && mat->num > tb->largest)
        tb->largest = mat->num;
    return FATHOM_OK;
}

/* "KRPvKR.rtbw" -> material and kind; 0 if not a table name of the
 * variant (its suffixes, its normalised names). */
static int parse_file_name(const char *name, int variant, tb_material *mat,
                           int *is_dtz)
{
    size_t len = strlen(name);
    if (len < 5 + 3)
        return 0;
    if (!tb_material_parse_variant(name, len - 5, tb_variant_one_king(variant), mat))
        return 0;
    *is_dtz = tb_variant_suffix_kind(variant, name + len - 5, mat->has_pawns);
    if (*is_dtz < 0)
        return 0;
    /* Only the normalised name of a material is a table file. */
    char normal[16];
    tb_key_name(mat->key, normal, sizeof normal);
    return strcmp(normal, mat->name) == 0;
}

/* What fathom_add_directory passes to each directory entry. */
typedef struct dir_scan {
    fathom_tb *tb;
    const char *dir;
    int load_wdl, load_dtz;
    unsigned count;
} dir_scan;

static int register_entry(const char *name, void *context)
{
    dir_scan *scan = (dir_scan *)context;
    tb_material mat;
    int is_dtz;
    /* Anything named like a table is registered, even a directory:
     * probing it then reports an I/O error naming the path instead of
     * a silently missing table. */
    if (!parse_file_name(name, scan->tb->consts.variant, &mat, &is_dtz))
        return FATHOM_OK;
    if ((is_dtz && !scan->load_dtz) || (!is_dtz && !scan->load_wdl))
        return FATHOM_OK;
    int status = register_file(scan->tb, &mat, is_dtz, scan->dir, name, NULL, 0);
    if (status == FATHOM_OK)
        scan->count++;
    return status;
}

int fathom_add_directory(fathom_tb *tb, const char *dir, int load_wdl,
                         int load_dtz, unsigned *found)
{
    if (found)
        *found = 0;
    if (!tb || !dir)
        return FATHOM_ERR_ARGUMENT;
    dir_scan scan = {tb, dir, load_wdl, load_dtz, 0};
    int status = tb_list_dir(dir, register_entry, &scan);
    if (status != FATHOM_OK)
        return status;
    if (found)
        *found = scan.count;
    return FATHOM_OK;
}

int fathom_add_file(fathom_tb *tb, const char *path, int load_wdl,
                    int load_dtz, unsigned *found)
{
    if (found)
        *found = 0;
    if (!tb || !path)
        return FATHOM_ERR_ARGUMENT;
    /* Split at the last separator (register_file joins the two parts
     * back into the same string). */
    const char *name = path;
    for (const char *c = path; *c; c++)
        if (tb_is_dir_separator(*c))
            name = c + 1;
    size_t dir_len = (size_t)(name - path);
    tb_material mat;
    int is_dtz;
    if (!parse_file_name(name, tb->consts.variant, &mat, &is_dtz) || (is_dtz && !load_dtz) ||
        (!is_dtz && !load_wdl))
        return FATHOM_OK;
    char *dir = (char *)malloc(dir_len + 1);
    if (!dir)
        return FATHOM_ERR_NO_MEMORY;
    memcpy(dir, path, dir_len);
    dir[dir_len] = '\0';
    int status = register_file(tb, &mat, is_dtz, dir, name, NULL, 0);
    free(dir);
    if (status == FATHOM_OK && found)
        *found = 1;
    return status;
}

int fathom_add_table_memory(fathom_tb *tb, const char *name, const void *data,
                            size_t size)
{
    if (!tb || !name || (!data && size))
        return FATHOM_ERR_ARGUMENT;
    tb_material mat;
    int is_dtz;
    if (!parse_file_name(name, tb->consts.variant, &mat, &is_dtz))
        return FATHOM_ERR_ARGUMENT;
    /* An empty buffer still needs an address to be told from a file. */
    static const uint8_t no_bytes[1] = {0};
    return register_file(tb, &mat, is_dtz, "memory:", name, size ? data : no_bytes, size);
}

int fathom_add_path_list(fathom_tb *tb, const char *paths, char sep,
                         unsigned *found)
{
    if (found)
        *found = 0;
    if (!tb || !paths)
        return FATHOM_ERR_ARGUMENT;
    unsigned total = 0;
    const char *p = paths;
    while (*p) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0) {
            char *dir = (char *)malloc(len + 1);
            if (!dir)
                return FATHOM_ERR_NO_MEMORY;
            memcpy(dir, p, len);
            dir[len] = '\0';
            unsigned n = 0;
            int status = fathom_add_directory(tb, dir, 1, 1, &n);
            free(dir);
            if (status == FATHOM_ERR_NO_MEMORY)
                return status;
            total += n;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (found)
        *found = total;
    return FATHOM_OK;
}

/* ---- Prefix files ---------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *name = path;
    for (const char *c = path; *c; c++)
        if (tb_is_dir_separator(*c))
            name = c + 1;
    return name;
}

static int add_prefix_path(fathom_tb *tb, const char *dir, const char *name)
{
    if (tb->num_prefixes == tb->cap_prefixes) {
        size_t cap = tb->cap_prefixes ? 2 * tb->cap_prefixes : 16;
        char **grown = (char **)realloc(tb->prefixes, cap * sizeof *grown);
        if (!grown)
            return FATHOM_ERR_NO_MEMORY;
        tb->prefixes = grown;
        tb->cap_prefixes = cap;
    }
    size_t dir_len = strlen(dir), name_len = strlen(name);
    char *path = (char *)malloc(dir_len + name_len + 2);
    if (!path)
        return FATHOM_ERR_NO_MEMORY;
    memcpy(path, dir, dir_len);
    size_t at = dir_len;
    if (dir_len && !tb_is_dir_separator(dir[dir_len - 1]))
        path[at++] = '/';
    memcpy(path + at, name, name_len + 1);
    tb->prefixes[tb->num_prefixes++] = path;
    return FATHOM_OK;
}

typedef struct prefix_scan {
    fathom_tb *tb;
    const char *dir;
    unsigned count;
} prefix_scan;

/* Every "NAME.prefix" is a candidate, as lila-tablebase takes them: it is
 * used when a table file called NAME is mapped. */
static int register_prefix(const char *name, void *context)
{
    prefix_scan *scan = (prefix_scan *)context;
    size_t len = strlen(name);
    if (len <= 7 || strcmp(name + len - 7, ".prefix") != 0)
        return FATHOM_OK;
    int status = add_prefix_path(scan->tb, scan->dir, name);
    if (status == FATHOM_OK)
        scan->count++;
    return status;
}

int fathom_add_prefix_directory(fathom_tb *tb, const char *dir, unsigned *found)
{
    if (found)
        *found = 0;
    if (!tb || !dir || TB_OS_WINDOWS)
        return FATHOM_ERR_ARGUMENT;
    prefix_scan scan = {tb, dir, 0};
    int status = tb_list_dir(dir, register_prefix, &scan);
    if (found)
        *found = scan.count;
    return status;
}

/* The prefix file for a table file (the last directory added wins), or NULL. */
static const char *find_prefix(const fathom_tb *tb, const char *table_path)
{
    const char *name = base_name(table_path);
    size_t len = strlen(name);
    for (size_t i = tb->num_prefixes; i-- > 0;) {
        const char *candidate = base_name(tb->prefixes[i]);
        if (strncmp(candidate, name, len) == 0 && strcmp(candidate + len, ".prefix") == 0)
            return tb->prefixes[i];
    }
    return NULL;
}

/* Open a slot's table, with its prefix file if it has one.  When that
 * fails, the table alone tells whose fault it is (slot->prefix_failed). */
static int open_slot(fathom_tb *tb, tb_entry *entry, tb_slot *slot, int is_dtz)
{
    slot->prefix = slot->data ? NULL : find_prefix(tb, slot->path);
    slot->prefix_failed = 0;
    int status = tb_table_open(&slot->table, slot->path, slot->prefix, slot->data,
                               slot->size, &entry->mat, is_dtz, &tb->consts);
    if (status == FATHOM_OK || !slot->prefix || status == FATHOM_ERR_NO_MEMORY)
        return status;
    int alone = tb_table_open(&slot->table, slot->path, NULL, NULL, 0, &entry->mat,
                              is_dtz, &tb->consts);
    if (alone != FATHOM_OK)
        return alone;
    tb_table_close(&slot->table);
    slot->prefix_failed = 1;
    return status;
}

int tb_slot_load(fathom_tb *tb, tb_entry *entry, tb_slot *slot, int is_dtz)
{
    if (!slot->path)
        return FATHOM_ERR_MISSING_TABLE;
    tb_mutex_lock(&tb->init_lock);
    int state = tb_atomic_load_acquire(&slot->state);
    if (state == SLOT_UNLOADED) {
        int status = open_slot(tb, entry, slot, is_dtz);
        if (status == FATHOM_OK) {
            tb_atomic_add_relaxed(&tb->mapped, 1);
            state = SLOT_READY;
        } else if (status == FATHOM_ERR_IO || status == FATHOM_ERR_NO_MEMORY) {
            /* Address space, memory or descriptors may come back: leave
             * the slot unloaded so a later probe tries again. */
            tb_mutex_unlock(&tb->init_lock);
            return status;
        } else {
            /* A damaged file stays damaged: remember the verdict. */
            slot->error = status;
            state = SLOT_FAILED;
        }
        /* Publish the parsed table before the state that says so. */
        tb_atomic_store_release(&slot->state, state);
    }
    tb_mutex_unlock(&tb->init_lock);
    return state == SLOT_READY ? FATHOM_OK : slot->error;
}

void tb_key_name(tb_key key, char *out, size_t size)
{
    static const char letters[] = "KQRBNP";
    static const int types[] = {TB_KING, TB_QUEEN, TB_ROOK, TB_BISHOP,
                                TB_KNIGHT, TB_PAWN};
    int count[2][7] = {{0}};
    for (int t = TB_PAWN; t <= TB_KING; t++) {
        count[TB_WHITE][t] = (int)((key >> (4 * (t - 1))) & 15);
        count[TB_BLACK][t] = (int)((key >> (4 * (t - 1) + 24)) & 15);
    }
    /* Stronger side first: more pieces; on equal counts, the side whose
     * opponent lists weaker pieces earlier (python-chess's order). */
    int first = TB_WHITE;
    int nw = 0, nb = 0;
    for (int t = TB_PAWN; t <= TB_KING; t++) {
        nw += count[TB_WHITE][t];
        nb += count[TB_BLACK][t];
    }
    if (nw < nb) {
        first = TB_BLACK;
    } else if (nw == nb) {
        /* Compare piece lists letter by letter (K < Q < ... < P): the side
         * with the weaker list goes second. */
        char w[8], b[8];
        int iw = 0, ib = 0;
        for (int i = 0; i < 6; i++) {
            for (int k = 0; k < count[TB_WHITE][types[i]] && iw < 7; k++)
                w[iw++] = (char)i;
            for (int k = 0; k < count[TB_BLACK][types[i]] && ib < 7; k++)
                b[ib++] = (char)i;
        }
        if (memcmp(b, w, (size_t)iw) < 0)
            first = TB_BLACK;
    }
    size_t at = 0;
    for (int side = 0; side < 2; side++) {
        int color = side == 0 ? first : !first;
        if (side == 1 && at + 1 < size)
            out[at++] = 'v';
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < count[color][types[i]]; k++)
                if (at + 1 < size)
                    out[at++] = letters[i];
    }
    if (size)
        out[at < size ? at : size - 1] = '\0';
}
