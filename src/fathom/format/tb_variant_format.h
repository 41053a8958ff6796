/*
 * tb_variant_format.h - internal: what the files of each variant look
 * like (tb_variant_format.c): name suffixes, magic numbers, index
 * constants.  The variants' rules: rules/tb_variant.h.
 */
#ifndef PYFATHOM_TB_VARIANT_FORMAT_H
#define PYFATHOM_TB_VARIANT_FORMAT_H

#include <stdint.h>

#include "fathom.h" /* FATHOM_VARIANT_* */
#include "platform/tb_internal.h"
#include "format/tb_table.h"

/* Fill the variant's part of the per-instance constants (magic numbers,
 * adjacent-king and like-piece indexing).  RETURN: 1, or 0 for an unknown
 * variant. */
TB_INTERNAL int tb_variant_format_init(tb_consts *c, int variant);

/*
 * What a file name suffix (".rtbw", ".atbz", ...) is for a variant:
 * 0 a WDL file, 1 a DTZ file, -1 neither.  Suffixes that only hold
 * pawnless tables are accepted only when `has_pawns` is 0.
 */
TB_INTERNAL int tb_variant_suffix_kind(int variant, const char *suffix, int has_pawns);

/* Whether the variant has one royal king per side (table names then start
 * with a K on each side). */
TB_INTERNAL int tb_variant_one_king(int variant);

#endif /* PYFATHOM_TB_VARIANT_FORMAT_H */
