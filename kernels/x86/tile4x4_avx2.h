/* The per-block epilogue of the AVX2 4 x 4 gemm tiles (4 weight rows x 4 activation rows of one Q8_Kx4
 * group), shared by the T2X4 and T2P gemm files: column sums, exact division, canonical float step. */
#ifndef CIOT_X86_TILE4X4_AVX2_H
#define CIOT_X86_TILE4X4_AVX2_H

#include "avx2_util.h"
#include "formats.h"

/* Row b of the group's activation rows 4 * sum(y) over one 128-half h, as [Y0 x4 | Y1 x4] and [Y2 x4 | Y3 x4]. */
static inline void ciot_colsums4x(const block_q8_Kx4 *xb, int h, __m256i *y01, __m256i *y23) {
    /* bsums[16 (g >> 2) + 4b + (g & 3)], g = 8h .. 8h + 7: two runs of 16, row b at 4b .. 4b + 3 in each */
    const __m256i p = _mm256_loadu_si256((const __m256i *)(xb->bsums + 32 * h));
    const __m256i q = _mm256_loadu_si256((const __m256i *)(xb->bsums + 32 * h + 16));
    const __m256i m = _mm256_madd_epi16(_mm256_add_epi16(p, q), _mm256_set1_epi16(4)); /* |.| <= 8 * 2032 */
    const __m256i hm = _mm256_hadd_epi32(m, m);                                          /* [Y0 Y1 . . | Y2 Y3 . .] */
    *y01 = _mm256_permutevar8x32_epi32(hm, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    *y23 = _mm256_permutevar8x32_epi32(hm, _mm256_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5));
}

/* One 128-block of a tile: s01 = 4 * (u . y) as [b0: R0..R3 | b1: R0..R3], s23 likewise for b2, b3.
 * acc[k] = fmaf((float) isum, fp32(d_w[R]) * d[b], acc[k]) per lane, in the canonical order. */
static inline void ciot_tile4x4_step(__m256 acc[2], __m256i s01, __m256i s23, const block_q8_Kx4 *xb, int h,
                                     const uint16_t dw[4]) {
    __m256i y01, y23;
    ciot_colsums4x(xb, h, &y01, &y23);
    const __m128 w4 = ciot_fp16x4(dw);
    const __m256 ww = _mm256_insertf128_ps(_mm256_castps128_ps256(w4), w4, 1);
    const __m256 d4 = _mm256_castps128_ps256(_mm_loadu_ps(xb->d));
    const __m256 sc01 = _mm256_mul_ps(ww, _mm256_permutevar8x32_ps(d4, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)));
    const __m256 sc23 = _mm256_mul_ps(ww, _mm256_permutevar8x32_ps(d4, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3)));
    /* 4 * (u.y - sum y) = 4 * isum exactly; the shift divides it back */
    const __m256i i01 = _mm256_srai_epi32(_mm256_sub_epi32(s01, y01), 2);
    const __m256i i23 = _mm256_srai_epi32(_mm256_sub_epi32(s23, y23), 2);
    acc[0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(i01), sc01, acc[0]);
    acc[1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(i23), sc23, acc[1]);
}

/* Writes the tile's real activation rows (n of 4) at y[b * ldy + 0..3]. */
static inline void ciot_tile4x4_store(const __m256 acc[2], int n, float *y, int ldy) {
    const __m128 rows[4] = {_mm256_castps256_ps128(acc[0]), _mm256_extractf128_ps(acc[0], 1),
                            _mm256_castps256_ps128(acc[1]), _mm256_extractf128_ps(acc[1], 1)};
    for (int b = 0; b < n; b++) _mm_storeu_ps(y + (size_t)b * ldy, rows[b]);
}

#endif
