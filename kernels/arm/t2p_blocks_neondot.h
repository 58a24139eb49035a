#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_blocks_neondot.h needs -march=armv8.2-a+dotprod (include it from *_neondot.c only)"
#endif
/* The T2P block loop shared by t2p_gemv_neondot and t2p_gemm_neondot: one 4-row tile against one
 * activation row prepared by act_t2p_neon.h, continuing the canonical float order from `acc` (lane r =
 * weight row r). Byte j of word w of pair p holds, in slot s, row 2p + (j >= 8), weight 8 (4w + s) + (j & 7):
 * one SDOT of slot s against y[4w + s] gives lanes 0-1 row 2p, lanes 2-3 row 2p + 1.
 * Per 16-byte word: three ANDs, one shift and four SDOTs. The accumulators run on over the blocks and a
 * block's sum is the difference of two running totals, so no accumulator is reset per block. */
#ifndef CIOT_ARM_T2P_BLOCKS_NEONDOT_H
#define CIOT_ARM_T2P_BLOCKS_NEONDOT_H

#include <stddef.h>
#include "act_t2p_neon.h"
#include "prefetch.h"

/* The loop reads both streams front to back with post-indexed loads (CIOT_NEON_STEP): this order. */
_Static_assert(offsetof(block_t2p, qs) == 8, "T2P: d[4], then qs");
_Static_assert(offsetof(ciot_t2p_act_neon, ysum) == 256 && offsetof(ciot_t2p_act_neon, d) == 272 &&
                   sizeof(ciot_t2p_act_neon) == 288,
               "prepared block: y[16], ysum, d");

/* Blocks 0 .. n - 1 of tile w against a[0 .. n - 1], prefetching `prefetch` bytes ahead. */
static inline __attribute__((always_inline)) float32x4_t ciot_t2p_blocks_loop(const block_t2p *w,
                                                                              const ciot_t2p_act_neon *a, int n,
                                                                              float32x4_t acc, size_t prefetch) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    /* Running sums over the blocks so far, of pair p: c1[p] of u (slots 0 and 3), c4[p] of 4u (slot 1),
     * c16[p] of 16u (slot 2). int32 safe: a lane adds per block 32 products of at most 3 * 127 (c1), 16 of
     * at most 12 * 127 (c4) or 16 of at most 48 * 127 (c16), and a pairwise add two lanes: at most 195072
     * per block, so up to 10000 blocks (callers pass chunks of at most 64). */
    int32x4_t c1[2], c4[2], c16[2];
    for (int p = 0; p < 2; p++) c1[p] = c4[p] = c16[p] = vdupq_n_s32(0);
    int32x4_t prev = vdupq_n_s32(0); /* u . y over the blocks before this one */
    const uint8_t *wb = (const uint8_t *)w; /* walks the weight bytes: d[4], then qs[128] */
    const int8_t *ab = (const int8_t *)a;   /* walks the activation blocks: y[16], ysum, d */
    for (int i = 0; i < n; i++) {
        ciot_prefetch(&w[i], sizeof *w, prefetch);
        const float32x4_t dw = ciot_neon_h2f4((const uint16_t *)wb);
        CIOT_NEON_STEP(wb, 8);
        const uint8x16x4_t v0 = vld1q_u8_x4(wb); /* pair 0, words 0..3 */
        CIOT_NEON_STEP(wb, 64);
        const uint8x16x4_t v1 = vld1q_u8_x4(wb); /* pair 1 */
        CIOT_NEON_STEP(wb, 64);
        for (int wd = 0; wd < 4; wd++) {
            const int8x16x4_t y = vld1q_s8_x4(ab); /* slots 0..3 of word wd */
            CIOT_NEON_STEP(ab, 64);
            for (int p = 0; p < 2; p++) {
                const uint8x16_t b = p ? v1.val[wd] : v0.val[wd];
                c1[p] = vdotq_s32(c1[p], vreinterpretq_s8_u8(vandq_u8(b, m03)), y.val[0]);
                c4[p] = vdotq_s32(c4[p], vreinterpretq_s8_u8(vandq_u8(b, m0c)), y.val[1]);
                c16[p] = vdotq_s32(c16[p], vreinterpretq_s8_u8(vandq_u8(b, m30)), y.val[2]);
                c1[p] = vdotq_s32(c1[p], vreinterpretq_s8_u8(vshrq_n_u8(b, 6)), y.val[3]);
            }
        }
        const int32x4_t ysum = vld1q_s32((const int32_t *)ab);
        const float32x4_t dy = vld1q_f32((const float *)ab + 4);
        CIOT_NEON_STEP(ab, 32);
        /* pairwise adds put rows 0..3 in lanes 0..3; tot = u . y over blocks 0 .. i. Exact: c4 sums multiples
         * of 4 and c16 multiples of 16, so the arithmetic shifts (SSRA) drop zero bits only. */
        const int32x4_t tot = vsraq_n_s32(vsraq_n_s32(vpaddq_s32(c1[0], c1[1]), vpaddq_s32(c4[0], c4[1]), 2),
                                          vpaddq_s32(c16[0], c16[1]), 4);
        /* block i: u . y - sum(y) = w . y, then fmaf((float) isum, fp32(d[r]) * d_y, acc) */
        const int32x4_t isum = vsubq_s32(vsubq_s32(tot, prev), ysum);
        prev = tot;
        acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_f32(dw, dy));
    }
    return acc;
}

/* The loop above, compiled once with the prefetch and once without, so that no block tests the policy. */
static inline float32x4_t ciot_t2p_blocks_neondot(const block_t2p *w, const ciot_t2p_act_neon *a, int n,
                                                  float32x4_t acc, size_t prefetch) {
    return prefetch ? ciot_t2p_blocks_loop(w, a, n, acc, prefetch) : ciot_t2p_blocks_loop(w, a, n, acc, 0);
}

#endif
