/*
 * fuzz_table.c - arbitrary bytes as a Syzygy table file.
 *
 * Input: byte 0 chooses the table name (low 7 bits index MATERIALS) and the
 * kind (bit 7: .rtbz, else .rtbw); the rest is the file.  An instance is
 * opened over the real tables ($PYFATHOM_FUZZ_TABLES, optional), the fuzzed
 * bytes are registered under that name straight from memory
 * (fathom_add_table_memory, replacing the real file; no file is written),
 * and random positions of that material are probed: WDL, DTZ and root
 * probes.  Any status is fine; a crash, a sanitizer report or a hang is a
 * bug.  With $PYFATHOM_FUZZ_VARIANT set (see fuzz_common.h) the names and
 * suffixes are that variant's (ATOMIC_MATERIALS, ANTICHESS_MATERIALS) and
 * the instance probes by its rules.
 *
 * Build with libFuzzer (clang -fsanitize=fuzzer,address,undefined) or with
 * replay.c as main (any compiler).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static const char *const MATERIALS[] = {
    "KQvK", "KRvKP", "KPvKP", "KBNvK", "KRvKR", "KBvKN", "KPvK", "KQvKR",
    "KRPvK", "KPPvK", "KNvK", "KQvKP",
};
#define NUM_MATERIALS (sizeof MATERIALS / sizeof MATERIALS[0])

/* Every index kind of the variants: three unique leading pieces, two that
 * may stand side by side, a leading pair or triple of like pieces, pawns. */
static const char *const ATOMIC_MATERIALS[] = {
    "KQvK", "KRRvK", "KPvKP", "KQvKR", "KBNvK", "KPvK", "KNvKP", "KQPvK",
};
static const char *const ANTICHESS_MATERIALS[] = {
    "KvK", "BBvBB", "KKKvK", "PPvP", "KQvR", "QNvB", "KvP", "NvN",
};
#define NUM_VARIANT_MATERIALS 8

static const char *material_of(int variant, uint8_t byte)
{
    if (variant == FATHOM_VARIANT_ATOMIC)
        return ATOMIC_MATERIALS[(byte & 0x7f) % NUM_VARIANT_MATERIALS];
    if (variant != FATHOM_VARIANT_STANDARD)
        return ANTICHESS_MATERIALS[(byte & 0x7f) % NUM_VARIANT_MATERIALS];
    return MATERIALS[(byte & 0x7f) % NUM_MATERIALS];
}

static const char *suffix_of(int variant, int is_dtz)
{
    static const char *const suffixes[4][2] = {
        {"rtbw", "rtbz"}, {"atbw", "atbz"}, {"stbw", "stbz"}, {"gtbw", "gtbz"}};
    return suffixes[variant][is_dtz];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int variant = fuzz_variant();
    const char *material = material_of(variant, data[0]);
    int is_dtz = (data[0] & 0x80) != 0;
    char name[32];
    snprintf(name, sizeof name, "%s.%s", material, suffix_of(variant, is_dtz));
    /* A copy of exactly the file's bytes, so that AddressSanitizer sees a
     * read past its end (the fuzzer's buffer may be larger). */
    size_t file_size = size - 1;
    uint8_t *file = (uint8_t *)malloc(file_size ? file_size : 1);
    if (!file)
        return 0;
    if (file_size)
        memcpy(file, data + 1, file_size);

    fathom_tb *tb = NULL;
    if (fathom_open_variant(&tb, variant) != FATHOM_OK) {
        free(file);
        return 0;
    }
    if (fuzz_real_tables())
        fathom_add_directory(tb, fuzz_real_tables(), 1, 1, NULL);
    fathom_add_table_memory(tb, name, file, file_size);
    /* The positions depend on the name only: the corpus decides the file. */
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ data[0];
    for (int i = 0; i < 24; i++) {
        fuzz_pos p;
        fuzz_place(material, i & 1, &rng, &p);
        fuzz_probe_all(tb, &p, i < 2);
    }
    fathom_close(tb);
    free(file);
    return 0;
}
