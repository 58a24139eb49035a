/* The AVX2 block dots over T2P bytes (vpmaddubsw into int16, widened by vpmaddwd), shared by the kernels
 * of T2P made from PQ2_0 and from TQ2_0: one 128-block of a 4-row tile against prepared Q8_K activations
 * (gemv, act_t2p_avx2.h) or against one Q8_Kx4 group (gemm); and the slot decoding and row sums that the
 * AVX-VNNI and AVX-512 VNNI dots share. Byte 64p + 16w + j holds, in slot s (bits 2s..2s+1), row
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

/* One 128-block (half h of the Q8_Kx4 block xb): 4 * (u . y) for the 16 (weight row, activation row)
 * pairs as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void ciot_t2p_dot4x4_avx2(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23) {
    __m256i c1[4], c4[4];
    for (int b = 0; b < 4; b++) c1[b] = c4[b] = _mm256_setzero_si256();
    for (int w = 0; w < 4; w++) {
        __m256i u[4];
        ciot_t2p_slots_avx2(ciot_load2x16_avx2(qs + 16 * w, qs + 64 + 16 * w), u);
        const int8_t *a = xb->qs + 32 * (16 * h + 4 * w); /* chunk 4w of this half; row b at +8b */
        for (int b = 0; b < 4; b++) {
            c1[b] = _mm256_add_epi16(c1[b], _mm256_add_epi16(_mm256_maddubs_epi16(u[0], ciot_bcast8_avx2(a + 8 * b)),
                                                             _mm256_maddubs_epi16(u[2], ciot_bcast8_avx2(a + 64 + 8 * b))));
            c4[b] = _mm256_add_epi16(c4[b], _mm256_add_epi16(_mm256_maddubs_epi16(u[1], ciot_bcast8_avx2(a + 32 + 8 * b)),
                                                             _mm256_maddubs_epi16(u[3], ciot_bcast8_avx2(a + 96 + 8 * b))));
        }
    }
    /* int16 safe: c1 sums 8 pairs of 3 * 127 (6096), c4 8 pairs of 12 * 127 (24384) */
    __m256i t[4];
    for (int b = 0; b < 4; b++)
        t[b] = _mm256_add_epi32(_mm256_madd_epi16(c1[b], _mm256_set1_epi16(4)), _mm256_madd_epi16(c4[b], _mm256_set1_epi16(1)));
    /* t[b] = [R0 R0 R1 R1 | R2 R2 R3 R3]; hadd pairs rows b, b + 1, the permute restores R order */
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    *s01 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(t[0], t[1]), order);
    *s23 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(t[2], t[3]), order);
}

#endif
