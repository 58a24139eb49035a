/* TL3 decoding with AVX2 (included only by *_avx2.c), shared by the TL3 kernels of PTQ1_0 and TQ1_0: a
 * sub-block's activations in the order the trits are paired, and the sub-block's sum u . a (trits u = 0..2)
 * of 32 rows from their group and pair codes (kernels/README.md, "TL3, AVX2"). The kernels differ in how
 * they turn u . a into isums and in their float order. */
#ifndef CIOT_X86_TL3_SUMS_AVX2_H
#define CIOT_X86_TL3_SUMS_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "formats.h"
#include "lut_loop.h"

/* The 32 activations a[0..31] of a sub-block in the order the trits are paired: pair p at bytes 2p, 2p + 1
 * (p = 0..11: trits 0,1 and 2,3 of group p / 2; 12..14: trit 4 of groups 2k, 2k + 1; 15: the pair code). */
static inline void ciot_tl3_pairs_avx2(const int8_t *a, uint8_t pairs[32]) {
    int8_t *o = (int8_t *)pairs;
    for (int g = 0; g < 6; g++)
        for (int n = 0; n < 4; n++) o[4 * g + n] = a[5 * g + n]; /* pairs 2g, 2g + 1 */
    for (int k = 0; k < 3; k++) o[24 + 2 * k] = a[10 * k + 4], o[25 + 2 * k] = a[10 * k + 9];
    o[30] = a[30], o[31] = a[31];
}

/* The five trits (0..2) of 32 group codes. */
static inline void ciot_tl3_decode5_avx2(__m256i b, __m256i u[5]) {
    static const uint8_t times[4][16] = {{0, 81, 162}, {0, 27, 54}, {0, 9, 18}, {0, 3, 6}};
    static const int8_t pw[4] = {81, 27, 9, 3};
    const __m256i zero = _mm256_setzero_si256(), c128 = _mm256_set1_epi8(-128);
    /* V = b, or 370 - b = (114 - b) mod 256 where bit 7 is set; V - 128 compares as signed */
    __m256i v = _mm256_xor_si256(_mm256_blendv_epi8(b, _mm256_sub_epi8(_mm256_set1_epi8(114), b), b), c128);
    for (int n = 0; n < 4; n++) {
        const __m256i ge1 = _mm256_cmpgt_epi8(v, _mm256_set1_epi8((int8_t)(pw[n] - 1 - 128)));
        const __m256i ge2 = _mm256_cmpgt_epi8(v, _mm256_set1_epi8((int8_t)(2 * pw[n] - 1 - 128)));
        u[n] = _mm256_sub_epi8(_mm256_sub_epi8(zero, ge1), ge2);
        v = _mm256_sub_epi8(v, _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)times[n])), u[n]));
    }
    u[4] = _mm256_xor_si256(v, c128);
}

/* s[0] += rows 0-7 | 16-23, s[1] += rows 8-15 | 24-31 of ua * pair[0] + ub * pair[1], modulo 2^16 (each
 * vpmaddubsw lane is at most 2 * 2 * 127: no saturation). */
static inline void ciot_tl3_mac_avx2(__m256i ua, __m256i ub, const uint8_t *pair, __m256i s[2]) {
    int16_t w;
    memcpy(&w, pair, 2);
    const __m256i a = _mm256_set1_epi16(w);
    s[0] = _mm256_add_epi16(s[0], _mm256_maddubs_epi16(_mm256_unpacklo_epi8(ua, ub), a));
    s[1] = _mm256_add_epi16(s[1], _mm256_maddubs_epi16(_mm256_unpackhi_epi8(ua, ub), a));
}

/* pair code c -> its two trits (value c or 16 - c) */
static const uint8_t ciot_tl3_pair_trits_avx2[2][16] = {{CIOT_L16(CIOT_TL3_PAIR_U0, 0)}, {CIOT_L16(CIOT_TL3_PAIR_U1, 0)}};

/* s[r][2] += u . a_r of sub-block q of rows 32v .. 32v + 31 (v = 0..7) of a tile block, for activation rows
 * r < nr, in ciot_tl3_mac_avx2's lanes; pq[r]: row r's sub-block activations from ciot_tl3_pairs_avx2. The
 * trits are decoded once and multiplied by every row's pairs (a gemm shares the decoding). int16 safe within
 * a sub-block: 16 pairs of at most 2 * 2 * 127. */
static inline __attribute__((always_inline)) void ciot_tl3_subblock_rows_avx2(const block_tl3 *w, int q, int v,
                                                                              const uint8_t *const *pq, int nr,
                                                                              __m256i (*s)[2]) {
    const __m256i c15 = _mm256_set1_epi8(15);
    const __m256i t0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)ciot_tl3_pair_trits_avx2[0]));
    const __m256i t1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)ciot_tl3_pair_trits_avx2[1]));
    for (int k = 0; k < 3; k++) {
        __m256i u[2][5];
        for (int h = 0; h < 2; h++) {
            ciot_tl3_decode5_avx2(_mm256_loadu_si256((const __m256i *)(w->sb[q].qs[2 * k + h] + 32 * v)), u[h]);
            for (int r = 0; r < nr; r++) {
                ciot_tl3_mac_avx2(u[h][0], u[h][1], pq[r] + 8 * k + 4 * h, s[r]);
                ciot_tl3_mac_avx2(u[h][2], u[h][3], pq[r] + 8 * k + 4 * h + 2, s[r]);
            }
        }
        for (int r = 0; r < nr; r++) ciot_tl3_mac_avx2(u[0][4], u[1][4], pq[r] + 24 + 2 * k, s[r]);
    }
    /* qn byte j: row j in the low nibble, row j + 128 in the high one */
    const __m256i n = _mm256_loadu_si256((const __m256i *)(w->sb[q].qn + 32 * (v & 3)));
    const __m256i c = _mm256_and_si256(v < 4 ? n : _mm256_srli_epi16(n, 4), c15);
    const __m256i p0 = _mm256_shuffle_epi8(t0, c), p1 = _mm256_shuffle_epi8(t1, c);
    for (int r = 0; r < nr; r++) ciot_tl3_mac_avx2(p0, p1, pq[r] + 30, s[r]);
}

/* isum[k] (int32, rows 8k .. 8k + 7 of the 32) = u . a - asum from ciot_tl3_mac_avx2's sums s[2]: exact when
 * the true value is within int16 (the sums are taken modulo 2^16). */
static inline void ciot_tl3_isum_avx2(const __m256i s[2], int16_t asum, __m256i isum[4]) {
    const __m256i as = _mm256_set1_epi16(asum);
    const __m256i i0 = _mm256_sub_epi16(s[0], as), i1 = _mm256_sub_epi16(s[1], as);
    isum[0] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(i0)), isum[1] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(i1));
    isum[2] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(i0, 1)), isum[3] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(i1, 1));
}

#endif
