/* The loop and per-block epilogue of the x86 4 x 4 gemm tiles (4 weight rows x 4 activation rows of one
 * Q8_Kx4 group), shared by the T2X4 and T2P gemm files: column sums, exact division, canonical float
 * step, and the loop over weight tiles and activation groups around a block dot. */
#ifndef CIOT_X86_TILE4X4_AVX2_H
#define CIOT_X86_TILE4X4_AVX2_H

#include "util_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

/* Row b of the group's activation rows 4 * sum(y) over one 128-half h, as [Y0 x4 | Y1 x4] and [Y2 x4 | Y3 x4]. */
static inline void ciot_tile4x4_colsums_avx2(const block_q8_Kx4 *xb, int h, __m256i *y01, __m256i *y23) {
    /* bsums[16 (g >> 2) + 4b + (g & 3)], g = 8h .. 8h + 7: two runs of 16, row b at 4b .. 4b + 3 in each */
    const __m256i p = _mm256_loadu_si256((const __m256i *)(xb->bsums + 32 * h));
    const __m256i q = _mm256_loadu_si256((const __m256i *)(xb->bsums + 32 * h + 16));
    const __m256i m = _mm256_madd_epi16(_mm256_add_epi16(p, q), _mm256_set1_epi16(4)); /* |.| <= 8 * 2032 */
    const __m256i hm = _mm256_hadd_epi32(m, m);                                          /* [Y0 Y1 . . | Y2 Y3 . .] */
    *y01 = _mm256_permutevar8x32_epi32(hm, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    *y23 = _mm256_permutevar8x32_epi32(hm, _mm256_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5));
}

/* 4 * (u . y) of one 128-block (half h of the Q8_Kx4 block xb) as [b0: R0..R3 | b1: R0..R3], [b2 | b3]. */
typedef void (*ciot_tile4x4_dot_avx2_fn)(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23);

/* One 128-block of a tile: 4 * isum = 4 * (u.y - sum y), exact, as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline __attribute__((always_inline)) void ciot_tile4x4_isum_avx2(ciot_tile4x4_dot_avx2_fn dot, const uint8_t *qs,
                                                                         const block_q8_Kx4 *xb, int h, __m256i *i01,
                                                                         __m256i *i23) {
    __m256i s01, s23, y01, y23;
    dot(qs, xb, h, &s01, &s23);
    ciot_tile4x4_colsums_avx2(xb, h, &y01, &y23);
    *i01 = _mm256_sub_epi32(s01, y01);
    *i23 = _mm256_sub_epi32(s23, y23);
}

/* acc[k] = fmaf((float) isum, fp32(d_w[R]) * d[b], acc[k]) per lane, in the canonical order, from
 * i01, i23 = 4 * isum (the shift divides it back exactly). */
static inline void ciot_tile4x4_fma_avx2(__m256 acc[2], __m256i i01, __m256i i23, const block_q8_Kx4 *xb,
                                         const uint16_t dw[4]) {
    const __m128 w4 = ciot_fp16x4_avx2(dw);
    const __m256 ww = _mm256_insertf128_ps(_mm256_castps128_ps256(w4), w4, 1);
    const __m256 d4 = _mm256_castps128_ps256(_mm_loadu_ps(xb->d));
    const __m256 sc01 = _mm256_mul_ps(ww, _mm256_permutevar8x32_ps(d4, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)));
    const __m256 sc23 = _mm256_mul_ps(ww, _mm256_permutevar8x32_ps(d4, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3)));
    acc[0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srai_epi32(i01, 2)), sc01, acc[0]);
    acc[1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_srai_epi32(i23, 2)), sc23, acc[1]);
}

/* Writes the tile's real activation rows (n of 4) at y[b * ldy + 0..3]. */
static inline void ciot_tile4x4_store_avx2(const __m256 acc[2], int n, float *y, int ldy) {
    const __m128 rows[4] = {_mm256_castps256_ps128(acc[0]), _mm256_extractf128_ps(acc[0], 1),
                            _mm256_castps256_ps128(acc[1]), _mm256_extractf128_ps(acc[1], 1)};
    for (int b = 0; b < n; b++) _mm_storeu_ps(y + (size_t)b * ldy, rows[b]);
}

/* Weight tiles [first, first + count) against every activation group of mm, for the 136-byte 4-row
 * blocks of T2X4 and T2P (fp16 d[4], then 128 code bytes). halves = 1: one float step per 128-block;
 * halves = 2 (T2P from TQ2_0): blocks 2q, 2q + 1 are one 256-block, their integer sums added before one
 * step with block 2q's scales. A partial last group runs once as a full tile (its padding rows are zero);
 * only real rows are written. Inlined into each kernel so `dot` and `halves` are constants. */
static inline __attribute__((always_inline)) void ciot_tile4x4_gemm_avx2(const ciot_mm *mm, int first, int count,
                                                                         ciot_tile4x4_dot_avx2_fn dot, int halves) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    const block_q8_Kx4 *x = mm->x;
    for (int tile = first; tile < first + count; tile++) {
        const block_t2p *w = (const block_t2p *)mm->w + (size_t)tile * nb;
        for (int bg = 0; bg < groups; bg++) {
            const block_q8_Kx4 *xg = x + (size_t)bg * nbk;
            __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int i = 0; i < nb; i += halves) {
                ciot_prefetch(&w[i], halves * sizeof w[i], mm->prefetch);
                __m256i i01, i23;
                ciot_tile4x4_isum_avx2(dot, w[i].qs, &xg[i >> 1], i & 1, &i01, &i23);
                if (halves == 2) { /* i is even: the second half of the same Q8_Kx4 block; int32 safe: |4 isum| <=
                                    * 4 * 256 * 2 * 127 */
                    __m256i j01, j23;
                    ciot_tile4x4_isum_avx2(dot, w[i + 1].qs, &xg[i >> 1], 1, &j01, &j23);
                    i01 = _mm256_add_epi32(i01, j01);
                    i23 = _mm256_add_epi32(i23, j23);
                }
                ciot_tile4x4_fma_avx2(acc, i01, i23, &xg[i >> 1], w[i].d);
            }
            const int n = mm->batch - 4 * bg < 4 ? mm->batch - 4 * bg : 4;
            ciot_tile4x4_store_avx2(acc, n, mm->y + (size_t)4 * bg * mm->ldy + 4 * tile, mm->ldy);
        }
    }
}

#endif
