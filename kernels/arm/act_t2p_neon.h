#if !defined(__ARM_NEON)
#error "act_t2p_neon.h needs NEON (include it from the aarch64 kernel files only)"
#endif
/* Activations laid out for the T2P NEON kernels, made once per slice and chunk of K and read by every
 * 4-row tile. Per 128-block: y[4w + s] = the 8 activations of chunk 4w + s (values 8c .. 8c + 7) in both
 * halves, which is what slot s of T2P word w multiplies (lanes 0-7 one row of a pair, 8-15 the other); then
 * the sum of the block's 128 activations and the Q8_K scale, each in every lane. The kernel reads a block
 * front to back: four LD1 of four registers (one per word), one LDP. */
#ifndef CIOT_ARM_ACT_T2P_NEON_H
#define CIOT_ARM_ACT_T2P_NEON_H

#include "formats.h"
#include "neon_helpers.h"

typedef struct {
    int8x16_t y[16]; /* [word w * 4 + slot s] */
    int32x4_t ysum;  /* sum of the 128 activations */
    float32x4_t d;   /* the Q8_K scale */
} ciot_t2p_act_neon;

/* 128-blocks i0 .. i0 + n - 1 of the Q8_K row x. */
static inline void ciot_t2p_act_prepare_neon(const block_q8_K *x, int i0, int n, ciot_t2p_act_neon *out) {
    for (int k = 0; k < n; k++) {
        const int i = i0 + k, h = i & 1;
        const block_q8_K *b = &x[i >> 1];
        for (int w = 0; w < 4; w++) {
            const int64x2x4_t c = ciot_neon_dup8x4(b->qs + 128 * h + 32 * w);
            for (int s = 0; s < 4; s++) out[k].y[4 * w + s] = vreinterpretq_s8_s64(c.val[s]);
        }
        out[k].ysum = vdupq_n_s32(vaddlvq_s16(vld1q_s16(b->bsums + 8 * h)));
        out[k].d = vdupq_n_f32(b->d);
    }
}

/* The same for activation row r of the Q8_Kx4 blocks x: chunk c (0..31) of row r is qs[32c + 8r ..], the
 * sum of group g (16 values, 0..15) bsums[16 (g >> 2) + 4r + (g & 3)]. */
static inline void ciot_t2p_act_prepare_x4_neon(const block_q8_Kx4 *x, int r, int i0, int n, ciot_t2p_act_neon *out) {
    for (int k = 0; k < n; k++) {
        const int i = i0 + k, h = i & 1;
        const block_q8_Kx4 *b = &x[i >> 1];
        for (int c = 0; c < 16; c++) {
            const ciot_i64_unaligned *p = (const ciot_i64_unaligned *)(b->qs + 32 * (16 * h + c) + 8 * r);
            out[k].y[c] = vreinterpretq_s8_s64(vld1q_dup_s64(p));
        }
        /* groups 8h .. 8h + 7 */
        const int16x8_t g = vcombine_s16(vld1_s16(b->bsums + 32 * h + 4 * r), vld1_s16(b->bsums + 32 * h + 16 + 4 * r));
        out[k].ysum = vdupq_n_s32(vaddlvq_s16(g));
        out[k].d = vdupq_n_f32(b->d[r]);
    }
}

#endif
