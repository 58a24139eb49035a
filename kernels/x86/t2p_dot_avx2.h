/* The AVX2 gemv block dot over T2P bytes (vpmaddubsw into int16, widened by vpmaddwd), shared by the
 * gemvs of T2P made from PQ2_0 and from TQ2_0: one 128-block of a 4-row tile against prepared Q8_K
 * activations (act_t2p_avx2.h); and the slot decoding and row sums that the AVX-VNNI and AVX-512 VNNI dots
 * share. The AVX2 gemms have their own tile (t2p_tile8x4_avx2.h). Byte 64p + 16w + j holds, in slot s (bits 2s..2s+1), row
 * 2p + (j >= 8), weight 8 (4w + s) + (j & 7). Include only from files built with the AVX2 flags or more. */
#ifndef CIOT_X86_T2P_DOT_AVX2_H
#define CIOT_X86_T2P_DOT_AVX2_H

#include "act_t2p_avx2.h"
#include "util_avx2.h"
#include "formats.h"

/* The slots of 32 T2P bytes v as the dots multiply them: u[0], u[2] = slots 0, 2 as u (the codes 0..3),
 * u[1], u[3] = slots 1, 3 as 4u (bits 2..3 masked in place). */
static inline void ciot_t2p_slots_avx2(__m256i v, __m256i u[4]) {
    const __m256i m3 = _mm256_set1_epi8(3), mc = _mm256_set1_epi8(0x0c);
    const __m256i t = _mm256_srli_epi16(v, 4); /* slots 2, 3 down to bits 0..3 (bytes stay clean) */
    u[0] = _mm256_and_si256(v, m3), u[1] = _mm256_and_si256(v, mc);
    u[2] = _mm256_and_si256(t, m3), u[3] = _mm256_and_si256(t, mc);
}

/* [r0 r1 r2 r3] from the gemv dots' int32 sums of the two row pairs, m[p] = [r2p r2p r2p+1 r2p+1 | same, other
 * chunks]: hadd, then fold the halves. */
static inline __m128i ciot_t2p_rows4_avx2(const __m256i m[2]) {
    const __m256i h = _mm256_hadd_epi32(m[0], m[1]);
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

/* 4 * (u . y) of the four rows of one block, u the codes 0..3, as [r0 r1 r2 r3]. */
static inline __m128i ciot_t2p_dot4x_avx2(const uint8_t *qs, const ciot_t2p_act_avx2 *a) {
    __m256i m[2];
    for (int p = 0; p < 2; p++) {
        __m256i c1 = _mm256_setzero_si256(), c4 = _mm256_setzero_si256();
        for (int W = 0; W < 2; W++) {
            __m256i u[4];
            ciot_t2p_slots_avx2(_mm256_loadu_si256((const __m256i *)(qs + 64 * p + 32 * W)), u);
            c1 = _mm256_add_epi16(c1, _mm256_add_epi16(_mm256_maddubs_epi16(u[0], a->y[0][W]),
                                                       _mm256_maddubs_epi16(u[2], a->y[2][W])));
            c4 = _mm256_add_epi16(c4, _mm256_add_epi16(_mm256_maddubs_epi16(u[1], a->y[1][W]),
                                                       _mm256_maddubs_epi16(u[3], a->y[3][W])));
        }
        /* int16 safe (pair = two products): 4 * c1 <= 4 * 4 pairs of 3 * 127 = 12192, c4 <= 4 pairs of 12 * 127
         * = 12192, so 4 * c1 + c4 <= 24384 */
        m[p] = _mm256_madd_epi16(_mm256_add_epi16(_mm256_slli_epi16(c1, 2), c4), _mm256_set1_epi16(1));
    }
    return ciot_t2p_rows4_avx2(m);
}

#endif
