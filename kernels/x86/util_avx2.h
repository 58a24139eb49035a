/* Small AVX2 helpers shared by the x86 kernel files (included only by files built with -mavx2 -mfma
 * -mf16c). Loads go through intrinsics that accept any alignment. */
#ifndef CIOT_X86_UTIL_AVX2_H
#define CIOT_X86_UTIL_AVX2_H

#include <immintrin.h>
#include <stdint.h>

/* Four fp16 scales widened exactly (F16C vcvtph2ps; fp16 subnormals become normal fp32). */
static inline __m128 ciot_fp16x4_avx2(const uint16_t *d) { return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)d)); }

/* The 8 bytes at p in all four 64-bit lanes (vpbroadcastq from memory: a load, no shuffle). */
static inline __m256i ciot_bcast8_avx2(const void *p) { return _mm256_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)p)); }

/* [p[0..15] | q[0..15]]: two 16-byte loads joined into one ymm. */
static inline __m256i ciot_load2x16_avx2(const void *p, const void *q) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                   _mm_loadu_si128((const __m128i *)q), 1);
}

/* Sum of the four int32 lanes, in every lane. */
static inline __m128i ciot_hsum4_avx2(__m128i s) {
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    return _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
}

/* Sum of eight int16 bsums (one 128-value half of a Q8_K block) times 4, in every int32 lane. */
static inline __m128i ciot_bsums8_x4_avx2(const int16_t *bs) {
    return ciot_hsum4_avx2(_mm_madd_epi16(_mm_loadu_si128((const __m128i *)bs), _mm_set1_epi16(4)));
}

#endif
