#if !defined(__ARM_FEATURE_MATMUL_INT8)
#error "tile4x4_i8mm.h needs -march=armv8.2-a+dotprod+i8mm (include it from *_i8mm.c only)"
#endif
/* Shared by the 4x4 SMMLA gemm kernels: a Q8_Kx4 group's column sums and the per-block scales laid out
 * like an SMMLA result tile (lanes [r0 c0, r0 c1, r1 c0, r1 c1] for weight rows 2p, 2p+1 and activation
 * rows 2cp, 2cp+1), and the loop over weight tiles and activation groups. */
#ifndef CIOT_ARM_TILE4X4_I8MM_H
#define CIOT_ARM_TILE4X4_I8MM_H

#include "formats.h"
#include "kernel.h"
#include "util_neon.h"

/* [c0 c1 c0 c1] and [c2 c3 c2 c3] of four per-column values. */
static inline void ciot_tile4x4_cols_i8mm(float32x4_t v, float32x4_t out[2]) {
    out[0] = vcombine_f32(vget_low_f32(v), vget_low_f32(v));
    out[1] = vcombine_f32(vget_high_f32(v), vget_high_f32(v));
}

/* Column sums of half h (values 128h .. 128h+127) of each activation row, as ciot_tile4x4_cols_i8mm lays them:
 * bsums[32h + 16k + 4c + g] over k, g. int16 safe: 8 sums of at most 16 * 127. */
static inline void ciot_tile4x4_colsums_i8mm(const block_q8_Kx4 *x, int h, int32x4_t out[2]) {
    const int16_t *b = x->bsums + 32 * h;
    const int16x8_t s01 = vaddq_s16(vld1q_s16(b), vld1q_s16(b + 16));
    const int16x8_t s23 = vaddq_s16(vld1q_s16(b + 8), vld1q_s16(b + 24));
    const int32x4_t cs = vpaddlq_s16(vpaddq_s16(s01, s23)); /* [c0 c1 c2 c3] */
    out[0] = vcombine_s32(vget_low_s32(cs), vget_low_s32(cs));
    out[1] = vcombine_s32(vget_high_s32(cs), vget_high_s32(cs));
}

/* acc[p][cp] = fmaf((float) isum, fp32(d_w[row]) * d_y[col], acc) lane by lane: the canonical step. */
static inline void ciot_tile4x4_fma_i8mm(float32x4_t acc[2][2], const int32x4_t isum[2][2], const uint16_t dw16[4],
                                         const float32x4_t dyc[2]) {
    const float32x4_t dw = ciot_fp16x4_neon(dw16);
    const float32x4_t dwp[2] = {vzip1q_f32(dw, dw), vzip2q_f32(dw, dw)}; /* [r0 r0 r1 r1] */
    for (int p = 0; p < 2; p++)
        for (int cp = 0; cp < 2; cp++)
            acc[p][cp] = vfmaq_f32(acc[p][cp], vcvtq_f32_s32(isum[p][cp]), vmulq_f32(dwp[p], dyc[cp]));
}

/* Tile layout -> out[c] = [weight rows 0..3] of activation row c. */
static inline void ciot_tile4x4_columns_i8mm(const float32x4_t acc[2][2], float32x4_t out[4]) {
    out[0] = vuzp1q_f32(acc[0][0], acc[1][0]);
    out[1] = vuzp2q_f32(acc[0][0], acc[1][0]);
    out[2] = vuzp1q_f32(acc[0][1], acc[1][1]);
    out[3] = vuzp2q_f32(acc[0][1], acc[1][1]);
}

/* w: one weight tile's nb blocks; x: one group's K / 256 Q8_Kx4 blocks. */
typedef void (*ciot_tile4x4_tile_i8mm_fn)(const void *w, const block_q8_Kx4 *x, int nb, float32x4_t out[4]);

/* Every weight tile of the slice against every activation group; the last group, padded with zero rows,
 * runs once as a whole tile and only its real rows are written. */
static inline void ciot_tile4x4_gemm_i8mm(const ciot_mm *mm, int first, int count, size_t block_bytes, ciot_tile4x4_tile_i8mm_fn tile) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    for (int t = first; t < first + count; t++)
        for (int g = 0; g < groups; g++) {
            float32x4_t out[4];
            tile((const char *)mm->w + (size_t)t * nb * block_bytes, (const block_q8_Kx4 *)mm->x + (size_t)g * nbk, nb,
                 out);
            const int n = mm->batch - 4 * g < 4 ? mm->batch - 4 * g : 4;
            for (int c = 0; c < n; c++) vst1q_f32(mm->y + (size_t)(4 * g + c) * mm->ldy + 4 * t, out[c]);
        }
}

#endif
