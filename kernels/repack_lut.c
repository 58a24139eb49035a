/* PTQ1_0 and TQ1_0 <-> TL3 and TL16, and PQ2_0 <-> TL2: 256 rows of one 128-weight block become one tile block,
 * row r's bytes at offset r of every 256-byte plane, tile blocks in the group order of ciot_lut_block_index
 * (formats.h, kernels/README.md). TL3 regroups each 32-weight sub-block's trits into six 5-trit group codes
 * and one 2-trit pair code, TL16 into ten 3-trit groups (magnitude nibble, sign bit) and the same pair code;
 * a TQ1_0 256-block becomes the TL3 128-blocks 2q and 2q + 1, both carrying its
 * scale (kernels/README-tq.md); TL2 only moves PQ2_0 bytes. */
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

/* Row r of a TL3 block from its 128 codes u[] and fp16 scale d (the block's qn bytes zeroed beforehand). */
static void tl3_pack_row(const uint8_t u[CIOT_QK], uint16_t d, block_tl3 *out, int r) {
    out->d[r] = d;
    for (int q = 0; q < 4; q++) {
        const uint8_t *s = u + 32 * q;
        for (int g = 0; g < 6; g++) {
            const uint8_t *t = s + 5 * g;
            out->sb[q].qs[g][r] = ciot_tl3_code(81 * t[0] + 27 * t[1] + 9 * t[2] + 3 * t[3] + t[4]);
        }
        out->sb[q].qn[r & 127] |= (uint8_t)(ciot_tl3_pair_code(3 * s[30] + s[31]) << (4 * (r >> 7)));
    }
}

/* The 128 codes of row r of a TL3 block; returns its fp16 scale. */
static uint16_t tl3_unpack_row(const block_tl3 *in, int r, uint8_t u[CIOT_QK]) {
    for (int q = 0; q < 4; q++) {
        for (int g = 0; g < 6; g++) trits5(ciot_tl3_value(in->sb[q].qs[g][r]), u + 32 * q + 5 * g);
        const int V = ciot_tl3_pair_value((in->sb[q].qn[r & 127] >> (4 * (r >> 7))) & 15);
        u[32 * q + 30] = (uint8_t)(V / 3), u[32 * q + 31] = (uint8_t)(V % 3);
    }
    return in->d[r];
}

static void tl3_clear(void *out) {
    block_tl3 *b = out;
    for (int q = 0; q < 4; q++) memset(b->sb[q].qn, 0, sizeof b->sb[q].qn);
}
static void tl3_pack(const uint8_t u[CIOT_QK], uint16_t d, void *out, int r) { tl3_pack_row(u, d, out, r); }
static uint16_t tl3_unpack(const void *in, int r, uint8_t u[CIOT_QK]) { return tl3_unpack_row(in, r, u); }

/* Row r of a TL16 block from its 128 codes u[] and fp16 scale d (the block zeroed beforehand). */
static void tl16_pack(const uint8_t u[CIOT_QK], uint16_t d, void *outp, int r) {
    __typeof__(((block_tl16 *)0)->v[0]) *out = &((block_tl16 *)outp)->v[r >> 5];
    const int j = r & 31;
    out->d[j] = d;
    for (int q = 0; q < 4; q++) {
        const uint8_t *s = u + 32 * q;
        for (int g = 0; g < 10; g++) {
            const int v = ciot_tl16_value(s[3 * g], s[3 * g + 1], s[3 * g + 2]);
            out->sb[q].qs[g >> 1][j] |= (uint8_t)(ciot_tl16_nibble(v) << (4 * (g & 1)));
            if (g < 8) out->sb[q].sg[j] |= (uint8_t)(ciot_tl16_sign(v) << g);
            else out->sx[j] |= (uint8_t)(ciot_tl16_sign(v) << (2 * q + g - 8));
        }
        out->qn[q >> 1][j] |= (uint8_t)(ciot_tl3_pair_code(3 * s[30] + s[31]) << (4 * (q & 1)));
    }
}

/* The 128 codes of row r of a TL16 block; returns its fp16 scale. */
static uint16_t tl16_unpack(const void *inp, int r, uint8_t u[CIOT_QK]) {
    const block_tl16 *in = inp;
    const int v = r >> 5, j = r & 31;
    for (int q = 0; q < 4; q++) {
        for (int g = 0; g < 10; g++) {
            const int m = (in->v[v].sb[q].qs[g >> 1][j] >> (4 * (g & 1))) & 15, sg = ciot_tl16_sign_bit(in, q, g, r);
            for (int n = 0; n < 3; n++) u[32 * q + 3 * g + n] = (uint8_t)ciot_tl16_trit(m, sg, n);
        }
        const int V = ciot_tl3_pair_value((in->v[v].qn[q >> 1][j] >> (4 * (q & 1))) & 15);
        u[32 * q + 30] = (uint8_t)(V / 3), u[32 * q + 31] = (uint8_t)(V % 3);
    }
    return in->v[v].d[j];
}
static void tl16_clear(void *out) { memset((block_tl16 *)out, 0, sizeof(block_tl16)); }

/* A 256-row lookup layout of trits (TL3, TL16): its tile block, matrix group and per-row codec. */
typedef struct {
    size_t block_bytes;
    int group;
    void (*clear)(void *block); /* zero the bytes rows share before packing */
    void (*pack)(const uint8_t u[CIOT_QK], uint16_t d, void *block, int r);
    uint16_t (*unpack)(const void *block, int r, uint8_t u[CIOT_QK]);
    uint16_t (*scale)(const void *block, int r);
} trit_layout;

static uint16_t tl3_scale(const void *b, int r) { return ((const block_tl3 *)b)->d[r]; }
static uint16_t tl16_scale(const void *b, int r) { return ((const block_tl16 *)b)->v[r >> 5].d[r & 31]; }
static const trit_layout tl3 = {sizeof(block_tl3), CIOT_TL3_GROUP, tl3_clear, tl3_pack, tl3_unpack, tl3_scale};
static const trit_layout tl16 = {sizeof(block_tl16), CIOT_TL16_GROUP, tl16_clear, tl16_pack, tl16_unpack, tl16_scale};

static void *block_of(const trit_layout *L, const void *base, int t, int i, int tiles, int nb) {
    return (char *)base + ciot_lut_block_index(t, i, tiles, nb, L->group) * L->block_bytes;
}

static ciot_status ptq1_to(const trit_layout *L, const block_ptq1_0 *src, void *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++) {
            void *out = block_of(L, dst, t, i, tiles, nb);
            L->clear(out);
            for (int r = 0; r < TILE; r++) {
                const block_ptq1_0 *in = &src[(size_t)(TILE * t + r) * nb + i];
                uint8_t u[CIOT_QK];
                ciot_ptq1_codes(in, u);
                L->pack(u, in->d, out, r);
            }
        }
    return CIOT_OK;
}

static ciot_status to_ptq1(const trit_layout *L, const void *src, block_ptq1_0 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++) {
            const void *in = block_of(L, src, t, i, tiles, nb);
            for (int r = 0; r < TILE; r++) {
                block_ptq1_0 *out = &dst[(size_t)(TILE * t + r) * nb + i];
                uint8_t u[CIOT_QK];
                out->d = L->unpack(in, r, u);
                ciot_ptq1_set_codes(out, u);
            }
        }
    return CIOT_OK;
}

/* A TQ1_0 256-block q of tile t is the two 128-blocks (halves h = 0, 1) 2q + h, both carrying its scale. */
static ciot_status tq1_to(const trit_layout *L, const block_tq1_0 *src, void *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK_TQ);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, nq = K / CIOT_QK_TQ, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int q = 0; q < nq; q++) {
            void *out[2] = {block_of(L, dst, t, 2 * q, tiles, nb), block_of(L, dst, t, 2 * q + 1, tiles, nb)};
            L->clear(out[0]), L->clear(out[1]);
            for (int r = 0; r < TILE; r++) {
                const block_tq1_0 *in = &src[(size_t)(TILE * t + r) * nq + q];
                uint8_t u[CIOT_QK_TQ];
                ciot_tq1_codes(in, u);
                for (int h = 0; h < 2; h++) L->pack(u + CIOT_QK * h, in->d, out[h], r);
            }
        }
    return CIOT_OK;
}

static ciot_status to_tq1(const trit_layout *L, const void *src, block_tq1_0 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K, CIOT_QK_TQ);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, nq = K / CIOT_QK_TQ, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++) /* first the scales: halves that disagree have no TQ1_0 block */
        for (int q = 0; q < nq; q++)
            for (int r = 0; r < TILE; r++)
                if (L->scale(block_of(L, src, t, 2 * q, tiles, nb), r) != L->scale(block_of(L, src, t, 2 * q + 1, tiles, nb), r))
                    return CIOT_E_FORMAT;
    for (int t = 0; t < tiles; t++)
        for (int q = 0; q < nq; q++)
            for (int r = 0; r < TILE; r++) {
                block_tq1_0 *out = &dst[(size_t)(TILE * t + r) * nq + q];
                uint8_t u[CIOT_QK_TQ];
                out->d = L->unpack(block_of(L, src, t, 2 * q, tiles, nb), r, u);
                L->unpack(block_of(L, src, t, 2 * q + 1, tiles, nb), r, u + CIOT_QK);
                ciot_tq1_set_codes(out, u);
            }
    return CIOT_OK;
}

ciot_status ciot_repack_tl3(const block_ptq1_0 *src, block_tl3 *dst, int rows, int K) { return ptq1_to(&tl3, src, dst, rows, K); }
ciot_status ciot_unpack_tl3(const block_tl3 *src, block_ptq1_0 *dst, int rows, int K) { return to_ptq1(&tl3, src, dst, rows, K); }
ciot_status ciot_repack_tl3_tq1(const block_tq1_0 *src, block_tl3 *dst, int rows, int K) { return tq1_to(&tl3, src, dst, rows, K); }
ciot_status ciot_unpack_tl3_tq1(const block_tl3 *src, block_tq1_0 *dst, int rows, int K) { return to_tq1(&tl3, src, dst, rows, K); }
ciot_status ciot_repack_tl16(const block_ptq1_0 *src, block_tl16 *dst, int rows, int K) { return ptq1_to(&tl16, src, dst, rows, K); }
ciot_status ciot_unpack_tl16(const block_tl16 *src, block_ptq1_0 *dst, int rows, int K) { return to_ptq1(&tl16, src, dst, rows, K); }
ciot_status ciot_repack_tl16_tq1(const block_tq1_0 *src, block_tl16 *dst, int rows, int K) { return tq1_to(&tl16, src, dst, rows, K); }
ciot_status ciot_unpack_tl16_tq1(const block_tl16 *src, block_tq1_0 *dst, int rows, int K) { return to_tq1(&tl16, src, dst, rows, K); }

/* PQ2_0 <-> TL2, one walk for both directions (TL2 only moves the bytes): every row r of every tile block
 * meets its PQ2_0 block; to_tl2 copies PQ2_0 into TL2, else TL2 into PQ2_0 (the side copied from is only
 * read). */
static ciot_status tl2_move(block_pq2_0 *pq, block_tl2 *tl, int rows, int K, int to_tl2) {
    ciot_status s = check(pq, tl, rows, K, CIOT_QK_K);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK, tiles = rows / TILE;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < nb; i++)
            for (int r = 0; r < TILE; r++) {
                block_pq2_0 *p = &pq[(size_t)(TILE * t + r) * nb + i];
                block_tl2 *b = &tl[ciot_lut_block_index(t, i, tiles, nb, CIOT_TL2_GROUP)];
                if (to_tl2) {
                    b->d[r] = p->d;
                    for (int j = 0; j < 32; j++) b->qs[j][r] = p->qs[j];
                } else {
                    p->d = b->d[r];
                    for (int j = 0; j < 32; j++) p->qs[j] = b->qs[j][r];
                }
            }
    return CIOT_OK;
}

ciot_status ciot_repack_tl2(const block_pq2_0 *src, block_tl2 *dst, int rows, int K) {
    return tl2_move((block_pq2_0 *)src, dst, rows, K, 1);
}

ciot_status ciot_unpack_tl2(const block_tl2 *src, block_pq2_0 *dst, int rows, int K) {
    return tl2_move(dst, (block_tl2 *)src, rows, K, 0);
}
