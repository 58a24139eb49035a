#if !defined(__ARM_NEON)
#error "act_t2p_neon.h needs NEON (include it from the aarch64 kernel files only)"
#endif
/* Activations laid out for the T2P NEON kernels, made once per slice and chunk of K and read by every
 * 4-row tile, two 128-blocks at a time. Per block: y[4w + s] = the 8 activations of chunk 4w + s (values
 * 8c .. 8c + 7) in both halves, which is what slot s of T2P word w multiplies (lanes 0-7 one row of a pair,
 * 8-15 the other). Per pair of blocks, after both blocks' y: the running sum of the activations from the
 * chunk's first block through each block, and each block's Q8_K scale, every value in all four lanes.
 * The kernel reads a pair front to back: eight LD1 of four registers, then one more. */
#ifndef CIOT_ARM_ACT_T2P_NEON_H
#define CIOT_ARM_ACT_T2P_NEON_H

#include "formats.h"
#include "neon_helpers.h"

typedef struct {
    int8x16_t y[2][16];  /* [block b][word w * 4 + slot s] */
    int32x4_t ycum[2];   /* sum of the activations of the chunk's blocks 0 .. 2j + b */
    float32x4_t d[2];    /* the Q8_K scale of block b */
} ciot_t2p_act2_neon;

/* Block b (0 or 1) of a pair from its 16 chunks: chunk c at src + step * c. */
static inline void ciot_t2p_act_fill_neon(ciot_t2p_act2_neon *out, int b, const int8_t *src, int step) {
    for (int c = 0; c < 16; c++)
        out->y[b][c] = vreinterpretq_s8_s64(vld1q_dup_s64((const ciot_i64_unaligned *)(src + step * c)));
}

/* 128-blocks i0 .. i0 + n - 1 of the Q8_K row x into n / 2 pairs; n even. */
static inline void ciot_t2p_act_prepare_neon(const block_q8_K *x, int i0, int n, ciot_t2p_act2_neon *out) {
    int32_t ycum = 0;
    for (int k = 0; k < n; k++) {
        const int i = i0 + k, h = i & 1;
        const block_q8_K *b = &x[i >> 1];
        ciot_t2p_act2_neon *o = &out[k >> 1];
        ciot_t2p_act_fill_neon(o, k & 1, b->qs + 128 * h, 8);
        ycum += vaddlvq_s16(vld1q_s16(b->bsums + 8 * h));
        o->ycum[k & 1] = vdupq_n_s32(ycum);
        o->d[k & 1] = vdupq_n_f32(b->d);
    }
}

/* The same for activation row r of the Q8_Kx4 blocks x: chunk c (0..31) of row r is qs[32c + 8r ..], the
 * sum of group g (16 values, 0..15) bsums[16 (g >> 2) + 4r + (g & 3)]. */
static inline void ciot_t2p_act_prepare_x4_neon(const block_q8_Kx4 *x, int r, int i0, int n, ciot_t2p_act2_neon *out) {
    int32_t ycum = 0;
    for (int k = 0; k < n; k++) {
        const int i = i0 + k, h = i & 1;
        const block_q8_Kx4 *b = &x[i >> 1];
        ciot_t2p_act2_neon *o = &out[k >> 1];
        ciot_t2p_act_fill_neon(o, k & 1, b->qs + 32 * 16 * h + 8 * r, 32);
        /* groups 8h .. 8h + 7 */
        const int16x8_t g = vcombine_s16(vld1_s16(b->bsums + 32 * h + 4 * r), vld1_s16(b->bsums + 32 * h + 16 + 4 * r));
        ycum += vaddlvq_s16(g);
        o->ycum[k & 1] = vdupq_n_s32(ycum);
        o->d[k & 1] = vdupq_n_f32(b->d[r]);
    }
}

#endif
