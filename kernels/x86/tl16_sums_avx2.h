/* TL16 lookups with AVX2 (included only by *_avx2.c), shared by the TL16 kernels of PTQ1_0 and TQ1_0: a
 * sub-block's 16-entry tables, and its exact sums of 32 rows from their magnitude nibbles, sign bits and pair
 * codes, one vpshufb per plane looking up 32 rows (kernels/README.md, "TL16, AVX2"). The kernels differ in
 * their float order only. */
#ifndef CIOT_X86_TL16_SUMS_AVX2_H
#define CIOT_X86_TL16_SUMS_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include "formats.h"
#include "lut_loop.h"

/* The tables of one 32-weight sub-block: per group g (0..9) bytes 0..15 the l plane, 16..31 the h plane of
 * E[m] = sum_n w_n(m) a_{3g+n} (w_n(m): the weights of magnitude m, 0 for m = 14, 15), E = 32 h + l with
 * l in -16..15, h in -12..12 (|E| <= 3 * 127); the pair code's table the same with l = E & 31 (0..31),
 * h = E >> 5 (-8..7), |E| <= 2 * 127. */
typedef struct {
    int8_t g[10][32];
    int8_t pair[32];
} ciot_tl16_tables_avx2;

#define CIOT_TL16_W(m, n) ((m) < 14 ? (13 + (m)) / ((n) == 0 ? 9 : (n) == 1 ? 3 : 1) % 3 - 1 : 0)
#define CIOT_TL16_W0(m) CIOT_TL16_W(m, 0)
#define CIOT_TL16_W1(m) CIOT_TL16_W(m, 1)
#define CIOT_TL16_W2(m) CIOT_TL16_W(m, 2)
static const int16_t ciot_tl16_coef_avx2[5][16] = {{CIOT_L16(CIOT_TL16_W0, 0)}, {CIOT_L16(CIOT_TL16_W1, 0)},
                                                   {CIOT_L16(CIOT_TL16_W2, 0)}, {CIOT_L16(CIOT_TL3_PAIR_W0, 0)},
                                                   {CIOT_L16(CIOT_TL3_PAIR_W1, 0)}};

/* 16 int16 lanes E of a table -> [l 0..15 | h 0..15] bytes at out. */
static inline void ciot_tl16_planes_avx2(__m256i l, __m256i h, int8_t out[32]) {
    _mm256_storeu_si256((__m256i *)out, _mm256_permute4x64_epi64(_mm256_packs_epi16(l, h), 0xd8));
}

/* The tables of the sub-block whose activations are a[0..31]. */
static inline void ciot_tl16_build_avx2(const int8_t *a, ciot_tl16_tables_avx2 *t) {
    const __m256i c0 = _mm256_loadu_si256((const __m256i *)ciot_tl16_coef_avx2[0]);
    const __m256i c1 = _mm256_loadu_si256((const __m256i *)ciot_tl16_coef_avx2[1]);
    const __m256i c2 = _mm256_loadu_si256((const __m256i *)ciot_tl16_coef_avx2[2]);
    const __m256i c16 = _mm256_set1_epi16(16), c31 = _mm256_set1_epi16(31);
    for (int g = 0; g < 10; g++) {
        const int8_t *x = a + 3 * g;
        const __m256i e = _mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(c0, _mm256_set1_epi16(x[0])),
                                                            _mm256_mullo_epi16(c1, _mm256_set1_epi16(x[1]))),
                                           _mm256_mullo_epi16(c2, _mm256_set1_epi16(x[2])));
        const __m256i l = _mm256_sub_epi16(_mm256_and_si256(_mm256_add_epi16(e, c16), c31), c16); /* -16..15 */
        ciot_tl16_planes_avx2(l, _mm256_srai_epi16(_mm256_sub_epi16(e, l), 5), t->g[g]);
    }
    const __m256i p0 = _mm256_loadu_si256((const __m256i *)ciot_tl16_coef_avx2[3]);
    const __m256i p1 = _mm256_loadu_si256((const __m256i *)ciot_tl16_coef_avx2[4]);
    const __m256i e = _mm256_add_epi16(_mm256_mullo_epi16(p0, _mm256_set1_epi16(a[30])), _mm256_mullo_epi16(p1, _mm256_set1_epi16(a[31])));
    ciot_tl16_planes_avx2(_mm256_and_si256(e, c31), _mm256_srai_epi16(e, 5), t->pair);
}

static inline __m256i ciot_tl16_plane_avx2(const int8_t *p) { return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p)); }

/* s[r][0] += rows 0-7 | 16-23, s[r][1] += rows 8-15 | 24-31 (int16) of the exact dot of sub-block q of rows
 * 32v .. 32v + 31 (v = 0..7) of a tile block with activation row r < nr, whose tables are t[r]. The nibbles
 * and sign operands are decoded once for all nr rows (a gemm shares them).
 *
 * Per group: the nibble m (AND 15, or a 16-bit shift by 4 and AND 15) looks up l and h (one vpshufb each);
 * vpsignb by an operand whose bit 7 is the group's sign negates both (-E = 32 (-h) + (-l)), and it is never 0
 * unless m is, whose entries are 0. The operand: the row's sign byte S shifted left by 7 - b in 16-bit lanes
 * moves bit b to bit 7 of both bytes; for b >= 1 the shift is of S | 1, whose bit 0 lands at bit 7 - b and
 * keeps the byte non-zero; for b = 0 the nibble is ORed in instead.
 *
 * Exact in bytes: al_a over groups 0..4 is within +-5 * 16, al_b over groups 5..9 and the pair's l within
 * -80..111, ah over the ten groups and the pair's h within -128..127; isum = al_a + al_b + 32 ah is within
 * +-32 * 127, and added to s in int16 (a caller summing several sub-blocks keeps the total within int16). */
static inline __attribute__((always_inline)) void ciot_tl16_subblock_rows_avx2(const block_tl16 *w, int q, int v,
                                                                               const ciot_tl16_tables_avx2 *const *t,
                                                                               int nr, __m256i (*s)[2]) {
    const __m256i c15 = _mm256_set1_epi8(15), one = _mm256_set1_epi8(1), w132 = _mm256_set1_epi16(1 | 32 << 8);
    __m256i ala[CIOT_LUT_ROWS], alb[CIOT_LUT_ROWS], ah[CIOT_LUT_ROWS];
    for (int r = 0; r < nr; r++) ala[r] = alb[r] = ah[r] = _mm256_setzero_si256();
    for (int j = 0; j < 5; j++) {
        const __m256i code = _mm256_loadu_si256((const __m256i *)(w->sb[q].qs[j] + 32 * v));
        for (int half = 0; half < 2; half++) {
            const int g = 2 * j + half, G = 10 * q + g, b = G & 7;
            const __m256i m = _mm256_and_si256(half ? _mm256_srli_epi16(code, 4) : code, c15);
            const __m256i S = _mm256_loadu_si256((const __m256i *)(w->sg[G >> 3] + 32 * v));
            const __m256i op = b ? _mm256_slli_epi16(_mm256_or_si256(S, one), 7 - b)
                                 : _mm256_or_si256(m, _mm256_slli_epi16(S, 7));
            for (int r = 0; r < nr; r++) {
                const __m256i l = _mm256_sign_epi8(_mm256_shuffle_epi8(ciot_tl16_plane_avx2(t[r]->g[g]), m), op);
                const __m256i h = _mm256_sign_epi8(_mm256_shuffle_epi8(ciot_tl16_plane_avx2(t[r]->g[g] + 16), m), op);
                if (g < 5) ala[r] = _mm256_add_epi8(ala[r], l);
                else alb[r] = _mm256_add_epi8(alb[r], l);
                ah[r] = _mm256_add_epi8(ah[r], h);
            }
        }
    }
    /* qn byte j: row j in the low nibble, row j + 128 in the high one */
    const __m256i n = _mm256_loadu_si256((const __m256i *)(w->sb[q].qn + 32 * (v & 3)));
    const __m256i c = _mm256_and_si256(v < 4 ? n : _mm256_srli_epi16(n, 4), c15);
    for (int r = 0; r < nr; r++) {
        alb[r] = _mm256_add_epi8(alb[r], _mm256_shuffle_epi8(ciot_tl16_plane_avx2(t[r]->pair), c));
        ah[r] = _mm256_add_epi8(ah[r], _mm256_shuffle_epi8(ciot_tl16_plane_avx2(t[r]->pair + 16), c));
        /* al_a + 32 ah by vpmaddubsw with byte weights (1, 32); al_b sign-extended from (al_b, al_b) words */
        const __m256i lo = _mm256_add_epi16(_mm256_maddubs_epi16(w132, _mm256_unpacklo_epi8(ala[r], ah[r])),
                                            _mm256_srai_epi16(_mm256_unpacklo_epi8(alb[r], alb[r]), 8));
        const __m256i hi = _mm256_add_epi16(_mm256_maddubs_epi16(w132, _mm256_unpackhi_epi8(ala[r], ah[r])),
                                            _mm256_srai_epi16(_mm256_unpackhi_epi8(alb[r], alb[r]), 8));
        s[r][0] = _mm256_add_epi16(s[r][0], lo), s[r][1] = _mm256_add_epi16(s[r][1], hi);
    }
}

/* isum[k] (int32, rows 8k .. 8k + 7 of the 32) from ciot_tl16_subblock_rows_avx2's sums s[2]. */
static inline void ciot_tl16_isum_avx2(const __m256i s[2], __m256i isum[4]) {
    isum[0] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s[0])), isum[1] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s[1]));
    isum[2] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s[0], 1)), isum[3] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s[1], 1));
}

#endif
