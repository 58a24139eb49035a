/* The canonical steps of ops_math.h, eight lanes at a time (AVX2 + FMA). */
#ifndef CIOT_OPS_AVX2_H
#define CIOT_OPS_AVX2_H

#include <immintrin.h>
#include "ops_math.h"

/* ciot_ops_expf per lane: min(HI, x) and max(LO, x) keep NaN as the scalar clamps do. */
static inline __m256 ciot_exp8(__m256 x0) {
    __m256 x = _mm256_min_ps(_mm256_set1_ps(CIOT_EXP_HI), x0);
    x = _mm256_max_ps(_mm256_set1_ps(CIOT_EXP_LO), x);
    const __m256 magic = _mm256_set1_ps(CIOT_EXP_MAGIC);
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(CIOT_EXP_LOG2E), magic);
    __m256 n = _mm256_sub_ps(t, magic);
    __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-CIOT_EXP_LN2_HI), x);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(-CIOT_EXP_LN2_LO), r);
    __m256 p = _mm256_set1_ps(CIOT_EXP_P0);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CIOT_EXP_P1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CIOT_EXP_P2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CIOT_EXP_P3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CIOT_EXP_P4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(CIOT_EXP_P5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(magic));
    __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
    return _mm256_andnot_ps(_mm256_cmp_ps(x0, _mm256_set1_ps(CIOT_EXP_LO), _CMP_LT_OQ), y);
}

static inline __m256 ciot_neg8(__m256 x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }
static inline __m256 ciot_sigmoid8(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, ciot_exp8(ciot_neg8(x))));
}
static inline __m256 ciot_silu8(__m256 x) {
    return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), ciot_exp8(ciot_neg8(x))));
}

/* The 16 canonical lanes held as lo (lanes 0-7) and hi (8-15), folded j + 8, j + 4, j + 2, j + 1. */
static inline float ciot_fold16_avx2(__m256 lo, __m256 hi) {
    __m256 s = _mm256_add_ps(lo, hi);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
}

/* ciot_ops_dot, n a multiple of 16. */
static inline float ciot_dot_avx2(const float *a, const float *b, int n) {
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 16) {
        lo = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), lo);
        hi = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), hi);
    }
    return ciot_fold16_avx2(lo, hi);
}

/* Eight fp16 values widened exactly. */
static inline __m256 ciot_fp16x8_avx2(const uint16_t *h) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h));
}

#endif
