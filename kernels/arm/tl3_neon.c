#if !defined(__ARM_NEON)
#error "tl3_neon.c needs NEON (cmake/isa.cmake gives -march=armv8-a to *_neon.c)"
#endif
/* The gemv: TL3 tiles (256 rows x 128 weights) times Q8_0 activations by 128-entry TBL lookups. Row r's
 * group code sb[q].qs[g][r] (weights 32q + 5g .. + 4) indexes, by its low 7 bits, T[m] = sum_n (u_n(m) - 1) a_n,
 * kept as byte planes l (0..31) and h (-20..19) of value 32 h + l; bit 7 negates. Its pair code, nibble r >> 7 of
 * sb[q].qn[r & 127], indexes a 16-entry table. PTQ1_0's float order: four lanes per row (one per Q8_0 block),
 * then (a0 + a1) + (a2 + a3). Baseline NEON (TBL, no SDOT). K % 128 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "util_neon.h"
#include "prefetch.h"
#include "tl3_sums_neon.h"

typedef struct {
    ciot_tl3_tables_neon t; /* tl3_sums_neon.h */
    float dy[4];            /* fp32 scale of each Q8_0 block */
} block_tables;             /* 6288 bytes */

static void build(const void *x, int i, void *tables) {
    const block_q8_0 *y = (const block_q8_0 *)x + 4 * (size_t)i;
    block_tables *tb = tables;
    int8_t a[CIOT_QK]; /* the four Q8_0 blocks' values side by side */
    for (int q = 0; q < 4; q++) {
        vst1q_s8(a + 32 * q, vld1q_s8(y[q].qs)), vst1q_s8(a + 32 * q + 16, vld1q_s8(y[q].qs + 16));
        tb->dy[q] = ciot_fp16_neon(&y[q].d);
    }
    ciot_tl3_build_block_neon(a, &tb->t);
}

/* 32 rows r0 .. r0 + 31 of sub-block q: their byte sums (tl3_sums_neon.h), then the canonical step into acc[k]
 * (rows r0 + 4k .. + 3). `nibble` is r0 >> 7, the pair nibble of these rows. */
static inline __attribute__((always_inline)) void pass(const block_tl3 *w, const block_tables *tb, int q, int r0,
                                                        int nibble, const float32x4_t dw[8], float32x4_t acc[8]) {
    uint8x16_t al[2];
    int8x16_t ah[2];
    ciot_tl3_subblock_sums_neon(w, &tb->t, q, r0, nibble, al, ah);
#pragma clang loop unroll(full)
    for (int v = 0; v < 2; v++) {
        int16x8_t s[2] = {vdupq_n_s16(0), vdupq_n_s16(0)}; /* isum = al + 32 ah exactly, |isum| <= 32 * 127 */
        ciot_lut_widen_neon(al[v], ah[v], s);
        ciot_lut_fma16_neon(s, dw + 4 * v, tb->dy[q], acc + 4 * v);
    }
}

CIOT_MCA_TILE("tl3_gemv_neon", "weight_rows=32 anchor=tbl weights_per_iteration=32");

/* One 128-block of a tile: acc[q][k] is the float lane of Q8_0 block q for rows 4k .. 4k + 3. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    float32x4_t(*acc)[64] = state;
    float32x4_t dw[64]; /* fp32 row scales, rows 4k .. 4k + 3 */
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int v = 0; v < 16; v++) ciot_lut_scales_neon(w->d + 16 * v, dw + 4 * v);
    CIOT_MCA_BEGIN("tl3_gemv_neon");
    for (int q = 0; q < 4; q++) {
        ciot_prefetch(&w->sb[q], sizeof w->sb[q], prefetch);
        /* the loops scripts/arm-cost measures: 32 rows x 32 weights, rows 0..127 and 128..255 */
#pragma clang loop unroll(disable)
        for (int r0 = 0; r0 < 128; r0 += 32) pass(w, tb, q, r0, 0, dw + r0 / 4, acc[q] + r0 / 4);
#pragma clang loop unroll(disable)
        for (int r0 = 128; r0 < 256; r0 += 32) pass(w, tb, q, r0, 1, dw + r0 / 4, acc[q] + r0 / 4);
    }
    CIOT_MCA_END();
}

static void finish(const void *state, float *y) {
    const float32x4_t(*acc)[64] = state;
    for (int k = 0; k < 64; k++) /* (acc0 + acc1) + (acc2 + acc3) */
        vst1q_f32(y + 4 * k, vaddq_f32(vaddq_f32(acc[0][k], acc[1][k]), vaddq_f32(acc[2][k], acc[3][k])));
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_tables, float32x4_t[4][64], block_tl3, NULL);

CIOT_LUT_KERNELS(tl3, neon, ciot_act_q8_0, CIOT_F_NEON, CIOT_MAC_LOOKUP);
