/*
 * tb_table.c - the Syzygy file format.
 *
 * Layout of a file (all offsets checked against the mapped size):
 *   magic (4 bytes), flags (1 byte, FILE_*: two sides stored, four pawn
 *   files), per file and side the piece order, then per (file, side) a
 *   pairs header (PAIRS_* flags, Huffman code lengths, symbol tree), DTZ
 *   value maps,
 *   then all index tables, all block size tables, and the 64-byte aligned
 *   compressed blocks.
 */
#include "format/tb_table.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fathom.h"

/* Byte 4 of a file: its layout. */
#define FILE_TWO_SIDES 1 /* WDL: both sides to move stored (else one) */
#define FILE_HAS_PAWNS 2 /* four sub-tables, one per leading-pawn file */

/* First byte of each pairs header (one per file and side). */
#define PAIRS_STORED_SIDE 1  /* DTZ: the side to move stored (1: black) */
#define PAIRS_MAPPED 2       /* DTZ: values go through per-class maps */
#define PAIRS_WIN_PLIES 4    /* DTZ: wins stored in plies, not moves */
#define PAIRS_LOSS_PLIES 8   /* DTZ: losses stored in plies, not moves */
#define PAIRS_WIDE_MAPS 16   /* DTZ: map entries are 16 bits, not 8 */
#define PAIRS_SINGLE_VALUE 0x80 /* every position has the same value */

/* ------------------------------------------------------------------ */
/* Index constants                                                     */
/* ------------------------------------------------------------------ */

static int file_of(int sq) { return sq & 7; }
static int rank_of(int sq) { return sq >> 3; }
/* Above (> 0), on (0) or below (< 0) the a1-h8 diagonal. */
static int off_diagonal(int sq) { return rank_of(sq) - file_of(sq); }
static int flip_diagonal(int sq) { return ((sq >> 3) | (sq << 3)) & 63; }

static void init_binomials(tb_consts *c)
{
    for (int n = 0; n <= 64; n++)
        for (int k = 0; k <= TB_PIECES; k++) {
            if (k == 0)
                c->binom[k][n] = 1;
            else if (n == 0)
                c->binom[k][n] = 0;
            else
                c->binom[k][n] = c->binom[k - 1][n - 1] + c->binom[k][n - 1];
        }
}

/*
 * The a1-d1-d4 triangle: off-diagonal squares b1 c1 d1 c2 d2 d3 are
 * classes 0..5, diagonal squares a1 b2 c3 d4 are classes 6..9.  Every
 * other square takes the class of its image under the board's
 * symmetries.
 */
static const uint8_t class_square[10] = {1, 2, 3, 10, 11, 19, 0, 9, 18, 27};

int tb_class_square(int cls)
{
    return class_square[cls];
}

static void init_triangle(tb_consts *c)
{
    for (int sq = 0; sq < 64; sq++) {
        int f = file_of(sq), r = rank_of(sq);
        if (f > 3)
            f = 7 - f;
        if (r > 3)
            r = 7 - r;
        if (r > f) {
            int tmp = r;
            r = f;
            f = tmp;
        }
        int canonical = r * 8 + f;
        for (int i = 0; i < 10; i++)
            if (class_square[i] == canonical)
                c->triangle[sq] = (uint8_t)i;
    }
}

/* Squares strictly below the diagonal are counted rank by rank; the
 * diagonal itself comes last (28..35); the upper half mirrors. */
static void init_diagonals(tb_consts *c)
{
    int next = 0;
    for (int r = 0; r < 8; r++)
        for (int f = r + 1; f < 8; f++) {
            c->lower[r * 8 + f] = (uint8_t)next;
            c->lower[f * 8 + r] = (uint8_t)next;
            next++;
        }
    for (int i = 0; i < 8; i++) {
        c->lower[i * 9] = (uint8_t)(28 + i);
        c->diag[i * 9] = (uint8_t)i;          /* a1 .. h8 */
        c->diag[(i + 1) * 7] = (uint8_t)(8 + i); /* h1 .. a8 */
    }
}

/* Two kings: first king in its triangle class, second anywhere not
 * adjacent.  With the first king on the diagonal the second may not be
 * above it; pairs with both on the diagonal are numbered last. */
static void init_king_pairs(tb_consts *c)
{
    for (int i = 0; i < 10; i++)
        for (int sq = 0; sq < 64; sq++)
            c->kk_index[i][sq] = -1;
    int code = 0;
    int both_diag[10][8], both_count[10];
    for (int i = 0; i < 10; i++) {
        int k1 = class_square[i];
        both_count[i] = 0;
        uint64_t king_zone = bb_king_attacks(k1) | (1ULL << k1);
        for (int k2 = 0; k2 < 64; k2++) {
            if ((king_zone >> k2) & 1)
                continue;
            if (off_diagonal(k1) == 0 && off_diagonal(k2) > 0)
                continue;
            if (off_diagonal(k1) == 0 && off_diagonal(k2) == 0)
                both_diag[i][both_count[i]++] = k2;
            else
                c->kk_index[i][k2] = (int16_t)code++;
        }
    }
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < both_count[i]; j++)
            c->kk_index[i][both_diag[i][j]] = (int16_t)code++;
}

/* Pawns: the leading pawn's square on files a-d, ranks 2-7, numbered
 * file by file; other leading pawns ordered from the centre files and
 * the seventh rank outwards.  Needs the binomials. */
static void init_pawn_indices(tb_consts *c)
{
    for (int sq = 8; sq < 56; sq++) {
        int f = file_of(sq), r = rank_of(sq);
        int edge = f < 4 ? f : 7 - f; /* 0 = a/h file .. 3 = d/e file */
        c->flap[sq] = (uint8_t)(edge * 6 + (r - 1));
        c->ptwist[sq] = (uint8_t)((3 - edge) * 12 + (6 - r) * 2 + (f < 4));
    }
    for (int lead = 0; lead < 6; lead++) {
        for (int file = 0; file < 4; file++) {
            uint64_t total = 0;
            for (int r = 1; r <= 6; r++) {
                int sq = r * 8 + file;
                int j = file * 6 + (r - 1);
                c->pawn_index[lead][j] = total;
                total += lead == 0 ? 1 : c->binom[lead][c->ptwist[sq]];
            }
            c->pawn_factor[lead][file] = total;
        }
    }
}

void tb_consts_init(tb_consts *c)
{
    memset(c, 0, sizeof *c);
    init_binomials(c);
    init_triangle(c);
    init_diagonals(c);
    init_king_pairs(c);
    init_pawn_indices(c);
}

int tb_variant_magic_ok(const tb_consts *c, int is_dtz, int has_pawns,
                        uint32_t magic)
{
    int k = is_dtz != 0;
    return magic == c->magic[k] || (has_pawns && magic == c->pawn_magic[k]);
}

/* ------------------------------------------------------------------ */
/* Material from file names                                            */
/* ------------------------------------------------------------------ */

static tb_key key_of_counts(const uint8_t count[2][7], int mirror)
{
    tb_key key = 0;
    for (int t = TB_PAWN; t <= TB_KING; t++) {
        key |= (tb_key)count[TB_WHITE ^ mirror][t] << (4 * (t - 1));
        key |= (tb_key)count[TB_BLACK ^ mirror][t] << (4 * (t - 1) + 24);
    }
    return key;
}

int tb_material_parse(const char *name, size_t len, tb_material *out)
{
    return tb_material_parse_variant(name, len, 1, out);
}

int tb_material_parse_variant(const char *name, size_t len, int one_king,
                              tb_material *out)
{
    memset(out, 0, sizeof *out);
    if (len < 3 || len >= sizeof out->name)
        return 0;
    int side = TB_WHITE, seen_v = 0, prev = 7;
    for (size_t i = 0; i < len; i++) {
        if (name[i] == 'v') {
            if (seen_v || i == 0)
                return 0;
            seen_v = 1;
            side = TB_BLACK;
            prev = 7;
            continue;
        }
        int t = tb_piece_of_letter(name[i]);
        /* Each side lists its pieces king first, strongest to weakest
         * (without royal kings, a side's king is merely its strongest). */
        if (!t || t > prev || (one_king && t == TB_KING && prev != 7) ||
            (one_king && prev == 7 && t != TB_KING))
            return 0;
        prev = t;
        out->count[side][t]++;
        out->num++;
    }
    if (!seen_v || name[len - 1] == 'v' || out->num > TB_PIECES)
        return 0;
    if (one_king && (out->count[TB_WHITE][TB_KING] != 1 ||
                     out->count[TB_BLACK][TB_KING] != 1))
        return 0;
    memcpy(out->name, name, len);
    out->name[len] = '\0';
    out->has_pawns = out->count[0][TB_PAWN] || out->count[1][TB_PAWN];
    out->key = key_of_counts(out->count, 0);
    out->mirror_key = key_of_counts(out->count, 1);
    out->symmetric = out->key == out->mirror_key;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Header parsing                                                      */
/* ------------------------------------------------------------------ */

/* Multiply with overflow detection (indices must fit in 64 bits). */
static int mul_ok(uint64_t *acc, uint64_t factor)
{
    if (factor != 0 && *acc > UINT64_MAX / factor)
        return 0;
    *acc *= factor;
    return 1;
}

/* Group equal pieces after the first `lead` ones (which norm[0] covers). */
static void group_pieces(tb_enc *e, int num, int lead_groups_end)
{
    for (int i = lead_groups_end; i < num;) {
        int j = i;
        while (j < num && e->pieces[j] == e->pieces[i])
            j++;
        e->norm[i] = (uint8_t)(j - i);
        i = j;
    }
}

/* Pieces in the leading group of a pawnless encoding. */
static int leading_group(int enc_type)
{
    return enc_type == 0 ? 3 : enc_type == 2 ? 2 : enc_type - 1;
}

/* Positions of the leading group: three unique pieces, two unique pieces
 * (kings apart, or anywhere in variants where they may touch), or a group
 * of like pieces (antichess). */
static uint64_t leading_factor(int enc_type, const tb_consts *c)
{
    if (enc_type == 0)
        return 31332;
    if (enc_type == 2)
        return c->connected_kings ? 518 : 462;
    if (enc_type == 3)
        return 278;
    return c->multi_factor[enc_type - 2];
}

/*
 * The factors of a table's groups, in the order of their encoding: the
 * leading group's (lead_factor) at step `order`; for a pawn table with
 * pawns of both colours, the second pawn group's (second_factor, group at
 * second) at step `order2` (never matched: -1, or 15 as pawn headers
 * write it, which the step bound refuses); every other group from `first`
 * on, placed on the squares the groups before it leave.  The header's
 * orders are untrusted: the steps are bounded, every product checked.
 * RETURN: 1 with e->factor and e->size set, 0 for a corrupt header.
 */
static int place_factors(tb_enc *e, const tb_table *t, const tb_consts *c, int first,
                         int order, uint64_t lead_factor, int order2, int second,
                         uint64_t second_factor)
{
    uint64_t f = 1;
    int remaining = 64 - first;
    int placed = 0;
    int i = first;
    for (int k = 0; i < t->num || k == order || k == order2; k++) {
        if (k > 2 * TB_PIECES)
            return 0;
        if (k == order) {
            e->factor[0] = f;
            if (!mul_ok(&f, lead_factor))
                return 0;
            placed++;
        } else if (k == order2) {
            e->factor[second] = f;
            if (!mul_ok(&f, second_factor))
                return 0;
        } else {
            e->factor[i] = f;
            if (remaining < 0 || !mul_ok(&f, c->binom[e->norm[i]][remaining]))
                return 0;
            remaining -= e->norm[i];
            i += e->norm[i];
        }
    }
    e->size = f;
    return placed == 1;
}

/* Factors for a pawnless table; `order` is where the leading group goes. */
static int factors_pieces(tb_enc *e, const tb_table *t, const tb_consts *c,
                          int order)
{
    memset(e->norm, 0, sizeof e->norm);
    e->norm[0] = (uint8_t)leading_group(t->enc_type);
    group_pieces(e, t->num, e->norm[0]);
    return place_factors(e, t, c, e->norm[0], order, leading_factor(t->enc_type, c), -1, 0, 0);
}

/* Factors for a pawn table on `file`; order2 == 15 when one colour has
 * no pawns. */
static int factors_pawns(tb_enc *e, const tb_table *t, const tb_consts *c,
                         int order, int order2, int file)
{
    memset(e->norm, 0, sizeof e->norm);
    e->norm[0] = t->pawns[0];
    if (t->pawns[1])
        e->norm[t->pawns[0]] = t->pawns[1];
    group_pieces(e, t->num, t->pawns[0] + t->pawns[1]);

    int first = e->norm[0];
    if (order2 < 15)
        first += e->norm[first];
    /* The second pawn group, when there is one, has the 48 pawn squares
     * but the leading group's. */
    uint64_t second = order2 < 15 ? c->binom[e->norm[e->norm[0]]][48 - e->norm[0]] : 0;
    return place_factors(e, t, c, first, order, c->pawn_factor[e->norm[0] - 1][file], order2,
                         e->norm[0], second);
}

/* The header's piece list must be the material the file name promises. */
static int pieces_match(const uint8_t *pieces, int num, const uint8_t count[2][7])
{
    uint8_t seen[2][7];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < num; i++) {
        int type = pieces[i] & 7, color = pieces[i] & 8 ? TB_BLACK : TB_WHITE;
        if (type < TB_PAWN || type > TB_KING || pieces[i] > 15)
            return 0;
        seen[color][type]++;
    }
    return memcmp(seen, count, sizeof seen) == 0;
}

/* Compute the expansion length and uniform value of every symbol of the
 * tree, iteratively and with cycle detection, since the tree comes from an
 * untrusted file. */
static int compute_symbols(tb_pairs *p, const tb_map *map)
{
    uint32_t n = p->num_syms;
    uint8_t *state = (uint8_t *)calloc(n ? n : 1, 1); /* 0 new, 1 open, 2 done */
    uint32_t *stack = (uint32_t *)malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!state || !stack) {
        free(state);
        free(stack);
        return FATHOM_ERR_NO_MEMORY;
    }
    int status = FATHOM_OK;
    for (uint32_t root = 0; root < n && status == FATHOM_OK; root++) {
        if (state[root] == 2)
            continue;
        uint32_t depth = 0;
        stack[depth++] = root;
        state[root] = 1;
        while (depth > 0) {
            uint32_t s = stack[depth - 1];
            const uint8_t *w = map->data + p->sym_pattern + 3 * (uint64_t)s;
            uint32_t left = ((uint32_t)(w[1] & 0x0f) << 8) | w[0];
            uint32_t right = ((uint32_t)w[2] << 4) | (w[1] >> 4);
            if (right == 0xfff) {
                p->sym_len[s] = 0;
                p->sym_value[s] = (uint8_t)(left < TB_MIXED_VALUES ? left : TB_MIXED_VALUES);
                state[s] = 2;
                depth--;
                continue;
            }
            if (left >= n || right >= n) {
                status = FATHOM_ERR_CORRUPT;
                break;
            }
            uint32_t pending = state[left] != 2 ? left : state[right] != 2 ? right : n;
            if (pending < n) {
                if (state[pending] == 1 || depth >= n) { /* a cycle */
                    status = FATHOM_ERR_CORRUPT;
                    break;
                }
                state[pending] = 1;
                stack[depth++] = pending;
                continue;
            }
            uint32_t len = (uint32_t)p->sym_len[left] + p->sym_len[right] + 1;
            if (len > 0xff) { /* more than the generator makes */
                status = FATHOM_ERR_CORRUPT;
                break;
            }
            p->sym_len[s] = (uint8_t)len;
            p->sym_value[s] = p->sym_value[left] == p->sym_value[right]
                                  ? p->sym_value[left]
                                  : (uint8_t)TB_MIXED_VALUES;
            state[s] = 2;
            depth--;
        }
    }
    free(state);
    free(stack);
    return status;
}

/* Length of the canonical code that starts with the bits of `code`. */
static unsigned code_length(const tb_pairs *p, uint64_t code)
{
    unsigned i = 0;
    while (code < p->base[i])
        i++;
    return p->min_len + i;
}

/*
 * One lookup on the top TB_TOP_BITS bits of the code stream decodes a code
 * whose length they fix (up to TB_TOP_MAX_LEN bits), or skips every whole
 * code packed in them at once.  A code has a known length for a prefix
 * exactly when the smallest and the largest code with that prefix agree
 * on it; their symbols are then the first and the last of the prefix's,
 * and both are checked against num_syms here, once, instead of on every
 * decode; the symbol TB_SYM_OFFSETS gives the lowest is compared with
 * the search's once here too (one arithmetic in two forms: checked, not
 * assumed).
 */
static void build_fast_table(tb_pairs *p)
{
    const unsigned low_bits = 64 - TB_TOP_BITS;
    const unsigned prefixes = 1u << TB_TOP_BITS;
    for (unsigned prefix = 0; prefix < prefixes; prefix++) {
        uint64_t lowest = (uint64_t)prefix << low_bits;
        uint64_t highest = lowest | ((1ull << low_bits) - 1);
        unsigned len = 0, highest_len = 0;
        uint32_t sym = 0, highest_sym = 0;
        tb_top_code entry;
        if (tb_huffman_decode(p, 0, lowest, &len, &sym) && len <= TB_TOP_MAX_LEN &&
            tb_huffman_decode(p, 0, highest, &highest_len, &highest_sym) &&
            highest_len == len &&
            sym == TB_SYM_OFFSETS(p)[len] + (uint32_t)(lowest >> (64 - len))) {
            entry = (tb_top_code)len;
        } else {
            /* Larger codes are shorter: the largest code with this prefix
             * bounds the search for the others from below. */
            entry = (tb_top_code)(code_length(p, highest) - p->min_len) << 4;
        }
        /* Whole codes at the top of the prefix, as many as fit the field. */
        unsigned used = 0;
        uint64_t values = 0;
        while (used < TB_TOP_BITS) {
            uint64_t top = (uint64_t)((prefix << used) & (prefixes - 1)) << low_bits;
            uint64_t top_highest = top | ((1ull << (low_bits + used)) - 1);
            unsigned n;
            uint32_t skipped;
            if (!tb_huffman_decode(p, 0, top, &n, &skipped) || n > TB_TOP_BITS - used || n != code_length(p, top_highest) ||
                values + p->sym_len[skipped] + 1 > TB_TOP_MAX_SKIP_VALUES)
                break;
            values += (uint64_t)p->sym_len[skipped] + 1;
            used += n;
        }
        if (used > 0)
            entry |= (tb_top_code)(values << 20 | used << 16);
        p->by_top[prefix] = entry;
    }
}

/*
 * Read a pairs header at *ptr for a stream of `size` values and advance
 * *ptr past it.  Region offsets (index, sizes, data) are filled in later.
 */
static int setup_pairs(tb_pairs *p, const tb_map *map, uint64_t *ptr,
                       uint64_t size, int is_wdl, uint8_t *flags_out)
{
    memset(p, 0, sizeof *p);
    uint64_t at = *ptr;
    if (!tb_in_bounds(map, at, 2))
        return FATHOM_ERR_CORRUPT;
    const uint8_t *h = map->data + at;
    *flags_out = h[0];
    if (h[0] & PAIRS_SINGLE_VALUE) {
        p->constant = 1;
        p->const_value = is_wdl ? h[1] : 0;
        *ptr = at + 2;
        return FATHOM_OK;
    }
    if (!tb_in_bounds(map, at, 12))
        return FATHOM_ERR_CORRUPT;
    p->block_log = h[1];
    p->idx_bits = h[2];
    p->real_num_blocks = tb_u32le(h + 4);
    p->num_blocks = p->real_num_blocks + h[3];
    p->max_len = h[8];
    p->min_len = h[9];
    if (p->block_log > 31 || p->idx_bits == 0 || p->idx_bits > 63 ||
        p->min_len == 0 || p->max_len < p->min_len || p->max_len > 63)
        return FATHOM_ERR_CORRUPT;
    unsigned lengths = (unsigned)p->max_len - p->min_len + 1;
    p->lowest_sym = at + 10;
    if (!tb_in_bounds(map, p->lowest_sym, 2ull * lengths + 2))
        return FATHOM_ERR_CORRUPT;
    p->num_syms = tb_u16le(map->data + p->lowest_sym + 2ull * lengths);
    p->sym_pattern = p->lowest_sym + 2ull * lengths + 2;
    if (!tb_in_bounds(map, p->sym_pattern, 3ull * p->num_syms))
        return FATHOM_ERR_CORRUPT;
    *ptr = p->sym_pattern + 3ull * p->num_syms + (p->num_syms & 1);
    p->num_indices = (size + (1ull << p->idx_bits) - 1) >> p->idx_bits;
    if (size > UINT64_MAX - (1ull << p->idx_bits))
        return FATHOM_ERR_CORRUPT;

    p->base = (uint64_t *)malloc(sizeof(uint64_t) * lengths);
    size_t syms = p->num_syms ? p->num_syms : 1;
    p->sym_len = (uint8_t *)malloc(syms);
    p->sym_value = (uint8_t *)malloc(syms);
    if (!p->base || !p->sym_len || !p->sym_value)
        return FATHOM_ERR_NO_MEMORY;
    int status = compute_symbols(p, map);
    if (status != FATHOM_OK)
        return status;

    /* Canonical Huffman: base[i] is the smallest code of length
     * min_len + i, left-aligned in 64 bits; the longest length has 0. */
    const uint8_t *low = map->data + p->lowest_sym;
    p->base[lengths - 1] = 0;
    for (int i = (int)lengths - 2; i >= 0; i--) {
        uint64_t a = tb_u16le(low + 2 * i), b = tb_u16le(low + 2 * (i + 1));
        p->base[i] = (p->base[i + 1] + a - b) / 2;
    }
    for (unsigned i = 0; i < lengths; i++) {
        unsigned bits = p->min_len + i;
        if (bits < 64) {
            if (p->base[i] >> bits) /* would lose bits: not a prefix code */
                return FATHOM_ERR_CORRUPT;
            p->base[i] <<= 64 - bits;
        }
    }
    p->first_sym = (uint16_t *)malloc(sizeof(uint16_t) * lengths);
    p->by_top = (tb_top_code *)calloc((1u << TB_TOP_BITS) + TB_TOP_MAX_LEN + 1,
                                      sizeof(tb_top_code));
    if (!p->first_sym || !p->by_top)
        return FATHOM_ERR_NO_MEMORY;
    for (unsigned i = 0; i < lengths; i++) {
        unsigned bits = p->min_len + i;
        p->first_sym[i] = tb_u16le(low + 2 * i);
        if (bits <= TB_TOP_MAX_LEN)
            TB_SYM_OFFSETS(p)[bits] = p->first_sym[i] - (uint32_t)(p->base[i] >> (64 - bits));
    }
    build_fast_table(p);
    return FATHOM_OK;
}

static void free_pairs(tb_pairs *p)
{
    free(p->base);
    free(p->sym_len);
    free(p->sym_value);
    free(p->first_sym);
    free(p->by_top);
    p->by_top = NULL;
    p->base = NULL;
    p->sym_len = NULL;
    p->sym_value = NULL;
    p->first_sym = NULL;
}

void tb_table_close(tb_table *t)
{
    for (int i = 0; i < 8; i++)
        free_pairs(&t->enc[i].pairs);
    tb_unmap_file(&t->map);
}

/* Place index tables, size tables and 64-aligned data after the headers. */
static int place_regions(tb_table *t, uint64_t ptr, int count)
{
    for (int i = 0; i < count; i++) {
        tb_pairs *p = &t->enc[i].pairs;
        p->index_table = ptr;
        if (!p->constant)
            ptr += 6 * p->num_indices;
    }
    for (int i = 0; i < count; i++) {
        tb_pairs *p = &t->enc[i].pairs;
        p->size_table = ptr;
        if (!p->constant)
            ptr += 2 * p->num_blocks;
    }
    for (int i = 0; i < count; i++) {
        tb_pairs *p = &t->enc[i].pairs;
        if (p->constant)
            continue;
        ptr = (ptr + 63) & ~(uint64_t)63;
        p->data = ptr;
        if (p->real_num_blocks > (UINT64_MAX >> 32) ||
            !tb_in_bounds(&t->map, p->index_table, 6 * p->num_indices) ||
            !tb_in_bounds(&t->map, p->size_table, 2 * p->num_blocks))
            return FATHOM_ERR_CORRUPT;
        ptr += p->real_num_blocks << p->block_log;
        if (ptr > t->map.size)
            return FATHOM_ERR_CORRUPT;
    }
    return FATHOM_OK;
}

/* DTZ value maps: four per file (one per WDL class), 8 or 16 bits wide. */
static int read_dtz_maps(tb_table *t, uint64_t *ptr)
{
    for (int f = 0; f < t->files; f++) {
        uint8_t flags = t->dtz_flags[f];
        if (!(flags & PAIRS_MAPPED))
            continue;
        int wide = (flags & PAIRS_WIDE_MAPS) != 0;
        if (wide)
            *ptr += *ptr & 1;
        for (int i = 0; i < 4; i++) {
            uint32_t len;
            if (!tb_in_bounds(&t->map, *ptr, wide ? 2 : 1))
                return FATHOM_ERR_CORRUPT;
            len = wide ? tb_u16le(t->map.data + *ptr) : t->map.data[*ptr];
            *ptr += wide ? 2 : 1;
            t->dtz_map_offset[f][i] = *ptr;
            t->dtz_map_len[f][i] = len;
            *ptr += (uint64_t)len * (wide ? 2 : 1);
            if (*ptr > t->map.size)
                return FATHOM_ERR_CORRUPT;
        }
    }
    *ptr += *ptr & 1;
    return FATHOM_OK;
}

/* The encoding of a pawnless table from its material: by the number of
 * unique pieces, else (antichess only) by the smallest group of like
 * pieces, which leads. */
static int pawnless_encoding(const tb_material *mat, int unique)
{
    if (unique >= 3)
        return 0;
    if (unique == 2)
        return 2;
    int smallest = 16;
    for (int s = 0; s < 2; s++)
        for (int ty = TB_PAWN; ty <= TB_KING; ty++)
            if (mat->count[s][ty] > 1 && mat->count[s][ty] < smallest)
                smallest = mat->count[s][ty];
    return 1 + smallest;
}

/*
 * The piece order of a pawnless table: one byte of order, then a nibble
 * per piece for each stored side.  The header, not the file name, decides
 * which colour is stored as white.
 */
static int parse_pawnless_header(tb_table *t, const tb_material *mat,
                                 const tb_consts *c, uint64_t *ptr)
{
    const tb_map *map = &t->map;
    int unique = 0;
    for (int s = 0; s < 2; s++)
        for (int ty = TB_PAWN; ty <= TB_KING; ty++)
            unique += mat->count[s][ty] == 1;
    t->enc_type = (uint8_t)pawnless_encoding(mat, unique);
    if (t->enc_type > 6) /* more like pieces than the index has */
        return FATHOM_ERR_CORRUPT;
    if (!tb_in_bounds(map, *ptr, 1ull + t->num))
        return FATHOM_ERR_CORRUPT;
    const uint8_t *h = map->data + *ptr;
    int stored_sides = t->is_dtz ? 1 : 2;
    for (int side = 0; side < stored_sides; side++) {
        tb_enc *e = &t->enc[side < t->sides ? side : 0];
        if (side >= t->sides)
            continue;
        int shift = side ? 4 : 0;
        for (int i = 0; i < t->num; i++)
            e->pieces[i] = (uint8_t)((h[1 + i] >> shift) & 15);
        if (!factors_pieces(e, t, c, (h[0] >> shift) & 15))
            return FATHOM_ERR_CORRUPT;
    }
    uint8_t count[2][7];
    memset(count, 0, sizeof count);
    for (int i = 0; i < t->num; i++) {
        int code = t->enc[0].pieces[i], type = code & 7;
        if (type < TB_PAWN || type > TB_KING) /* from the file: check */
            return FATHOM_ERR_CORRUPT;
        count[code & 8 ? TB_BLACK : TB_WHITE][type]++;
    }
    if (!((pieces_match(t->enc[0].pieces, t->num, mat->count)) ||
          key_of_counts(count, 0) == mat->mirror_key))
        return FATHOM_ERR_CORRUPT;
    if (t->sides == 2 && !pieces_match(t->enc[1].pieces, t->num, count))
        return FATHOM_ERR_CORRUPT;
    t->white_key = key_of_counts(count, 0);
    *ptr += 1ull + t->num;
    return FATHOM_OK;
}

/*
 * The piece orders of a pawn table: for each of the four files of the
 * leading pawn, one or two bytes of order, then a nibble per piece for
 * each stored side.
 */
static int parse_pawn_header(tb_table *t, const tb_material *mat,
                             const tb_consts *c, uint64_t *ptr)
{
    const tb_map *map = &t->map;
    uint8_t white_pawns = mat->count[TB_WHITE][TB_PAWN];
    uint8_t black_pawns = mat->count[TB_BLACK][TB_PAWN];
    /* The colour with fewer (but some) pawns leads; white on ties. */
    if (black_pawns && (!white_pawns || white_pawns > black_pawns)) {
        t->pawns[0] = black_pawns;
        t->pawns[1] = white_pawns;
    } else {
        t->pawns[0] = white_pawns;
        t->pawns[1] = black_pawns;
    }
    t->white_key = mat->key;
    int order_bytes = 1 + (t->pawns[1] > 0);
    for (int f = 0; f < 4; f++) {
        if (!tb_in_bounds(map, *ptr, (uint64_t)order_bytes + t->num))
            return FATHOM_ERR_CORRUPT;
        const uint8_t *h = map->data + *ptr;
        for (int side = 0; side < t->sides; side++) {
            tb_enc *e = &t->enc[f * t->sides + side];
            int shift = side ? 4 : 0;
            for (int i = 0; i < t->num; i++)
                e->pieces[i] = (uint8_t)((h[order_bytes + i] >> shift) & 15);
            if (!pieces_match(e->pieces, t->num, mat->count))
                return FATHOM_ERR_CORRUPT;
            int order = (h[0] >> shift) & 15;
            int order2 = t->pawns[1] ? (h[1] >> shift) & 15 : 15;
            if (!factors_pawns(e, t, c, order, order2, f))
                return FATHOM_ERR_CORRUPT;
        }
        *ptr += (uint64_t)order_bytes + t->num;
    }
    return FATHOM_OK;
}

static int parse_table(tb_table *t, const tb_material *mat, const tb_consts *c)
{
    const tb_map *map = &t->map;
    if (map->size % 64 != 16)
        return FATHOM_ERR_BAD_SIZE;
    uint32_t magic = tb_u32le(map->data);
    if (!tb_variant_magic_ok(c, t->is_dtz, mat->has_pawns, magic))
        return FATHOM_ERR_BAD_MAGIC;
    uint8_t flags = map->data[4];
    int two_sides = (flags & FILE_TWO_SIDES) != 0;
    if (((flags & FILE_HAS_PAWNS) != 0) != (mat->has_pawns != 0))
        return FATHOM_ERR_CORRUPT;

    t->num = mat->num;
    t->has_pawns = mat->has_pawns;
    t->symmetric = mat->symmetric;
    t->files = mat->has_pawns ? 4 : 1;
    t->sides = (!t->is_dtz && two_sides) ? 2 : 1;
    if (!t->is_dtz && !two_sides && !mat->symmetric)
        return FATHOM_ERR_CORRUPT; /* both sides needed, one stored */

    uint64_t ptr = 5;
    int status = mat->has_pawns ? parse_pawn_header(t, mat, c, &ptr)
                                : parse_pawnless_header(t, mat, c, &ptr);
    if (status != FATHOM_OK)
        return status;
    ptr += ptr & 1;

    int count = t->files * t->sides;
    for (int i = 0; i < count; i++) {
        uint8_t pair_flags = 0;
        status = setup_pairs(&t->enc[i].pairs, map, &ptr, t->enc[i].size,
                             !t->is_dtz, &pair_flags);
        if (status != FATHOM_OK)
            return status;
        if (t->is_dtz)
            t->dtz_flags[i] = pair_flags;
        /* A constant DTZ stream stores no value: the variant says which. */
        if (t->is_dtz && t->enc[i].pairs.constant)
            t->enc[i].pairs.const_value = c->dtz_constant;
    }
    if (t->is_dtz) {
        status = read_dtz_maps(t, &ptr);
        if (status != FATHOM_OK)
            return status;
    }
    return place_regions(t, ptr, count);
}

/* Does the layout the header describes end where the file ends?  Table
 * files pad their last stream to 64 bytes and end with 16 more (parse_table
 * checks size % 64 == 16).  Asked of a header read from a prefix file: the
 * head of another table describes another length. */
static int layout_fills_file(const tb_table *t)
{
    uint64_t end = 0;
    for (int i = 0; i < t->files * t->sides; i++) {
        const tb_pairs *p = &t->enc[i].pairs;
        if (p->constant)
            continue;
        uint64_t stream_end = p->data + (p->real_num_blocks << p->block_log);
        if (stream_end > end)
            end = stream_end;
    }
    /* Only constant streams: no blocks, nothing to measure. */
    return end == 0 || ((end + 63) & ~(uint64_t)63) + 16 == t->map.size;
}

/* Bytes of a table file asked for when it is mapped: the longest heads,
 * those of pawn tables (4 files, 2 sides, up to 4,095 symbols a stream),
 * are about 100 KB; the rest of the 128 KiB is index entries, which
 * probes read next. */
#define HEAD_READ ((size_t)128 * 1024)

int tb_table_open(tb_table *t, const char *path, const char *prefix, const void *data,
                  size_t size, const tb_material *mat, int is_dtz, const tb_consts *c)
{
    memset(t, 0, sizeof *t);
    t->is_dtz = (uint8_t)(is_dtz != 0);
    int status = data ? tb_map_memory(data, size, &t->map) : tb_map_file(path, &t->map);
    if (status != FATHOM_OK)
        return status;
    if (prefix != NULL) {
        size_t covered;
        status = tb_map_prefix(&t->map, prefix, &covered);
        if (status != FATHOM_OK) {
            tb_table_close(t);
            return status;
        }
    }
    /* The parser reads the head (header and every stream's symbol tables)
     * from the front on: asked for at once, it comes in about one read
     * rather than a major fault a page (the first WDL probe of a cold
     * KRPvKR, 98,642 bytes of head: 28 faults, now 1-2).  Nothing to ask
     * for the caller's bytes, nor a head on a prefix file's fast storage. */
    if (!data && !prefix)
        tb_os_prefetch(t->map.data, t->map.size < HEAD_READ ? t->map.size : HEAD_READ);
    status = parse_table(t, mat, c);
    if (status == FATHOM_OK && prefix != NULL && !layout_fills_file(t))
        status = FATHOM_ERR_CORRUPT;
    /* Cut short between mapping and parsing: the header read zeros. */
    if (tb_map_damaged(&t->map))
        status = FATHOM_ERR_IO;
    if (status != FATHOM_OK)
        tb_table_close(t);
    return status;
}

/* ------------------------------------------------------------------ */
/* Position indexing                                                   */
/* ------------------------------------------------------------------ */

static void swap_sq(int *a, int *b)
{
    int tmp = *a;
    *a = *b;
    *b = tmp;
}

/* How many of sq[0..n) lie below square x. */
static int squares_below(const int *sq, int n, int x)
{
    int below = 0;
    for (int l = 0; l < n; l++)
        below += x > sq[l];
    return below;
}

/* Index contribution of the groups from `start` on (plain combinations
 * of the squares the earlier pieces leave free).  A piece alone in its
 * group (binom[1][n] is n) takes no sort and no table read: most groups
 * of the 5-piece tables are such pieces (KRPvKR: all four after the
 * pawn). */
static uint64_t encode_groups(const tb_enc *e, const tb_consts *c, int *sq,
                              int start, int num, int square_offset)
{
    uint64_t idx = 0;
    for (int i = start; i < num;) {
        int t = e->norm[i];
        uint64_t s;
        if (t == 1) {
            s = (uint64_t)(sq[i] - squares_below(sq, i, sq[i]) - square_offset);
        } else {
            for (int a = i; a < i + t; a++)
                for (int b = a + 1; b < i + t; b++)
                    if (sq[a] > sq[b])
                        swap_sq(&sq[a], &sq[b]);
            s = 0;
            for (int m = i; m < i + t; m++)
                s += c->binom[m - i + 1][sq[m] - squares_below(sq, i, sq[m]) - square_offset];
        }
        idx += s * e->factor[i];
        i += t;
        square_offset = 0;
    }
    return idx;
}

static uint64_t encode_like_group(const tb_table *t, const tb_enc *e,
                                  const tb_consts *c, int *sq);
static uint64_t connected_pair_index(const tb_consts *c, const int *sq);

static uint64_t encode_pieces(const tb_table *t, const tb_enc *e,
                              const tb_consts *c, int *sq)
{
    int n = t->num;
    if (t->enc_type >= 3)
        return encode_like_group(t, e, c, sq);
    /* The squares come mirrored so that the first lies in a1-d4
     * (index_position). */
    int first_off = 0;
    while (first_off < n && off_diagonal(sq[first_off]) == 0)
        first_off++;
    int unique = t->enc_type == 0 ? 3 : 2;
    if (first_off < unique && off_diagonal(sq[first_off]) > 0)
        for (int i = 0; i < n; i++)
            sq[i] = flip_diagonal(sq[i]);

    uint64_t idx;
    if (t->enc_type == 0) {
        int i = sq[1] > sq[0];
        int j = (sq[2] > sq[0]) + (sq[2] > sq[1]);
        if (off_diagonal(sq[0]))
            idx = c->triangle[sq[0]] * 63ull * 62 + (sq[1] - i) * 62ull + (sq[2] - j);
        else if (off_diagonal(sq[1]))
            idx = 6ull * 63 * 62 + c->diag[sq[0]] * 28ull * 62 +
                  c->lower[sq[1]] * 62ull + (sq[2] - j);
        else if (off_diagonal(sq[2]))
            idx = 6ull * 63 * 62 + 4ull * 28 * 62 + c->diag[sq[0]] * 7ull * 28 +
                  (c->diag[sq[1]] - i) * 28ull + c->lower[sq[2]];
        else
            idx = 6ull * 63 * 62 + 4ull * 28 * 62 + 4ull * 7 * 28 +
                  c->diag[sq[0]] * 7ull * 6 + (c->diag[sq[1]] - i) * 6ull +
                  (c->diag[sq[2]] - j);
    } else if (c->connected_kings) {
        idx = connected_pair_index(c, sq);
    } else {
        int16_t kk = c->kk_index[c->triangle[sq[0]]][sq[1]];
        idx = kk < 0 ? 0 : (uint64_t)kk; /* kings apart: validated earlier */
    }
    return idx * e->factor[0] + encode_groups(e, c, sq, unique, n, 0);
}

/* Two unique leading pieces that may stand side by side (atomic's kings,
 * antichess): the first in the triangle, the second anywhere else, pairs
 * on the diagonal below it and then on it numbered last. */
static uint64_t connected_pair_index(const tb_consts *c, const int *sq)
{
    int i = sq[1] > sq[0];
    if (off_diagonal(sq[0]))
        return c->triangle[sq[0]] * 63ull + (uint64_t)(sq[1] - i);
    if (off_diagonal(sq[1]))
        return 6ull * 63 + c->diag[sq[0]] * 28ull + c->lower[sq[1]];
    return 6ull * 63 + 4ull * 28 + c->diag[sq[0]] * 7ull + (uint64_t)(c->diag[sq[1]] - i);
}

static void mirror_all(int *sq, int n, int mask)
{
    for (int i = 0; i < n; i++)
        sq[i] ^= mask;
}

static void flip_all(int *sq, int n)
{
    for (int i = 0; i < n; i++)
        sq[i] = flip_diagonal(sq[i]);
}

/* Antichess tables whose leading group is two or more like pieces (no two
 * pieces are unique): the one in the lowest triangle class goes into the
 * a1-d1-d4 triangle, the others follow in the format's fixed order. */
static uint64_t encode_like_group(const tb_table *t, const tb_enc *e,
                                  const tb_consts *c, int *sq)
{
    int n = t->num, lead = leading_group(t->enc_type);
    for (int i = 1; i < lead; i++)
        if (c->triangle[sq[0]] > c->triangle[sq[i]])
            swap_sq(&sq[0], &sq[i]);
    uint64_t idx;
    if (t->enc_type == 3) {
        if (sq[0] & 4)
            mirror_all(sq, n, 7);
        if (sq[0] & 32)
            mirror_all(sq, n, 56);
        if (off_diagonal(sq[0]) > 0 ||
            (off_diagonal(sq[0]) == 0 && off_diagonal(sq[1]) > 0))
            flip_all(sq, n);
        /* Both in one class: the pair's other representative is canonical
         * when the second lies in the upper-left corner region a5-c5-a7. */
        static const uint64_t corner = 0x0001030700000000ULL;
        if (((corner >> sq[1]) & 1) && c->triangle[sq[0]] == c->triangle[sq[1]]) {
            swap_sq(&sq[0], &sq[1]);
            for (int i = 0; i < n; i++)
                sq[i] = flip_diagonal(sq[i] ^ 56);
        }
        int16_t pp = c->pp_index[c->triangle[sq[0]]][sq[1]];
        idx = pp < 0 ? 0 : (uint64_t)pp;
    } else {
        if (sq[0] & 4)
            mirror_all(sq, n, 7);
        if (sq[0] & 32)
            mirror_all(sq, n, 56);
        if (off_diagonal(sq[0]) > 0)
            flip_all(sq, n);
        for (int i = 1; i < lead; i++)
            for (int j = i + 1; j < lead; j++)
                if (c->mtwist[sq[i]] > c->mtwist[sq[j]])
                    swap_sq(&sq[i], &sq[j]);
        idx = c->multi_index[lead - 1][c->triangle[sq[0]]];
        for (int i = 1; i < lead; i++)
            idx += c->binom[i][c->mtwist[sq[i]]];
    }
    return idx * e->factor[0] + encode_groups(e, c, sq, lead, n, 0);
}

/* Move the leading pawn with the lowest flap value to sq[0]; its file
 * (folded to a-d) selects the sub-table. */
static int leading_pawn_file(const tb_table *t, const tb_consts *c, int *sq)
{
    for (int i = 1; i < t->pawns[0]; i++)
        if (c->flap[sq[0]] > c->flap[sq[i]])
            swap_sq(&sq[0], &sq[i]);
    int f = sq[0] & 7;
    return f < 4 ? f : 7 - f;
}

static uint64_t encode_pawns(const tb_table *t, const tb_enc *e,
                             const tb_consts *c, int *sq)
{
    int n = t->num, lead = t->pawns[0];
    /* The squares come mirrored so that the leading pawn stands on files
     * a-d (index_position). */
    for (int i = 1; i < lead; i++)
        for (int j = i + 1; j < lead; j++)
            if (c->ptwist[sq[i]] < c->ptwist[sq[j]])
                swap_sq(&sq[i], &sq[j]);
    uint64_t idx = c->pawn_index[lead - 1][c->flap[sq[0]]];
    for (int i = lead - 1; i > 0; i--)
        idx += c->binom[lead - i][c->ptwist[sq[i]]];
    idx *= e->factor[0];
    /* The other colour's pawns live on 48 squares (ranks 2-7). */
    if (t->pawns[1])
        idx += encode_groups(e, c, sq, lead, lead + t->pawns[1], 8);
    return idx + encode_groups(e, c, sq, lead + t->pawns[1], n, 0);
}

/* ------------------------------------------------------------------ */
/* Decompression                                                       */
/* ------------------------------------------------------------------ */

/*
 * Where value number `idx` of a stream lies: its block, and *lit, its
 * number inside the block.  The index table gives a block and an offset
 * for every 2^idx_bits values; the block sizes walk from there.
 */
static int find_block(const tb_pairs *p, const tb_map *map, uint64_t idx,
                      uint64_t *block_out, int64_t *lit_out)
{
    const uint8_t *d = map->data;
    uint64_t main_idx = idx >> p->idx_bits;
    if (main_idx >= p->num_indices)
        return FATHOM_ERR_CORRUPT;
    int64_t lit = (int64_t)(idx & ((1ull << p->idx_bits) - 1)) -
                  (int64_t)(1ull << (p->idx_bits - 1));
    const uint8_t *entry = d + p->index_table + 6 * main_idx;
    uint64_t block = tb_u32le(entry);
    lit += tb_u16le(entry + 4);

    const uint8_t *sizes = d + p->size_table;
    if (lit < 0) {
        while (lit < 0) {
            if (block == 0)
                return FATHOM_ERR_CORRUPT;
            block--;
            if (block >= p->num_blocks)
                return FATHOM_ERR_CORRUPT;
            lit += tb_u16le(sizes + 2 * block) + 1;
        }
    } else {
        for (;;) {
            if (block >= p->num_blocks)
                return FATHOM_ERR_CORRUPT;
            uint32_t block_len = tb_u16le(sizes + 2 * block);
            if (lit <= (int64_t)block_len)
                break;
            lit -= (int64_t)block_len + 1;
            block++;
        }
    }
    if (block >= p->real_num_blocks)
        return FATHOM_ERR_CORRUPT;
    *block_out = block;
    *lit_out = lit;
    return FATHOM_OK;
}

/*
 * Where a walk through a block's codes stands: the code register (its top
 * bits are the next code), how many of its bits past 32 are used up, the
 * next 32-bit word to load, and the number of the first value the next
 * code stands for.  A walk can stop at a code and go on later from it.
 */
typedef struct code_cursor {
    const uint8_t *ptr;
    uint64_t code;
    int bits_free;
    int64_t first;
} code_cursor;

/* The cursor `bits` into a block, at a code whose run starts at value
 * number `first`, as a walk from the block's start leaves it there (a
 * memo mark; 0 and 0: the block's start). */
static inline int cursor_at_bits(const tb_pairs *p, const tb_map *map, uint64_t block,
                          uint32_t bits, uint32_t first, code_cursor *cur)
{
    const uint8_t *start = map->data + p->data + (block << p->block_log);
    size_t word = (size_t)(bits / 32) * 4;
    if (map->data + map->size - start < (ptrdiff_t)(word + 8))
        return FATHOM_ERR_CORRUPT;
    cur->code = tb_u64be(start + word) << (bits % 32);
    cur->ptr = start + word + 8;
    cur->bits_free = (int)(bits % 32);
    cur->first = first;
    return FATHOM_OK;
}

static inline int cursor_at_block(const tb_pairs *p, const tb_map *map, uint64_t block,
                                  code_cursor *cur)
{
    return cursor_at_bits(p, map, block, 0, 0, cur);
}

/*
 * Move the cursor forward (lit >= cur->first) to the code whose run holds
 * value number `lit` of the block; *sym is that code's symbol and *rest
 * the value's place in its run.  Whole codes at the top of the register
 * that lie before the target are passed in one step.  Every read is
 * checked against the end of the file.  Stopping at a code and going on
 * from it reads the same codes a walk from the block's start would.
 */
TB_ALWAYS_INLINE int walk_codes(const tb_pairs *p, const tb_map *map, code_cursor *cur,
                             int64_t lit, uint32_t *sym_out, int64_t *rest)
{
    const uint8_t *end = map->data + map->size;
    const uint8_t *ptr = cur->ptr;
    uint64_t code = cur->code;
    int bits_free = cur->bits_free; /* bits of `code` already consumed past 32 */
    const tb_top_code *by_top = p->by_top;
    const uint8_t *sym_len = p->sym_len;
    int64_t left = lit - cur->first;
    uint32_t sym;
    for (;;) {
        unsigned len;
        tb_top_code top = by_top[TB_TOP_OF(code)];
        uint32_t skip_values = TB_TOP_SKIP_VALUES(top);
        if (skip_values && left >= (int64_t)skip_values) {
            /* The target lies past every code skipped at once here. */
            left -= (int64_t)skip_values;
            len = TB_TOP_SKIP_BITS(top);
        } else {
            if (!tb_huffman_decode(p, top, code, &len, &sym))
                return FATHOM_ERR_CORRUPT;
            if (left <= (int64_t)sym_len[sym])
                break;
            left -= (int64_t)sym_len[sym] + 1;
        }
        code <<= len;
        bits_free += (int)len;
        if (bits_free >= 32) {
            bits_free -= 32;
            if (end - ptr < 4)
                return FATHOM_ERR_CORRUPT;
            code |= (uint64_t)tb_u32be(ptr) << bits_free;
            ptr += 4;
        }
    }
    cur->ptr = ptr;
    cur->code = code;
    cur->bits_free = bits_free;
    cur->first = lit - left;
    *sym_out = sym;
    *rest = left;
    return FATHOM_OK;
}

/* Value number `lit` of the run of symbol `sym`: walk down the symbol
 * tree until the values below are all alike.  The tree was checked when
 * the table was opened (each child holds fewer values than its parent, at
 * most 256 at the top, so no walk takes more than 256 steps), but it is
 * read again from the file here: a page of it lost since (the file cut
 * short, a disk error) reads as zeros, a tree whose walk never ends, and
 * a file rewritten in place while mapped reads as anything.  So the walk
 * stops after 256 steps or at a child past the symbols, whatever it
 * reads; the caller then sees the damaged map (tb_map_damaged) and fails
 * the read (a rewritten file is not detected: see tb_os_map_file). */
static inline uint32_t value_in_run(const tb_pairs *p, const tb_map *map, uint32_t sym,
                                    int64_t lit)
{
    const uint8_t *pattern = map->data + p->sym_pattern;
    const uint8_t *sym_value = p->sym_value;
    const uint8_t *sym_len = p->sym_len;
    for (unsigned steps = 0; sym_value[sym] == TB_MIXED_VALUES; steps++) {
        if (steps > 256)
            return 0;
        const uint8_t *w = pattern + 3 * (uint64_t)sym;
        uint32_t left = ((uint32_t)(w[1] & 0x0f) << 8) | w[0];
        uint32_t right = ((uint32_t)w[2] << 4) | (w[1] >> 4);
        if (right == 0xfff) /* a leaf whose value does not fit a byte */
            return left;
        if (left >= p->num_syms || right >= p->num_syms)
            return 0;
        if (lit <= (int64_t)sym_len[left]) {
            sym = left;
        } else {
            lit -= (int64_t)sym_len[left] + 1;
            sym = right;
        }
    }
    return sym_value[sym];
}

/*
 * Value number `lit` of a block, decoded from the block's start: the
 * single-position probes' path.
 */
static int decode_block(const tb_pairs *p, const tb_map *map, uint64_t block,
                        int64_t lit, uint32_t *value)
{
    code_cursor cur;
    uint32_t sym;
    int64_t rest;
    int status = cursor_at_block(p, map, block, &cur);
    if (status == FATHOM_OK)
        status = walk_codes(p, map, &cur, lit, &sym, &rest);
    if (status == FATHOM_OK)
        *value = value_in_run(p, map, sym, rest);
    return status;
}

/* Bits a cursor has consumed since its block's start. */
static uint32_t cursor_bits(const tb_pairs *p, const tb_map *map, uint64_t block,
                            const code_cursor *cur)
{
    const uint8_t *start = map->data + p->data + (block << p->block_log);
    return (uint32_t)((size_t)(cur->ptr - start - 8) * 8 + (size_t)cur->bits_free);
}

/*
 * Where a read of value `lit` of a block starts walking, through slot
 * `at` of the memo: its cursor or its last mark before the value,
 * whichever is further on, else the block's start (a slot another block
 * held is taken over, its marks dropped).  marked: the block keeps marks.
 */
static int memo_start(const tb_pairs *p, const tb_map *map, uint64_t block, int64_t lit,
                      tb_block_memo *memo, unsigned at, int marked, code_cursor *cur)
{
    tb_memo_slot *slot = &memo->slot[at];
    const tb_memo_mark *mark = NULL;
    if (slot->pairs != p || slot->block != block) {
        if (memo->marks)
            memo->mark_count[at] = 0;
        return cursor_at_block(p, map, block, cur);
    }
    if (marked) {
        const tb_memo_mark *m = memo->marks[at];
        for (unsigned k = 0, n = memo->mark_count[at]; k < n && m[k].first <= lit; k++)
            mark = &m[k];
    }
    if (slot->first <= lit && (!mark || mark->first <= slot->first)) {
        cur->ptr = slot->ptr;
        cur->code = slot->code;
        cur->bits_free = slot->bits_free;
        cur->first = slot->first;
        return FATHOM_OK;
    }
    if (mark)
        return cursor_at_bits(p, map, block, mark->bits, mark->first, cur);
    return cursor_at_block(p, map, block, cur);
}

/*
 * Keep a walk's stop as a mark of slot `at` (in order; the slot's marks
 * full, the one whose neighbours lie closest together goes, never the
 * furthest one).
 */
static void memo_mark(tb_block_memo *memo, unsigned at, uint32_t bits, uint32_t first)
{
    tb_memo_mark *m = memo->marks[at];
    unsigned n = memo->mark_count[at], k = 0;
    while (k < n && m[k].first < first)
        k++;
    if (k < n && m[k].first == first)
        return;
    if (n == TB_MEMO_MARKS) {
        /* Drop mark d < n - 1: the gap left, bits from its predecessor
         * (or the block's start) to its successor, is the smallest. */
        unsigned drop = 0;
        uint32_t gap = UINT32_MAX;
        for (unsigned d = 0; d + 1 < n; d++) {
            uint32_t left = d ? m[d - 1].bits : 0;
            if (m[d + 1].bits - left < gap) {
                gap = m[d + 1].bits - left;
                drop = d;
            }
        }
        for (unsigned d = drop; d + 1 < n; d++)
            m[d] = m[d + 1];
        n--;
        if (drop < k)
            k--;
    }
    for (unsigned d = n; d > k; d--)
        m[d] = m[d - 1];
    m[k].bits = bits;
    m[k].first = first;
    memo->mark_count[at] = (uint8_t)(n + 1);
}

/*
 * The same through a memo: the walk starts where memo_start says (rows
 * sorted by index reach a block's values in order, so each block is
 * mostly walked once) and its stop is kept for the reads that follow, in
 * a block with marks also the stops on its way.
 */
static int decode_block_memo(const tb_pairs *p, const tb_map *map, uint64_t block,
                             int64_t lit, tb_block_memo *memo, uint32_t *value)
{
    unsigned at = tb_memo_slot_of(memo, p, block);
    tb_memo_slot *slot = &memo->slot[at];
    /* Does this block keep marks (TB_MEMO_MARKED_BLOCK_LOG)? */
    int marked = memo->marks && p->block_log >= TB_MEMO_MARKED_BLOCK_LOG;
    code_cursor cur;
    int status = memo_start(p, map, block, lit, memo, at, marked, &cur);
    if (status != FATHOM_OK)
        return status;
    uint32_t sym;
    int64_t rest;
    /* A long walk leaves marks on its way (TB_MEMO_STEP_VALUES). */
    while (marked && lit - cur.first > TB_MEMO_STEP_VALUES) {
        status = walk_codes(p, map, &cur, cur.first + TB_MEMO_STEP_VALUES, &sym, &rest);
        if (status != FATHOM_OK)
            break;
        memo_mark(memo, at, cursor_bits(p, map, block, &cur), (uint32_t)cur.first);
    }
    if (status == FATHOM_OK)
        status = walk_codes(p, map, &cur, lit, &sym, &rest);
    if (status != FATHOM_OK) {
        slot->pairs = NULL;
        return status;
    }
    slot->pairs = p;
    slot->block = block;
    slot->ptr = cur.ptr;
    slot->code = cur.code;
    slot->bits_free = cur.bits_free;
    slot->first = cur.first;
    if (marked)
        memo_mark(memo, at, cursor_bits(p, map, block, &cur), (uint32_t)cur.first);
    *value = value_in_run(p, map, sym, rest);
    return FATHOM_OK;
}

/*
 * Value number `idx` of a stream.  Every read is checked: an index or
 * block that points outside the file yields FATHOM_ERR_CORRUPT.  memo:
 * NULL for a single WDL probe, else the batch's or the probe's own
 * (decode_block_memo).
 */
static int decompress(const tb_pairs *p, const tb_map *map, uint64_t idx,
                      tb_block_memo *memo, uint32_t *value)
{
    if (p->constant) {
        *value = p->const_value;
        return FATHOM_OK;
    }
    uint64_t block;
    int64_t lit;
    int status = find_block(p, map, idx, &block, &lit);
    if (status != FATHOM_OK)
        return status;
    if (memo)
        return decode_block_memo(p, map, block, lit, memo, value);
    return decode_block(p, map, block, lit, value);
}

/*
 * Read-ahead of value number idx of a stream, in the three steps of its
 * read (tb_table.h): each step's address comes from bytes the step before
 * asked for, so that by the time a step runs they are in memory (or on
 * their way: then it waits for them, as the probe itself would have).
 */
int tb_pairs_ahead_range(const tb_pairs *p, const tb_map *map, uint64_t idx, int step,
                         const uint8_t **addr, size_t *len)
{
    if (p->constant || map->borrowed || !map->data)
        return 0;
    uint64_t main_idx = idx >> p->idx_bits;
    if (main_idx >= p->num_indices)
        return 0;
    if (step == TB_AHEAD_INDEX) {
        *addr = map->data + p->index_table + 6 * main_idx;
        *len = 6;
        return 1;
    }
    if (step == TB_AHEAD_SIZES) {
        /* The walk from the entry's block to the value's is a step or two
         * through the size table (find_block): its page is the one. */
        uint64_t block = tb_u32le(map->data + p->index_table + 6 * main_idx);
        if (block >= p->num_blocks)
            return 0;
        *addr = map->data + p->size_table + 2 * block;
        *len = 2;
        return 1;
    }
    uint64_t block;
    int64_t lit;
    if (find_block(p, map, idx, &block, &lit) != FATHOM_OK ||
        !tb_in_bounds(map, p->data + (block << p->block_log), (uint64_t)1 << p->block_log))
        return 0;
    *addr = map->data + p->data + (block << p->block_log);
    *len = (size_t)1 << p->block_log;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Lookups                                                             */
/* ------------------------------------------------------------------ */

/* Which stored side and colour orientation the position corresponds to. */
typedef struct orientation {
    int color_flip;  /* 8: the table's white is the position's black */
    int square_flip; /* 56: mirror ranks (pawn tables) */
    int side;        /* stored side: 0 = table's white to move */
} orientation;

static orientation orient(const tb_table *t, const tb_pos *pos, tb_key pos_key)
{
    orientation o;
    int white_to_move = pos->turn == TB_WHITE;
    if (t->symmetric) {
        o.color_flip = white_to_move ? 0 : 8;
        o.square_flip = white_to_move ? 0 : 56;
        o.side = 0;
    } else if (pos_key != t->white_key) {
        o.color_flip = 8;
        o.square_flip = 56;
        o.side = white_to_move;
    } else {
        o.color_flip = 0;
        o.square_flip = 0;
        o.side = !white_to_move;
    }
    return o;
}

/* The pieces of piece code `code` (type | 8 for black) in pos. */
static uint64_t pieces_of(const tb_pos *pos, int code)
{
    return pos->type[code & 7] & pos->color[code & 8 ? TB_BLACK : TB_WHITE];
}

/*
 * Fill sq[from..num) with the squares of the pieces listed in e->pieces,
 * each the lowest of its kind not taken yet, mirrored by square_flip; the
 * squares of the first `from` are `placed`.  One pass of fixed length:
 * a loop per group of like pieces ended where the groups did, which
 * varies from row to row (callgrind, 300,000 random batch rows).
 * RETURN: 1, or 0 when the position's pieces are not exactly those.
 */
static int fill_squares(const tb_enc *e, const tb_pos *pos, const orientation *o,
                        int num, int from, int *sq, int square_flip, uint64_t placed)
{
    uint64_t taken = placed;
    int missing = 0;
    for (int i = from; i < num; i++) {
        uint64_t bb = pieces_of(pos, e->pieces[i] ^ o->color_flip) & ~taken;
        missing |= bb == 0;
        int at = bb_lsb(bb | 1ULL << 63); /* a square even when missing */
        taken |= 1ULL << at;
        sq[i] = at ^ square_flip;
    }
    return !missing && taken == (pos->color[0] | pos->color[1]);
}

/*
 * Squares of the leading pawns into sq[0..pawns[0]), the one that selects
 * the sub-table first; returns that file (a-d), or -1 when the position
 * does not have the table's leading pawns.
 */
static int leading_pawns(const tb_table *t, const tb_consts *c,
                         const tb_pos *pos, const orientation *o, int *sq)
{
    uint64_t bb = pieces_of(pos, t->enc[0].pieces[0] ^ o->color_flip);
    int i = 0;
    for (; bb && i < t->pawns[0]; bb &= bb - 1)
        sq[i++] = bb_lsb(bb) ^ o->square_flip;
    if (i != t->pawns[0] || bb)
        return -1;
    return leading_pawn_file(t, c, sq);
}

/* Locate the sub-table and compute the index; returns the encoding used. */
static const tb_enc *index_position(const tb_table *t, const tb_consts *c,
                                    const tb_pos *pos, const orientation *o,
                                    int side, int *file, uint64_t *idx)
{
    /* The encodings first mirror every square so that the first one lies
     * in a1-d4 (pawnless) or the leading pawn on files a-d: the squares are
     * mirrored here as they are filled in, by the first square's mask, and
     * not by a branch and a pass over them per direction afterwards (which
     * way, the squares decide at random: callgrind, 300,000 random batch
     * rows). */
    int sq[TB_PIECES] = {0};
    if (!t->has_pawns) {
        const tb_enc *e = &t->enc[side];
        uint64_t first = pieces_of(pos, e->pieces[0] ^ o->color_flip);
        if (!first)
            return NULL;
        int at = bb_lsb(first);
        if (!fill_squares(e, pos, o, t->num, 0, sq, ((at >> 2) & 1) * 7 | ((at >> 5) & 1) * 56,
                          0))
            return NULL;
        *file = 0;
        *idx = encode_pieces(t, e, c, sq);
        return e;
    }
    /* The leading pawns decide the file, then the file's piece order. */
    int f = leading_pawns(t, c, pos, o, sq);
    if (f < 0)
        return NULL;
    int mirror = ((sq[0] >> 2) & 1) * 7;
    for (int i = 0; i < t->pawns[0]; i++)
        sq[i] ^= mirror;
    const tb_enc *e = &t->enc[f * t->sides + side];
    if (!fill_squares(e, pos, o, t->num, t->pawns[0], sq, o->square_flip ^ mirror,
                      pieces_of(pos, e->pieces[0] ^ o->color_flip)))
        return NULL;
    *file = f;
    *idx = encode_pawns(t, e, c, sq);
    return e;
}

/* tb_table_locate and tb_table_wdl_at, inlined into tb_table_wdl (the
 * single probes' path) as well. */
TB_ALWAYS_INLINE int locate(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                            tb_key pos_key, unsigned *stream, uint64_t *idx, uint64_t *size)
{
    orientation o = orient(t, pos, pos_key);
    if (o.side >= t->sides)
        return 0;
    int file;
    const tb_enc *e = index_position(t, c, pos, &o, o.side, &file, idx);
    if (!e || *idx >= e->size)
        return 0;
    *stream = (unsigned)(e - t->enc);
    *size = e->size;
    return 1;
}

TB_ALWAYS_INLINE int wdl_at(const tb_table *t, unsigned stream, uint64_t idx,
                            tb_block_memo *memo, int *wdl)
{
    uint32_t value;
    int status = decompress(&t->enc[stream].pairs, &t->map, idx, memo, &value);
    /* A lost page read as zeros: whatever came out, the file failed. */
    if (tb_map_damaged(&t->map))
        return FATHOM_ERR_IO;
    if (status != FATHOM_OK)
        return status;
    if (value > 4)
        return FATHOM_ERR_CORRUPT;
    *wdl = (int)value - 2;
    return FATHOM_OK;
}

int tb_table_wdl(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                 tb_key pos_key, tb_block_memo *memo, int *wdl)
{
    unsigned stream;
    uint64_t idx, size;
    if (!locate(t, c, pos, pos_key, &stream, &idx, &size))
        return FATHOM_ERR_CORRUPT;
    return wdl_at(t, stream, idx, memo, wdl);
}

int tb_table_locate(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                    tb_key pos_key, unsigned *stream, uint64_t *idx, uint64_t *size)
{
    return locate(t, c, pos, pos_key, stream, idx, size);
}

int tb_table_wdl_at(const tb_table *t, unsigned stream, uint64_t idx, tb_block_memo *memo,
                    int *wdl)
{
    return wdl_at(t, stream, idx, memo, wdl);
}

/* Where a position's DTZ value lies: *e its encoding (NULL: the table
 * holds the other side to move), *file and *idx.  RETURN: FATHOM_OK, or
 * FATHOM_ERR_CORRUPT when the position does not fit the table. */
static int dtz_locate(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                      tb_key pos_key, int *file, uint64_t *idx, const tb_enc **e)
{
    orientation o = orient(t, pos, pos_key);
    *e = NULL;
    *file = 0;
    if (t->has_pawns) {
        /* The file is known only after finding the leading pawn. */
        int sq[TB_PIECES] = {0};
        *file = leading_pawns(t, c, pos, &o, sq);
        if (*file < 0)
            return FATHOM_ERR_CORRUPT;
        if ((t->dtz_flags[*file] & PAIRS_STORED_SIDE) != o.side)
            return FATHOM_OK;
    } else if ((t->dtz_flags[0] & PAIRS_STORED_SIDE) != o.side && !t->symmetric) {
        return FATHOM_OK;
    }
    const tb_enc *found = index_position(t, c, pos, &o, 0, file, idx);
    if (!found || *idx >= found->size)
        return FATHOM_ERR_CORRUPT;
    *e = found;
    return FATHOM_OK;
}

const tb_pairs *tb_table_dtz_locate(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                                    tb_key pos_key, uint64_t *idx)
{
    int file;
    const tb_enc *e = NULL;
    return dtz_locate(t, c, pos, pos_key, &file, idx, &e) == FATHOM_OK && e ? &e->pairs
                                                                             : NULL;
}

static int dtz_value(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                     tb_key pos_key, int wdl, tb_block_memo *memo, int *dtz, int *precise,
                     int *stored)
{
    /* Which of the four value maps a WDL class uses, and the flag that
     * says its values are stored in plies rather than moves. */
    static const int map_of_wdl[5] = {1, 3, 0, 2, 0};
    static const int plies_flag[5] = {PAIRS_LOSS_PLIES, 0, 0, 0, PAIRS_WIN_PLIES};

    *stored = 0;
    int file = 0;
    uint64_t idx;
    const tb_enc *e = NULL;
    int status = dtz_locate(t, c, pos, pos_key, &file, &idx, &e);
    if (status != FATHOM_OK || !e)
        return status;
    uint32_t value;
    status = decompress(&e->pairs, &t->map, idx, memo, &value);
    if (status != FATHOM_OK)
        return status;

    uint8_t flags = t->dtz_flags[file];
    if (flags & PAIRS_MAPPED) {
        int m = map_of_wdl[wdl + 2];
        if (value >= t->dtz_map_len[file][m])
            return FATHOM_ERR_CORRUPT;
        const uint8_t *base = t->map.data + t->dtz_map_offset[file][m];
        value = (flags & PAIRS_WIDE_MAPS) ? tb_u16le(base + 2 * (uint64_t)value) : base[value];
    }
    int rounded = !(flags & plies_flag[wdl + 2]) || wdl == 1 || wdl == -1;
    *dtz = rounded ? 2 * (int)value : (int)value;
    *precise = !rounded;
    *stored = 1;
    return FATHOM_OK;
}

int tb_table_dtz(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                 tb_key pos_key, int wdl, tb_block_memo *memo, int *dtz, int *precise,
                 int *stored)
{
    int status = dtz_value(t, c, pos, pos_key, wdl, memo, dtz, precise, stored);
    /* As wdl_at: a lost page (its block or value map) fails the read. */
    return tb_map_damaged(&t->map) ? FATHOM_ERR_IO : status;
}
