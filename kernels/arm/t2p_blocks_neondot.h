#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_blocks_neondot.h needs -march=armv8.2-a+dotprod (include it from *_neondot.c only)"
#endif
/* The T2P gemv block loop, shared by t2p_gemv_neondot and t2p_gemm_neondot: one 4-row tile against one
 * Q8_K row, continuing the canonical float order from `acc` (lane r = weight row r).
 * Byte j of word w of pair p holds, in slot s, row 2p + (j >= 8), weight 8 (4w + s) + (j & 7): one SDOT
 * of slot s against chunk 4w + s duplicated into both halves gives lanes 0-1 row 2p, lanes 2-3 row 2p+1. */
#ifndef CIOT_ARM_T2P_BLOCKS_NEONDOT_H
#define CIOT_ARM_T2P_BLOCKS_NEONDOT_H

#include "formats.h"
#include "neon_helpers.h"
#include "prefetch.h"

/* One 128-block: u . y for rows 0..3, u = w + 1 the stored code. */
static inline int32x4_t ciot_t2p_block_uy(const block_t2p *w, const int8_t *a) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    /* a<s>[p], slot s of pair p: eight independent SDOT chains. int32 safe: a lane sums 16 products of at
     * most 48 * 127 */
    int32x4_t a0[2], a1[2], a2[2], a3[2];
    for (int p = 0; p < 2; p++) a0[p] = a1[p] = a2[p] = a3[p] = vdupq_n_s32(0);
    for (int wd = 0; wd < 4; wd++) {
        const int64x2x4_t yc = ciot_neon_dup8x4(a + 32 * wd); /* chunks 4wd .. 4wd+3, each in both halves */
        const int8x16_t y0 = vreinterpretq_s8_s64(yc.val[0]), y1 = vreinterpretq_s8_s64(yc.val[1]);
        const int8x16_t y2 = vreinterpretq_s8_s64(yc.val[2]), y3 = vreinterpretq_s8_s64(yc.val[3]);
        for (int p = 0; p < 2; p++) {
            const uint8x16_t v = vld1q_u8(w->qs + 64 * p + 16 * wd);
            a0[p] = vdotq_s32(a0[p], vreinterpretq_s8_u8(vandq_u8(v, m03)), y0);
            a1[p] = vdotq_s32(a1[p], vreinterpretq_s8_u8(vandq_u8(v, m0c)), y1);
            a2[p] = vdotq_s32(a2[p], vreinterpretq_s8_u8(vandq_u8(v, m30)), y2);
            a3[p] = vdotq_s32(a3[p], vreinterpretq_s8_u8(vshrq_n_u8(v, 6)), y3);
        }
    }
    /* t_p = a0 + a3 + a1 / 4 + a2 / 16 = u . y per lane pair. Exact: each lane of a1 sums multiples of 4 and
     * of a2 multiples of 16, so the arithmetic shifts (SSRA) drop zero bits only. The pairwise add puts
     * rows 0..3 in lanes 0..3. */
    int32x4_t t[2];
    for (int p = 0; p < 2; p++) t[p] = vsraq_n_s32(vsraq_n_s32(vaddq_s32(a0[p], a3[p]), a1[p], 2), a2[p], 4);
    return vpaddq_s32(t[0], t[1]);
}

/* Blocks 0 .. 2 nq - 1 of tile `w` against Q8_K blocks y[0 .. nq - 1], prefetching `prefetch` bytes ahead. */
static inline float32x4_t ciot_t2p_blocks_neondot(const block_t2p *w, const block_q8_K *y, int nq, float32x4_t acc,
                                                  size_t prefetch) {
    for (int q = 0; q < nq; q++, y++)
        for (int h = 0; h < 2; h++, w++) {
            ciot_prefetch(w, sizeof *w, prefetch);
            /* subtracting sum(y) turns u back into w */
            const int32_t ysum = vaddlvq_s16(vld1q_s16(y->bsums + 8 * h));
            const int32x4_t isum = vsubq_s32(ciot_t2p_block_uy(w, y->qs + 128 * h), vdupq_n_s32(ysum));
            acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(ciot_neon_h2f4(w->d), y->d));
        }
    return acc;
}

#endif
