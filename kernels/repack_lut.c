/* PTQ1_0 <-> TL3 and PQ2_0 <-> TL2: 256 rows of one 128-weight block become one tile block, row r's bytes
 * at offset r of every 256-byte plane, tile blocks in the group order of ciot_lut_block_index
 * (formats.h, kernels/README.md). TL3 regroups each 32-weight sub-block's trits into six 5-trit group codes
 * and one 2-trit pair code; TL2 only moves PQ2_0 bytes. */
#include <string.h>
#include "quant.h"
#include "repack.h"

enum { TILE = CIOT_LUT_TILE };

static ciot_status check(const void *src, const void *dst, int rows, int K, int k_multiple) {
    if (!src || !dst || rows <= 0 || K <= 0) return CIOT_E_ARG;
    if (rows % TILE || K % k_multiple) return CIOT_E_SHAPE;
    return CIOT_OK;
}

/* Trits u[0..4] (u[0] most significant) of V. */
static void trits5(int V, uint8_t u[5]) {
    for (int n = 4; n >= 0; n--, V /= 3) u[n] = (uint8_t)(V % 3);
}

static void tl3_pack_row(const block_ptq1_0 *in, block_tl3 *out, int r) {
    uint8_t u[CIOT_QK];
    for (int k = 0; k < CIOT_QK; k++) u[k] = (uint8_t)ciot_ptq1_code(in, k);
    out->d[r] = in->d;
    for (int q = 0; q < 4; q++) {
        const uint8_t *s = u + 32 * q;
        for (int g = 0; g < 6; g++) {
            const uint8_t *t = s + 5 * g;
            out->sb[q].qs[g][r] = ciot_tl3_code(81 * t[0] + 27 * t[1] + 9 * t[2] + 3 * t[3] + t[4]);
        }
        out->sb[q].qn[r & 127] |= (uint8_t)(ciot_tl3_pair_code(3 * s[30] + s[31]) << (4 * (r >> 7)));
    }
}

static void tl3_unpack_row(const block_tl3 *in, block_ptq1_0 *out, int r) {
    uint8_t u[CIOT_QK];
    for (int q = 0; q < 4; q++) {
        for (int g = 0; g < 6; g++) trits5(ciot_tl3_value(in->sb[q].qs[g][r]), u + 32 * q + 5 * g);
        const int V = ciot_tl3_pair_value((in->sb[q].qn[r & 127] >> (4 * (r >> 7))) & 15);
        u[32 * q + 30] = (uint8_t)(V / 3), u[32 * q + 31] = (uint8_t)(V % 3);
    }
    ciot_ptq1_set_codes(out, u);
    out->d = in->d[r];
}

ciot_status ciot_repack_tl3(const block_ptq1_0 *src, block_tl3 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++) {
            block_tl3 *out = &dst[ciot_lut_block_index(t, i, tiles, nb, CIOT_TL3_GROUP)];
            for (int q = 0; q < 4; q++) memset(out->sb[q].qn, 0, sizeof out->sb[q].qn);
            for (int r = 0; r < TILE; r++) tl3_pack_row(&src[(size_t)(TILE * t + r) * nb + i], out, r);
        }
    return CIOT_OK;
}

ciot_status ciot_unpack_tl3(const block_tl3 *src, block_ptq1_0 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++) {
            const block_tl3 *in = &src[ciot_lut_block_index(t, i, tiles, nb, CIOT_TL3_GROUP)];
            for (int r = 0; r < TILE; r++) tl3_unpack_row(in, &dst[(size_t)(TILE * t + r) * nb + i], r);
        }
    return CIOT_OK;
}

ciot_status ciot_repack_tl2(const block_pq2_0 *src, block_tl2 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK_K);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++)
            for (int r = 0; r < TILE; r++) {
                const block_pq2_0 *in = &src[(size_t)(TILE * t + r) * nb + i];
                block_tl2 *out = &dst[ciot_lut_block_index(t, i, tiles, nb, CIOT_TL2_GROUP)];
                out->d[r] = in->d;
                for (int j = 0; j < 32; j++) out->qs[j][r] = in->qs[j];
            }
    return CIOT_OK;
}

ciot_status ciot_unpack_tl2(const block_tl2 *src, block_pq2_0 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK_K);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++)
            for (int r = 0; r < TILE; r++) {
                const block_tl2 *in = &src[ciot_lut_block_index(t, i, tiles, nb, CIOT_TL2_GROUP)];
                block_pq2_0 *out = &dst[(size_t)(TILE * t + r) * nb + i];
                out->d = in->d[r];
                for (int j = 0; j < 32; j++) out->qs[j] = in->qs[j][r];
            }
    return CIOT_OK;
}
