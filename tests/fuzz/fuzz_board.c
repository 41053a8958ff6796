/*
 * fuzz_board.c - arbitrary bitboards to the prober: 8 masks, ep, turn and
 * a rule50 clock straight from the input (overlapping masks, missing or
 * extra kings, pawns on back ranks, more pieces than any table).  Probed
 * one by one and as a batch ($PYFATHOM_FUZZ_VARIANT: by a variant's rules).
 */
#include "fuzz_common.h"

static fathom_tb *shared;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 * 8 + 2)
        return 0;
    if (!shared) {
        if (fathom_open_variant(&shared, fuzz_variant()) != FATHOM_OK)
            return 0;
        if (fuzz_real_tables())
            fathom_add_directory(shared, fuzz_real_tables(), 1, 1, NULL);
    }
    enum { MAXN = 8 };
    uint64_t m[8][MAXN];
    uint8_t ep[MAXN], turn[MAXN];
    size_t n = 0;
    while (size >= 66 && n < MAXN) {
        for (int k = 0; k < 8; k++) {
            uint64_t v = 0;
            for (int j = 0; j < 8; j++)
                v |= (uint64_t)data[8 * k + j] << (8 * j);
            m[k][n] = v;
        }
        ep[n] = data[64];
        turn[n] = data[65];
        fuzz_pos p = {m[0][n], m[1][n], m[2][n], m[3][n], m[4][n], m[5][n],
                      m[6][n], m[7][n], data[64], data[65] & 1};
        fuzz_probe_all(shared, &p, n == 0);
        /* Raw turn byte as the batch sees it from numpy. */
        data += 66;
        size -= 66;
        n++;
    }
    int8_t w[MAXN];
    int16_t z[MAXN];
    uint8_t status[MAXN];
    fathom_probe_wdl_batch(shared, n, m[0], m[1], m[2], m[3], m[4], m[5], m[6],
                           m[7], ep, turn, w, status, 1);
    fathom_probe_dtz_batch(shared, n, m[0], m[1], m[2], m[3], m[4], m[5], m[6],
                           m[7], ep, turn, z, NULL, 1);
    return 0;
}
