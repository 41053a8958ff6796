/*
 * tb_variant_format.c - what the table files of each variant look like:
 * their name suffixes, the magic number their files start with, and the
 * index constants that only variants need (leading kings that may touch,
 * leading groups of like pieces in antichess).
 */
#include <string.h>

#include "format/tb_variant_format.h"

/* Per variant: suffixes and magic numbers (the first four bytes of a file,
 * read little-endian).  The antichess family stores pawnless tables once,
 * so each of suicide and giveaway also reads the other's pawnless files. */
typedef struct variant_format {
    const char *suffix[2];          /* [is_dtz] */
    const char *pawnless_suffix[2]; /* NULL: none */
    uint32_t magic[2];
    uint32_t pawn_magic[2];         /* also accepted in pawn tables */
    uint8_t one_king;
    uint8_t connected_kings;
    uint8_t dtz_constant;
} variant_format;

#define SUICIDE_MAGIC {0x1593f67bu, 0x23e7cfe4u}
#define GIVEAWAY_MAGIC {0x21bc55bcu, 0x501bf5d6u}

static const variant_format formats[FATHOM_VARIANT_COUNT] = {
    /* standard */
    {{".rtbw", ".rtbz"}, {NULL, NULL}, {0x5d23e871u, 0xa50c66d7u},
     {0x5d23e871u, 0xa50c66d7u}, 1, 0, 0},
    /* atomic: kings may stand side by side */
    {{".atbw", ".atbz"}, {NULL, NULL}, {0x49a48d55u, 0xeb5ea991u},
     {0x49a48d55u, 0xeb5ea991u}, 1, 1, 0},
    /* suicide: kings are ordinary pieces; a constant DTZ stream is 1 */
    {{".stbw", ".stbz"}, {".gtbw", ".gtbz"}, SUICIDE_MAGIC, GIVEAWAY_MAGIC,
     0, 1, 1},
    /* giveaway (antichess) */
    {{".gtbw", ".gtbz"}, {".stbw", ".stbz"}, GIVEAWAY_MAGIC, SUICIDE_MAGIC,
     0, 1, 1},
};

/*
 * The order in which the generator numbers the squares of like pieces
 * after the first of a leading group of three or more (a fixed table of
 * the file format).
 */
static const uint8_t like_piece_order[64] = {
    15, 63, 55, 47, 40, 48, 56, 12, 62, 11, 39, 31, 24, 32, 8,  57,
    54, 38, 7,  23, 16, 4,  33, 49, 46, 30, 22, 3,  0,  17, 25, 41,
    45, 29, 21, 2,  1,  18, 26, 42, 53, 37, 6,  20, 19, 5,  34, 50,
    61, 10, 36, 28, 27, 35, 9,  58, 14, 60, 52, 44, 43, 51, 59, 13,
};

static int rank_minus_file(int sq) { return (sq >> 3) - (sq & 7); }

/* Squares a5 a6 a7 b5 b6 c5: where the second of two like pieces in the
 * same triangle class makes the pair's mirror image the canonical one. */
static int in_corner(int sq)
{
    return sq == 32 || sq == 33 || sq == 34 || sq == 40 || sq == 41 || sq == 48;
}

/*
 * Two like leading pieces: the first in triangle class i (the lower class
 * of the two), the second on any square of that class or a higher one,
 * numbered class by class.  A first piece on the diagonal keeps the second
 * on or below it, and numbers the second's diagonal squares first.
 */
static void init_pair_index(tb_consts *c)
{
    int code = 0;
    for (int i = 0; i < 10; i++) {
        int first = tb_class_square(i);
        int on_diagonal = rank_minus_file(first) == 0;
        for (int sq = 0; sq < 64; sq++)
            c->pp_index[i][sq] = -1;
        for (int pass = 0; pass < (on_diagonal ? 2 : 1); pass++) {
            for (int sq = 0; sq < 64; sq++) {
                if (sq == first || c->triangle[sq] < i)
                    continue;
                if (on_diagonal && rank_minus_file(sq) > 0)
                    continue;
                if (c->triangle[sq] == i && in_corner(sq))
                    continue;
                /* first pass: the diagonal; second: the rest */
                if (on_diagonal && (rank_minus_file(sq) == 0) != (pass == 0))
                    continue;
                c->pp_index[i][sq] = (int16_t)code++;
            }
        }
    }
}

static void init_like_groups(tb_consts *c)
{
    memcpy(c->mtwist, like_piece_order, sizeof c->mtwist);
    for (int others = 0; others < 5; others++) {
        uint64_t total = 0;
        for (int cls = 0; cls < 10; cls++) {
            c->multi_index[others][cls] = total;
            total += others == 0 ? 1 : c->binom[others][c->mtwist[tb_class_square(cls)]];
        }
        c->multi_factor[others] = total;
    }
}

int tb_variant_format_init(tb_consts *c, int variant)
{
    if (variant < 0 || variant >= FATHOM_VARIANT_COUNT)
        return 0;
    const variant_format *f = &formats[variant];
    c->variant = variant;
    memcpy(c->magic, f->magic, sizeof c->magic);
    memcpy(c->pawn_magic, f->pawn_magic, sizeof c->pawn_magic);
    c->connected_kings = f->connected_kings;
    c->dtz_constant = f->dtz_constant;
    init_pair_index(c);
    init_like_groups(c);
    return 1;
}

int tb_variant_suffix_kind(int variant, const char *suffix, int has_pawns)
{
    if (variant < 0 || variant >= FATHOM_VARIANT_COUNT)
        return -1;
    const variant_format *f = &formats[variant];
    for (int k = 0; k < 2; k++) {
        if (strcmp(suffix, f->suffix[k]) == 0)
            return k;
        if (!has_pawns && f->pawnless_suffix[k] &&
            strcmp(suffix, f->pawnless_suffix[k]) == 0)
            return k;
    }
    return -1;
}

int tb_variant_one_king(int variant)
{
    return variant >= 0 && variant < FATHOM_VARIANT_COUNT ? formats[variant].one_king : 1;
}
