/*
 * tb_table.h - decoding of one Syzygy table file: header, piece order and
 * index factors, Huffman-coded blocks ("pairs"), position indexing and the
 * DTZ value maps.  Knows the file format, not the rules of chess beyond
 * where pieces stand.
 */
#ifndef PYFATHOM_TB_TABLE_H
#define PYFATHOM_TB_TABLE_H

#include "platform/tb_internal.h"

#include <stddef.h>
#include <stdint.h>

#include "rules/tb_chess.h"
#include "platform/tb_io.h"

#define TB_PIECES 7

/*
 * Index arithmetic shared by all tables.  Computed once per instance so
 * the library keeps no global state.
 */
typedef struct tb_consts {
    uint64_t binom[TB_PIECES + 1][65]; /* binom[k][n] = n choose k */
    int16_t kk_index[10][64];          /* two kings, first in a1-d1-d4 */
    uint64_t pawn_index[6][24];        /* leading pawns - 1, flap square */
    uint64_t pawn_factor[6][4];        /* leading pawns - 1, file a..d */
    uint8_t triangle[64];              /* a1-d1-d4 symmetry class */
    uint8_t diag[64];                  /* index along the two long diagonals */
    uint8_t lower[64];                 /* index below/on the a1-h8 diagonal */
    uint8_t flap[64];                  /* leading pawn square -> 0..23 */
    uint8_t ptwist[64];                /* order of other leading pawns */
    /* The variant's format (tb_variant_format_init; standard chess unless
     * the instance was opened for a variant). */
    int variant;                  /* FATHOM_VARIANT_* */
    uint32_t magic[2];            /* [is_dtz] */
    uint32_t pawn_magic[2];       /* also accepted in pawn tables */
    uint8_t connected_kings;      /* two unique leading pieces may touch */
    uint8_t dtz_constant;         /* the value of a constant DTZ stream */
    int16_t pp_index[10][64];     /* two like leading pieces: class, square */
    uint8_t mtwist[64];           /* order of three or more like pieces */
    uint64_t multi_index[5][10];  /* like leading pieces - 1, class */
    uint64_t multi_factor[5];
} tb_consts;

/* The index arithmetic of every table; the variant's part (its magic
 * numbers and like-piece indexing, standard chess's too) is then
 * tb_variant_format_init's (format/tb_variant_format.h). */
TB_INTERNAL void tb_consts_init(tb_consts *c);

/* Whether a file starting with `magic` is a table of the variant
 * tb_variant_format_init set (python-chess also accepts the pawnless
 * suffix's magic in a pawn table). */
TB_INTERNAL int tb_variant_magic_ok(const tb_consts *c, int is_dtz, int has_pawns,
                                    uint32_t magic);

/* The square in the a1-d1-d4 triangle that stands for symmetry class cls
 * (0..9: b1 c1 d1 c2 d2 d3, then the diagonal a1 b2 c3 d4; tb_table.c). */
TB_INTERNAL int tb_class_square(int cls);

/*
 * Material signature: 4 bits per (colour, piece type), white in bits
 * 0..23 (pawn first), black in bits 24..47.
 */
typedef uint64_t tb_key;

/* tb_key_of's count of every piece (its path where some colour has two
 * or more pieces of a kind). */
static inline tb_key tb_key_counted(const tb_pos *pos, uint64_t white, uint64_t black)
{
    tb_key key = 0;
    for (int t = TB_PAWN; t <= TB_KING; t++) {
        key |= (tb_key)tb_popcount(pos->type[t] & white) << (4 * (t - 1));
        key |= (tb_key)tb_popcount(pos->type[t] & black) << (4 * (t - 1) + 24);
    }
    return key;
}

/* The fields of tb_key_of's first guess for one piece type (shift: its
 * white field): 1 for each colour that has one. */
static inline tb_key tb_key_presence(uint64_t type, uint64_t white, uint64_t black,
                                     int shift)
{
    return (tb_key)((type & white) != 0) << shift |
           (tb_key)((type & black) != 0) << (shift + 24);
}

/* The key of pos (mirror 1: colours swapped).  Most pieces of a tablebase
 * position are the only one of their kind and colour, so each count is
 * first taken as 0 or 1, without a branch (and without a loop: written out
 * per type, as compilers at -O2 keep a loop over six types); the sum of
 * the fields is the number of pieces unless some colour has two of a
 * kind, and only then are the pieces counted.  A popcount loop per mask
 * mispredicts where it ends, which varies from row to row: 3.5
 * mispredicted branches a key over random 3-4-5-piece rows (callgrind's
 * branch simulation). */
static inline tb_key tb_key_of(const tb_pos *pos, int mirror)
{
    uint64_t white = pos->color[TB_WHITE ^ mirror];
    uint64_t black = pos->color[TB_BLACK ^ mirror];
    tb_key key = tb_key_presence(pos->type[TB_PAWN], white, black, 0) |
                 tb_key_presence(pos->type[TB_KNIGHT], white, black, 4) |
                 tb_key_presence(pos->type[TB_BISHOP], white, black, 8) |
                 tb_key_presence(pos->type[TB_ROOK], white, black, 12) |
                 tb_key_presence(pos->type[TB_QUEEN], white, black, 16) |
                 tb_key_presence(pos->type[TB_KING], white, black, 20);
    /* Nibble 11 of the product sums the twelve 0-or-1 fields. */
    unsigned fields = (unsigned)((key * 0x111111111111ULL) >> 44) & 15u;
    return fields == (unsigned)tb_popcount(white | black) ? key
                                                          : tb_key_counted(pos, white, black);
}

/* The material a table file name describes (e.g. "KRPvKR"). */
typedef struct tb_material {
    uint8_t count[2][7]; /* [TB_WHITE/TB_BLACK][piece type]; white = left */
    uint8_t num;         /* number of pieces */
    uint8_t has_pawns;
    uint8_t symmetric;
    tb_key key;        /* white = left of the 'v' */
    tb_key mirror_key; /* colours swapped */
    char name[16];
} tb_material;

/*
 * Parse a normalised table name such as "KRPvKR" (one king each side, at
 * most TB_PIECES pieces, stronger side first as the files are named).
 * RETURN: 1 on success.
 */
TB_INTERNAL int tb_material_parse(const char *name, size_t len, tb_material *out);
/* The same for variants where kings are ordinary pieces (one_king 0:
 * antichess names such as "QvK" or "KvK"). */
TB_INTERNAL int tb_material_parse_variant(const char *name, size_t len, int one_king,
                                          tb_material *out);

/*
 * What the top TB_TOP_BITS bits of the code stream tell the decoder,
 * packed into 32 bits.  Seven bits, not eight: the table is read on the
 * decoder's critical path (each code's length comes out of it before the
 * next code can be looked at), a probe decodes a few dozen codes in random
 * order, and with 128 entries it takes 8 cache lines instead of 16, which
 * stay in L1 between probes more often.  Measured on the 5-piece
 * benchmark (a C loop over 1,000 positions, builds alternated): 7 bits
 * against 8, DTZ 6-7% faster, WDL 4-5% faster in alternated processes but
 * level in paired rounds within one process, L1 misses per WDL probe from
 * Python 44.5 -> 41.0 (cachegrind); 5 bits slower again (fewer codes
 * resolved), 10 and 12 bits 10-15% slower (4 and 16 KB per stream).
 *
 *   bits  0..3   length of the first code when these bits fix it and it
 *                has at most TB_TOP_MAX_LEN bits, else 0
 *   bits  4..15  with bits 0..3 at 0: the shortest length (minus min_len)
 *                the code can have, where the search starts; else 0
 *   bits 16..19  bits of the whole codes at the top that are skipped
 *                together (0: none; always 0 when the first code is longer
 *                than TB_TOP_BITS)
 *   bits 20..31  values those codes expand to (0: none)
 *
 * A code whose length the top bits fix, also one longer than TB_TOP_BITS,
 * is decoded from the entry and TB_SYM_OFFSETS, without a search over the
 * code lengths.  That is the common case of the 5-piece tables, whose
 * streams have up to 4,095 symbols and codes of 8 to 15 bits: of the 21.3
 * codes a 5-piece WDL probe decodes (C loop over 1,000 positions), 20.7
 * are longer than TB_TOP_BITS and 20.0 have their length fixed by the top
 * bits.
 */
#define TB_TOP_BITS 7
typedef uint32_t tb_top_code;
#define TB_TOP_OF(code) ((code) >> (64 - TB_TOP_BITS))
#define TB_TOP_FIRST_LEN(e) ((e) & 15u)
#define TB_TOP_MAX_LEN 15u
#define TB_TOP_SEARCH_FROM(e) (((e) >> 4) & 0xfffu)
#define TB_TOP_SKIP_BITS(e) (((e) >> 16) & 15u)
#define TB_TOP_SKIP_VALUES(e) ((e) >> 20)
#define TB_TOP_MAX_SKIP_VALUES 0xfffu

/* Per code length up to TB_TOP_MAX_LEN, after a stream's by_top entries
 * (the lines the decoder reads anyway, not the stream's header: a field
 * there cost 1.1 more L1 misses per 5-piece WDL probe): the symbol of a
 * code of that length is its offset plus the code's value, modulo 2^32
 * (canonical codes number their symbols in order within a length). */
#define TB_SYM_OFFSETS(p) ((p)->by_top + (1u << TB_TOP_BITS))

/* A symbol whose expansion holds more than one distinct value (or one
 * value past a byte, which no table has: the walk down the tree finds it). */
#define TB_MIXED_VALUES 0xffu

/* Huffman-coded value stream of one (file, side) of a table. */
typedef struct tb_pairs {
    uint64_t index_table; /* file offsets of the three regions */
    uint64_t size_table;
    uint64_t data;
    uint64_t lowest_sym;  /* u16 per code length: first symbol of it */
    uint64_t sym_pattern; /* 3 bytes per symbol: two children or a value */
    uint64_t *base;       /* per code length: smallest left-aligned code */
    uint16_t *first_sym;  /* per code length: its first symbol (host order) */
    tb_top_code *by_top;  /* 1 << TB_TOP_BITS entries, by the code's top bits;
                             then TB_SYM_OFFSETS */
    /* Per symbol, one byte each: the decoder reads sym_len for every code
     * it passes, in random order, so its size is what costs (bytes instead
     * of 16-bit words, 4 KB per stream instead of 8: per 5-piece WDL probe
     * from Python, L1 misses 41.1 -> 37.6 and L2 misses 3.2 -> 1.9 under
     * cachegrind with this machine's cache sizes).  The generator never
     * makes a symbol expand to more than 256 values (Stockfish keeps these
     * lengths in a byte as well; every stream of the 3-, 4- and 5-piece
     * and variant test tables stays within 255), so a file that does is
     * refused as corrupt. */
    uint8_t *sym_len;     /* values it expands to, minus one */
    uint8_t *sym_value;   /* the value of all of them when they are alike
                             (long runs of one outcome are common: no walk
                             down the tree then), else TB_MIXED_VALUES */
    uint64_t num_indices;
    uint64_t num_blocks;
    uint64_t real_num_blocks;
    uint32_t num_syms;
    uint8_t block_log;
    uint8_t idx_bits;
    uint8_t min_len;
    uint8_t max_len;
    uint8_t constant;  /* the whole stream is one value */
    uint16_t const_value;
} tb_pairs;

/*
 * The one Huffman decode step, shared by the probe's decoder (tb_table.c),
 * the checker (tb_check.c) and the building of by_top: the length and
 * symbol of the canonical code at the top of `code`, whose top-bits entry
 * is `top` (0: search from the shortest length).  A short code, and a
 * longer one whose length the entry fixes, come straight from the entry;
 * any other is found by a search over the code lengths that stays inside
 * base[] by construction: setup_pairs ends base[] with 0, which every code
 * reaches, and an entry never starts the search past the last length
 * (build_fast_table), so no bound is tested per step (one made the
 * decoder run 23% more instructions on 3-4-piece DTZ probes, by valgrind,
 * when about half the decodes searched; since longer codes come from the
 * entry too, 0.3 of the 12 codes a 3-4-piece WDL probe decodes search,
 * and 0.7 of the 21 of a 5-piece one).
 * RETURN: 1 (*len and *sym set), or 0 for a symbol past num_syms.
 */
TB_ALWAYS_INLINE int tb_huffman_decode(const tb_pairs *p, tb_top_code top, uint64_t code,
                                       unsigned *len, uint32_t *sym)
{
    *len = TB_TOP_FIRST_LEN(top);
    if (*len) {
        /* Checked against num_syms when the entry was built. */
        *sym = TB_SYM_OFFSETS(p)[*len] + (uint32_t)(code >> (64 - *len));
        return 1;
    }
    const uint64_t *base = p->base;
    unsigned i = TB_TOP_SEARCH_FROM(top);
    while (code < base[i])
        i++;
    *len = (unsigned)p->min_len + i;
    *sym = (uint32_t)(p->first_sym[i] + ((code - base[i]) >> (64 - *len)));
    return *sym < p->num_syms;
}

/* Piece order and index factors for one (file, side). */
typedef struct tb_enc {
    uint64_t factor[TB_PIECES];
    uint8_t pieces[TB_PIECES]; /* piece codes: type | 8 for black */
    uint8_t norm[TB_PIECES];   /* size of the group starting here */
    uint64_t size;             /* number of indices */
    tb_pairs pairs;
} tb_enc;

typedef struct tb_table {
    tb_map map;
    uint8_t is_dtz;
    uint8_t num;
    uint8_t has_pawns;
    uint8_t symmetric;
    uint8_t enc_type;  /* pawnless: 0 = three unique pieces, 2 = two unique
                          pieces (the kings), 3 + n = no two unique pieces:
                          a group of n + 2 like pieces leads (antichess) */
    uint8_t pawns[2];  /* leading pawns, other colour's pawns */
    uint8_t files;     /* 1, or 4 for pawn tables (files a-d) */
    uint8_t sides;     /* WDL: 1 or 2 stored sides; DTZ: 1 */
    tb_key white_key;  /* the material the table stores as white */
    tb_enc enc[8];     /* [file * sides + side] */
    /* DTZ only */
    uint8_t dtz_flags[4];
    uint64_t dtz_map_offset[4][4]; /* per file, per WDL class */
    uint32_t dtz_map_len[4][4];
} tb_table;

/*
 * Map and parse a table file, or, with `data` not NULL, parse the `size`
 * bytes there (the caller's, kept unchanged until tb_table_close; `path`
 * is then unused).  The same checks apply to both.  With `prefix` not
 * NULL (a file only), the file's head is read from that prefix file
 * (tb_map_prefix), and the header read there must describe a layout that
 * ends where the table file ends (a prefix of another table, or one
 * longer than the table, is FATHOM_ERR_BAD_SIZE or FATHOM_ERR_CORRUPT).
 * On failure nothing stays mapped or allocated.  RETURN: FATHOM_OK or
 * FATHOM_ERR_{IO,BAD_SIZE,BAD_MAGIC,CORRUPT,NO_MEMORY}.
 */
TB_INTERNAL int tb_table_open(tb_table *t, const char *path, const char *prefix,
                              const void *data, size_t size, const tb_material *mat,
                              int is_dtz, const tb_consts *c);
TB_INTERNAL void tb_table_close(tb_table *t);

/*
 * One table file opened on its own, with its own index constants (for
 * fathom_check_table and the tests' raw reads, not for probes, which share
 * an instance's).  tb_lone_table_open: *out NULL on failure.  RETURN: as
 * tb_table_open.  tb_lone_table_close accepts NULL.  In tb_check.c.
 */
typedef struct tb_lone_table {
    tb_consts consts;
    tb_table table;
} tb_lone_table;
TB_INTERNAL int tb_lone_table_open(const char *path, const tb_material *mat, int is_dtz,
                                   tb_lone_table **out);
TB_INTERNAL void tb_lone_table_close(tb_lone_table *lone);

/*
 * A memo of where decoding stopped, one slot per block (a block takes the
 * slot its stream and number hash to; another block hashing there takes
 * it over).  A slot holds the decoder's state at the code whose run held
 * the last value read in its block, so that a value further on in the
 * same block is reached by walking on from there.  Per block, not per
 * stream: the DTZ searches and capture resolutions of a batch's rows come
 * back to the blocks of a few small tables again and again between the
 * rows' own reads (callgrind, 20,000 random DTZ rows over the 3-4-5-piece
 * tables, two passes in table order: 959 M instructions with 32 slots per
 * stream, 825 M with 1,024 per block, 853 M with 256; the per-row loop
 * takes 1,013 M).
 *
 * Besides its cursor, a slot may keep up to TB_MEMO_MARKS earlier stops in
 * its block, in order: where a walk ended (bits from the block's start)
 * and the first value of the code it ended at.  A read behind the cursor
 * then walks on from the last mark before it instead of from the block's
 * start.  What that is for: a DTZ row's one-ply search reads its children
 * in the order of its moves, at places all over their blocks (1 KB blocks
 * of up to some 1,600 codes in the DTZ tables), so without marks a third
 * of a DTZ batch's reads went back to their block's start (callgrind,
 * 100,000 random 3-4-5-piece DTZ rows in table order: 132,000 of 379,000
 * reads, 43% of the 31.9 M codes walked).
 *
 * The owner provides the slots and marks: a batch thread
 * 1 << TB_MEMO_BATCH_SLOT_BITS (tb_batch_sorted.c), the root probe's
 * 50-move-edge search 1 << TB_MEMO_EDGE_SLOT_BITS on its stack, a DTZ,
 * root or best-move probe 1 << TB_MEMO_PROBE_SLOT_BITS on its stack
 * (tb_probe.c); single WDL probes pass none (their few reads rarely share
 * a block).  The results never depend on it: only how many codes are
 * walked.
 */
typedef struct tb_memo_slot {
    const tb_pairs *pairs; /* NULL: empty */
    uint64_t block;
    const uint8_t *ptr;
    uint64_t code;
    int64_t first;
    int bits_free;
} tb_memo_slot;

#define TB_MEMO_MARKS 16
/* Blocks of fewer bytes (the WDL tables' 32 and 64) are walked whole in
 * a few dozen codes: keeping marks there cost a WDL batch more than it
 * saved (callgrind, 300,000 random WDL rows: 8% more instructions). */
#define TB_MEMO_MARKED_BLOCK_LOG 7
/* In a block with marks, a walk of more values than this stops on its way
 * every so many values to leave a mark, for the reads behind it that
 * follow.  Callgrind, 100,000 random DTZ rows in table order, one thread:
 * 1.357 G instructions without such stops, 1.294 G every 512 values,
 * 1.284 G every 768, 1.286 G every 1,024, 1.337 G every 4,096; the DTZ
 * loop of 20,000 of them (16-slot probe memo): 471.7 M, 490.5 M, 473.5 M,
 * 466.7 M, 465.1 M. */
#define TB_MEMO_STEP_VALUES 1024
typedef struct tb_memo_mark {
    uint32_t bits;  /* consumed from the block's start */
    uint32_t first; /* the number of the first value of the code there */
} tb_memo_mark;
typedef tb_memo_mark tb_memo_marks[TB_MEMO_MARKS];

typedef struct tb_block_memo {
    tb_memo_slot *slot;    /* 1 << slot_bits, zeroed before use */
    tb_memo_marks *marks;  /* NULL, or one set per slot */
    uint8_t *mark_count;   /* with marks: per slot, how many are set */
    unsigned slot_bits;
} tb_block_memo;

/* 256 slots with marks, 45 KB.  The edge search's one-ply DTZ searches are
 * what marks are for: over bench_root's 2,000 positions with a clock
 * (callgrind), 3.03 G instructions with 1,024 slots and no marks (48 KB),
 * 2.62 G with these, 2.53 G with 1,024 slots and marks (177 KB, too much
 * for a stack). */
#define TB_MEMO_EDGE_SLOT_BITS 8
/* 4,096 slots (192 KB) and their marks (516 KB).  Measured (callgrind,
 * the 100,000 DTZ rows above): 1.51 G instructions with 1,024 slots,
 * 1.42 G with 2,048, 1.34 G with 4,096, 1.31 G with 8,192 (no marks, 1,024
 * slots: 2.00 G; the per-row loop: 2.48 G). */
#define TB_MEMO_BATCH_SLOT_BITS 12
/* 16 slots with marks (2.8 KB): a single DTZ probe's (tb_probe.c).
 * Callgrind, DTZ probes of 1,000 random positions, instructions per probe
 * without a memo / 8 / 16 / 32 / 64 slots: 3-4 pieces 32,081 / 30,386 /
 * 30,198 / 30,200 / 30,282; 5 pieces 31,913 / 29,500 / 29,225 / 29,083 /
 * 29,141. */
#define TB_MEMO_PROBE_SLOT_BITS 4

/* An empty memo over its owner's arrays: 1 << bits slots, and as many
 * sets of marks and counts, or NULL for none.  Only the slots are cleared:
 * a slot's marks are dropped when a block takes it (memo_start). */
static inline void tb_memo_init(tb_block_memo *memo, tb_memo_slot *slots,
                                tb_memo_marks *marks, uint8_t *mark_count, unsigned bits)
{
    for (size_t i = 0; i < (size_t)1 << bits; i++)
        slots[i].pairs = NULL;
    memo->slot = slots;
    memo->marks = marks;
    memo->mark_count = marks ? mark_count : NULL;
    memo->slot_bits = bits;
}

static inline unsigned tb_memo_slot_of(const tb_block_memo *memo, const tb_pairs *p,
                                       uint64_t block)
{
    uint64_t h = ((uint64_t)(uintptr_t)p ^ block * 0x2545f4914f6cdd1dULL) * 0x9e3779b97f4a7c15ULL;
    return (unsigned)(h >> (64 - memo->slot_bits));
}

/*
 * Raw lookups.  `pos_key` is tb_key_of(pos, 0); `memo` NULL, or the
 * batch thread's or the probe's memo.
 * tb_table_wdl: *wdl in -2..2.
 * tb_table_dtz: *stored = 0 when the table holds the other side to move;
 * else *dtz (plies, before adding the zeroing move) and *precise.
 * RETURN: FATHOM_OK or FATHOM_ERR_CORRUPT.
 */
TB_INTERNAL int tb_table_wdl(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                 tb_key pos_key, tb_block_memo *memo, int *wdl);
TB_INTERNAL int tb_table_dtz(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                 tb_key pos_key, int wdl, tb_block_memo *memo, int *dtz, int *precise,
                 int *stored);

/*
 * Where a position's WDL value lies, without decoding it: *stream, the
 * number of its (file, side) stream (0..7), *idx, its index there, and
 * *size, the stream's number of indices.
 * The batch orders its rows by this.  RETURN: 1, or 0 when the position
 * does not fit the table (tb_table_wdl's FATHOM_ERR_CORRUPT).
 */
TB_INTERNAL int tb_table_locate(const tb_table *t, const tb_consts *c, const tb_pos *pos,
                                tb_key pos_key, unsigned *stream, uint64_t *idx,
                                uint64_t *size);

/* The WDL value at index idx of stream `stream` (as tb_table_locate gives
 * them): tb_table_wdl is tb_table_locate then this.  RETURN: as
 * tb_table_wdl. */
TB_INTERNAL int tb_table_wdl_at(const tb_table *t, unsigned stream, uint64_t idx,
                                tb_block_memo *memo, int *wdl);

/*
 * Where a position's DTZ value lies: RETURN the stream (*idx set), or NULL
 * when the table holds the other side to move or the position does not
 * fit it (tb_table_dtz's answers then: nothing stored, or corrupt).
 */
TB_INTERNAL const tb_pairs *tb_table_dtz_locate(const tb_table *t, const tb_consts *c,
                                                const tb_pos *pos, tb_key pos_key,
                                                uint64_t *idx);

/*
 * Read-ahead of value number idx of stream p of the mapped file `map`
 * (batch/tb_read_ahead.c): the bytes one step of its read will touch.
 * A read takes three regions, each found from the one before:
 * TB_AHEAD_INDEX is the stream's sparse-index entry, TB_AHEAD_SIZES the
 * block-size entry that entry leads to (read here), TB_AHEAD_BLOCK the
 * block (found here by find_block).  Run in that order some rows apart,
 * each step reads only what the one before asked for.  Reads are
 * bounds-checked as a probe's are; a lost page reads as zeros and marks
 * the map damaged (tb_map_damaged), as the probe of the same row would
 * have.  RETURN: 1 (*addr, *len set), or 0: nothing to ask for (a
 * constant stream, the caller's bytes (tb_map_memory), an index or block
 * out of range).
 */
#define TB_AHEAD_INDEX 3
#define TB_AHEAD_SIZES 2
#define TB_AHEAD_BLOCK 1
TB_INTERNAL int tb_pairs_ahead_range(const tb_pairs *p, const tb_map *map, uint64_t idx,
                                     int step, const uint8_t **addr, size_t *len);

#endif /* PYFATHOM_TB_TABLE_H */
