/* What the AVX2 TQ1_0 lookup kernels (TL3's bytes and TL16's, README-tq.md) share: the tile state they carry
 * between the two 128-halves of a 256-block and across blocks, the 256-block's one float step, and the store. */
#ifndef CIOT_TQ1_TILE_AVX2_H
#define CIOT_TQ1_TILE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

typedef struct {
    __m256i s[8][2];  /* rows 32v ..: the 256-block's integer sums so far, in the kernel's own lanes */
    __m256 acc[8][4]; /* rows 32v + 8k .. + 7 */
} ciot_tq1_tile_avx2;

/* acc[k] += isum[k] x (d[8k ..] x dy) for the 32 rows of one slice: the 256-block's one fmaf per row, with the
 * rows' fp16 scales d and the Q8_K scale dy (the canonical order, kernels/README-tq.md). */
static inline __attribute__((always_inline)) void ciot_tq1_step_avx2(__m256 acc[4], const __m256i isum[4],
                                                                     const uint16_t *d, float dy) {
    const __m256 y = _mm256_set1_ps(dy);
    for (int k = 0; k < 4; k++) {
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(d + 8 * k)));
        acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[k]), _mm256_mul_ps(dw, y), acc[k]);
    }
}

/* The tile's 256 results, in row order. */
static inline void ciot_tq1_tile_store_avx2(const ciot_tq1_tile_avx2 *st, float *y) {
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(y + 32 * v + 8 * k, st->acc[v][k]);
}

#endif
