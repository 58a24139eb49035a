#if !defined(__ARM_NEON)
#error "act_t2p_neon.h needs NEON (include it from the aarch64 kernel files only)"
#endif
/* Activations laid out for the T2P NEON kernels, made once per slice and chunk of K and read by every
 * 4-row tile, one Q8_K block (two 128-blocks) at a time. Per 128-block b: y[b][4w + s] = the 8 activations
 * of chunk 4w + s (values 8c .. 8c + 7) in both halves, which is what slot s of T2P word w multiplies (lanes
 * 0-7 one row of a pair, 8-15 the other). Then the running sum of the activations from the chunk's first
 * block through block b, for b = 0, 1, and the Q8_K scale, each in all four lanes. The kernel reads it front
 * to back: eight LD1 of four registers, one of three. */
#ifndef CIOT_ARM_ACT_T2P_NEON_H
#define CIOT_ARM_ACT_T2P_NEON_H

#include "formats.h"
#include "util_neon.h"

typedef struct {
    int8x16_t y[2][16]; /* [block b][word w * 4 + slot s] */
    int32x4_t ycum[2];  /* sum of the activations of the chunk's blocks up to and including block b */
    float32x4_t d;      /* the Q8_K scale */
} ciot_t2p_act2_neon;

/* 128-block b of a pair from its 16 chunks (chunk c at src + step * c), and the running sum through it. */
static inline void ciot_t2p_act_fill_neon(ciot_t2p_act2_neon *out, int b, const int8_t *src, int step,
                                          int32_t ycum) {
    for (int c = 0; c < 16; c++)
        out->y[b][c] = vreinterpretq_s8_s64(vld1q_dup_s64((const ciot_i64_unaligned_neon *)(src + step * c)));
    out->ycum[b] = vdupq_n_s32(ycum);
}

/* Q8_K blocks j0 .. j0 + n - 1 of the row x (128-blocks 2 j0 .. 2 (j0 + n) - 1) into out[0 .. n - 1]. */
static inline void ciot_t2p_act_prepare_neon(const block_q8_K *x, int j0, int n, ciot_t2p_act2_neon *out) {
    int32_t ycum = 0;
    for (int j = 0; j < n; j++) {
        const block_q8_K *b = &x[j0 + j];
        for (int h = 0; h < 2; h++) {
            ycum += vaddlvq_s16(vld1q_s16(b->bsums + 8 * h));
            ciot_t2p_act_fill_neon(&out[j], h, b->qs + 128 * h, 8, ycum);
        }
        out[j].d = vdupq_n_f32(b->d);
    }
}

/* The same for activation row r of the Q8_Kx4 blocks x: chunk c (0..31) of row r is qs[32c + 8r ..], the
 * sum of group g (16 values, 0..15) bsums[16 (g >> 2) + 4r + (g & 3)]. */
static inline void ciot_t2p_act_prepare_x4_neon(const block_q8_Kx4 *x, int r, int j0, int n,
                                                ciot_t2p_act2_neon *out) {
    int32_t ycum = 0;
    for (int j = 0; j < n; j++) {
        const block_q8_Kx4 *b = &x[j0 + j];
        for (int h = 0; h < 2; h++) {
            /* groups 8h .. 8h + 7 */
            const int16x8_t g = vcombine_s16(vld1_s16(b->bsums + 32 * h + 4 * r), vld1_s16(b->bsums + 32 * h + 16 + 4 * r));
            ycum += vaddlvq_s16(g);
            ciot_t2p_act_fill_neon(&out[j], h, b->qs + 32 * 16 * h + 8 * r, 32, ycum);
        }
        out[j].d = vdupq_n_f32(b->d[r]);
    }
}

#endif
