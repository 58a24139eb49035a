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

/* Blocks 0 .. nb-1 of tile `w` against Q8_K blocks y[0 .. nb/2-1] (nb even). */
static inline float32x4_t ciot_t2p_blocks_neondot(const block_t2p *w, const block_q8_K *y, int nb, float32x4_t acc) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    for (int i = 0; i < nb; i++) {
        const block_q8_K *yb = &y[i >> 1];
        const int8_t *a = yb->qs + 128 * (i & 1);
        /* a[p][s]: eight independent SDOT chains. int32 safe: a lane sums 16 products of at most 48 * 127 */
        int32x4_t a0[2], a1[2], a2[2], a3[2];
        for (int p = 0; p < 2; p++) a0[p] = a1[p] = a2[p] = a3[p] = vdupq_n_s32(0);
        for (int wd = 0; wd < 4; wd++) {
            const int8_t *c = a + 32 * wd;
            const int8x16_t y0 = ciot_neon_dup8(c), y1 = ciot_neon_dup8(c + 8);
            const int8x16_t y2 = ciot_neon_dup8(c + 16), y3 = ciot_neon_dup8(c + 24);
            for (int p = 0; p < 2; p++) {
                const uint8x16_t v = vld1q_u8(w[i].qs + 64 * p + 16 * wd);
                a0[p] = vdotq_s32(a0[p], vreinterpretq_s8_u8(vandq_u8(v, m03)), y0);
                a1[p] = vdotq_s32(a1[p], vreinterpretq_s8_u8(vandq_u8(v, m0c)), y1);
                a2[p] = vdotq_s32(a2[p], vreinterpretq_s8_u8(vandq_u8(v, m30)), y2);
                a3[p] = vdotq_s32(a3[p], vreinterpretq_s8_u8(vshrq_n_u8(v, 6)), y3);
            }
        }
        /* t_p = a2 + 4 a1 + 16 (a0 + a3) = 16 (u . y) per lane pair; pairwise add gives rows 0..3 */
        int32x4_t t[2];
        for (int p = 0; p < 2; p++)
            t[p] = vaddq_s32(a2[p], vshlq_n_s32(vaddq_s32(a1[p], vshlq_n_s32(vaddq_s32(a0[p], a3[p]), 2)), 2));
        const int32x4_t u16 = vpaddq_s32(t[0], t[1]);
        /* exact: u16 is a multiple of 16; subtracting sum(y) turns u = w + 1 back into w */
        const int32_t ysum = vaddlvq_s16(vld1q_s16(yb->bsums + 8 * (i & 1)));
        const int32x4_t isum = vsubq_s32(vshrq_n_s32(u16, 4), vdupq_n_s32(ysum));
        acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(ciot_neon_h2f4(w[i].d), yb->d));
    }
    return acc;
}

#endif
