#if !defined(__ARM_FEATURE_MATMUL_INT8) || !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_dot_i8mm.h needs -march=armv8.2-a+dotprod+i8mm (include it from *_i8mm.c only)"
#endif
/* The T2P SMMLA block loop, shared by the i8mm gemm kernels of T2P made from PQ2_0 and from TQ2_0: one
 * 4x4 tile (4 weight rows x one Q8_Kx4 group) accumulated in the layout of tile4x4_i8mm.h. Slot s of word w
 * of pair p is [row 2p: weights 8c .. 8c+7 | row 2p+1: same], c = 4w + s, the 2x8 left operand as stored;
 * Q8_Kx4 bytes 32c .. 32c+15 (rows 0-1) and 32c+16 .. 32c+31 (rows 2-3) of chunk c are the right ones. */
#ifndef CIOT_ARM_T2P_DOT_I8MM_H
#define CIOT_ARM_T2P_DOT_I8MM_H

#include "tile4x4_i8mm.h"

/* One 128-block of the tile: uy[p][cp] = u . y for weight rows 2p, 2p+1 x activation rows 2cp, 2cp+1
 * as [r0 c0, r0 c1, r1 c0, r1 c1]; `a` = the block's 16 chunks of 32 bytes. */
static inline void ciot_t2p_block_uy_i8mm(const block_t2p *w, const int8_t *a, int32x4_t uy[2][2]) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    /* m1 (slots 0 and 3), m4 (slot 1, values 4u), m16 (slot 2, values 16u);
     * int32 safe: a lane of m1 sums 64 products of at most 3 * 127, of m4 and m16 32 of at most 48 * 127 */
    int32x4_t m1[2][2], m4[2][2], m16[2][2];
    for (int p = 0; p < 2; p++)
        for (int cp = 0; cp < 2; cp++) m1[p][cp] = m4[p][cp] = m16[p][cp] = vdupq_n_s32(0);
    for (int wd = 0; wd < 4; wd++) {
        const uint8x16_t v[2] = {vld1q_u8(w->qs + 16 * wd), vld1q_u8(w->qs + 64 + 16 * wd)};
        for (int s = 0; s < 4; s++) {
            const int8_t *c = a + 32 * (4 * wd + s);
            const int8x16_t y[2] = {vld1q_s8(c), vld1q_s8(c + 16)};
            for (int p = 0; p < 2; p++) {
                const uint8x16_t slot = s == 0   ? vandq_u8(v[p], m03)
                                        : s == 1 ? vandq_u8(v[p], m0c)
                                        : s == 2 ? vandq_u8(v[p], m30)
                                                 : vshrq_n_u8(v[p], 6);
                const int8x16_t d = vreinterpretq_s8_u8(slot);
                for (int cp = 0; cp < 2; cp++) {
                    int32x4_t *m = s == 1 ? &m4[p][cp] : s == 2 ? &m16[p][cp] : &m1[p][cp];
                    *m = vmmlaq_s32(*m, d, y[cp]);
                }
            }
        }
    }
    /* m1 + m4 / 4 + m16 / 16, exact: each lane of m4 (m16) sums multiples of 4 (16), so the arithmetic
     * shifts (SSRA) drop zero bits only */
    for (int p = 0; p < 2; p++)
        for (int cp = 0; cp < 2; cp++) uy[p][cp] = vsraq_n_s32(vsraq_n_s32(m1[p][cp], m4[p][cp], 2), m16[p][cp], 4);
}

/* Blocks 0 .. nb - 1 of one weight tile against the group's Q8_Kx4 blocks x[0 .. nb / 2 - 1] into acc.
 * halves = 1 (T2P from PQ2_0): one float step per 128-block. halves = 2 (T2P from TQ2_0): blocks 2q,
 * 2q + 1 are one 256-block carrying its scale twice; their integer sums are added first (int32 safe:
 * |isum| <= 256 * 2 * 127), then one step with block 2q's scales. */
static inline __attribute__((always_inline)) void ciot_t2p_blocks_i8mm(const block_t2p *w, const block_q8_Kx4 *x, int nb,
                                                                       float32x4_t acc[2][2], int halves) {
    for (int q = 0; q < nb / 2; q++, x++) {
        float32x4_t dyc[2];
        ciot_tile4x4_cols_i8mm(vld1q_f32(x->d), dyc);
        for (int h = 0; h < 2; h += halves, w += halves) {
            int32x4_t uy[2][2], isum[2][2], cs[2];
            ciot_t2p_block_uy_i8mm(w, x->qs + 512 * h, uy);
            ciot_tile4x4_colsums_i8mm(x, h, cs);
            if (halves == 2) {
                int32x4_t uy1[2][2], cs1[2];
                ciot_t2p_block_uy_i8mm(w + 1, x->qs + 512, uy1);
                ciot_tile4x4_colsums_i8mm(x, 1, cs1);
                for (int p = 0; p < 2; p++)
                    for (int cp = 0; cp < 2; cp++) uy[p][cp] = vaddq_s32(uy[p][cp], uy1[p][cp]);
                for (int cp = 0; cp < 2; cp++) cs[cp] = vaddq_s32(cs[cp], cs1[cp]);
            }
            /* the column sum turns u = w + 1 back into w */
            for (int p = 0; p < 2; p++)
                for (int cp = 0; cp < 2; cp++) isum[p][cp] = vsubq_s32(uy[p][cp], cs[cp]);
            ciot_tile4x4_fma_i8mm(acc, isum, w->d, dyc);
        }
    }
}

#endif
