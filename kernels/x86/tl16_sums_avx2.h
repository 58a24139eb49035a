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

/* The tables of one 32-weight sub-block, each 16-entry plane stored twice (both 128-bit lanes, so that a plain
 * load fetches it: a broadcast load takes a shuffle pipe on Zen 3): per group g (0..9) the l plane, then the h
 * plane of E[m] = sum_n w_n(m) a_{3g+n} (w_n(m): the weights of magnitude m, 0 for m = 14, 15), E = 32 h + l
 * with l in -16..15, h in -12..12 (|E| <= 3 * 127); the pair code's table the same with l = E & 31 (0..31),
 * h = E >> 5 (-8..7), |E| <= 2 * 127. */
typedef struct {
    int8_t g[10][2][32];
    int8_t pair[2][32];
} ciot_tl16_tables_avx2;

#define CIOT_TL16_W(m, n) ((m) < 14 ? (13 + (m)) / ((n) == 0 ? 9 : (n) == 1 ? 3 : 1) % 3 - 1 : 0)
#define CIOT_TL16_W0(m) CIOT_TL16_W(m, 0)
#define CIOT_TL16_W1(m) CIOT_TL16_W(m, 1)
#define CIOT_TL16_W2(m) CIOT_TL16_W(m, 2)
static const int16_t ciot_tl16_coef_avx2[5][16] = {{CIOT_L16(CIOT_TL16_W0, 0)}, {CIOT_L16(CIOT_TL16_W1, 0)},
                                                   {CIOT_L16(CIOT_TL16_W2, 0)}, {CIOT_L16(CIOT_TL3_PAIR_W0, 0)},
                                                   {CIOT_L16(CIOT_TL3_PAIR_W1, 0)}};

/* 16 int16 lanes l, h of a table -> its two planes, each in both lanes. */
static inline void ciot_tl16_planes_avx2(__m256i l, __m256i h, int8_t out[2][32]) {
    const __m256i p = _mm256_packs_epi16(l, h); /* [l 0..7, h 0..7 | l 8..15, h 8..15] */
    _mm256_storeu_si256((__m256i *)out[0], _mm256_permute4x64_epi64(p, 0x88));
    _mm256_storeu_si256((__m256i *)out[1], _mm256_permute4x64_epi64(p, 0xdd));
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

/* x + x bytewise (x << 1 in each byte) on any vector pipe. The empty asm keeps the compiler from folding a
 * chain of doublings into vpsllw + vpand, which would take the shuffle pipes the lookups need. */
static inline __m256i ciot_tl16_double_avx2(__m256i x) {
    x = _mm256_add_epi8(x, x);
    __asm__("" : "+x"(x));
    return x;
}

/* x >> 4 and x << k in 16-bit lanes by the multipliers (vpmulhuw, vpmullw run beside the shuffles on Zen 3,
 * where vpsrlw / vpsllw would compete with them). */
static inline __m256i ciot_tl16_srl4_avx2(__m256i x) { return _mm256_mulhi_epu16(x, _mm256_set1_epi16(1 << 12)); }
static inline __m256i ciot_tl16_sll_avx2(__m256i x, int k) { return _mm256_mullo_epi16(x, _mm256_set1_epi16((short)(1 << k))); }
/* [q][g - 8]: 2^(7 - 2q - (g - 8)), the multiplier (a shift left) that moves bit 2q + g - 8 of sx (group g = 8, 9
 * of sub-block q) to bit 7; for q = 0, g = 8 (bit 0) the kernel takes sx << 7 ORed with the nibble instead. */
#define CIOT_TL16_REP(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
static const int16_t ciot_tl16_sx_mul_avx2[4][2][16] = {
    {{CIOT_TL16_REP(1 << 7)}, {CIOT_TL16_REP(1 << 6)}}, {{CIOT_TL16_REP(1 << 5)}, {CIOT_TL16_REP(1 << 4)}},
    {{CIOT_TL16_REP(1 << 3)}, {CIOT_TL16_REP(1 << 2)}}, {{CIOT_TL16_REP(1 << 1)}, {CIOT_TL16_REP(1 << 0)}}};
#undef CIOT_TL16_REP

/* One group's lookup for nr rows: l and h of magnitude m, negated by vpsignb where op is negative (op is 0
 * only where m is, whose entries are 0), added to al and ah. */
static inline __attribute__((always_inline)) void ciot_tl16_group_avx2(const ciot_tl16_tables_avx2 *const *t, int g,
                                                                       __m256i m, __m256i op, int nr, __m256i *al,
                                                                       __m256i *ah) {
    for (int r = 0; r < nr; r++) {
        const __m256i l = _mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)t[r]->g[g][0]), m);
        const __m256i h = _mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)t[r]->g[g][1]), m);
        al[r] = _mm256_add_epi8(al[r], _mm256_sign_epi8(l, op));
        ah[r] = _mm256_add_epi8(ah[r], _mm256_sign_epi8(h, op));
        /* the group done here, in program order: left free, the compiler starts many groups' lookups at once
         * and spills them (the core reorders them anyway) */
        __asm__("" : "+x"(al[r]), "+x"(ah[r]));
    }
}

/* s[r][0] = rows 0-7 | 16-23, s[r][1] = rows 8-15 | 24-31 (int16) of the exact dot of sub-block q of rows
 * 32v .. 32v + 31 (v = 0..7) of a tile block with activation row r < nr, whose tables are t[r]. The nibbles
 * and sign operands are decoded once for all nr rows (a gemm shares them).
 *
 * Per group: the nibble m (AND 15, or a 16-bit shift by 4, by vpmulhuw, and AND 15) looks up l and h (one vpshufb each);
 * vpsignb by an operand whose bit 7 is the group's sign negates both (-E = 32 (-h) + (-l)). The operand of
 * sign bit b (0..7) of a byte S is S1 << (7 - b) bytewise, S1 = S | 1: bit 7 is bit b of S, and the 1 lands at
 * bit 7 - b <= 6 for b >= 1, so the operand is never 0. Groups 7, 6, .., 1 of sg take S1 doubled by vpaddb
 * once more each; group 0 (b = 0) takes S << 7 ORed with m instead, which is
 * 0 only where m is, whose entries are 0. Groups 8 and 9 (bits 2q, 2q + 1 of sx) are shifted in 16-bit lanes
 * (vpmullw), which moves bit b to bit 7 of both bytes all the same.
 *
 * Exact in bytes: al_a over groups 0..4 is within +-5 * 16, al_b over groups 5..9 and the pair's l within
 * -80..111, ah over the ten groups and the pair's h within -128..127; isum = al_a + al_b + 32 ah is within
 * +-32 * 127 (int16). */
static inline __attribute__((always_inline)) void ciot_tl16_subblock_rows_avx2(const block_tl16 *w, int q, int v,
                                                                               const ciot_tl16_tables_avx2 *const *tp,
                                                                               int nr, __m256i (*s)[2]) {
    /* The tables are the same for every v: hidden from the compiler here, or it hoists their loads out of
     * the caller's loop over v and spills them (they are read from L1 anyway). */
    const ciot_tl16_tables_avx2 *t[CIOT_LUT_ROWS];
    for (int r = 0; r < nr; r++) {
        t[r] = tp[r];
        __asm__("" : "+r"(t[r]));
    }
    const __m256i c15 = _mm256_set1_epi8(15), one = _mm256_set1_epi8(1), w132 = _mm256_set1_epi16(1 | 32 << 8);
    __m256i al[2][CIOT_LUT_ROWS], ah[CIOT_LUT_ROWS]; /* al[0]: al_a, al[1]: al_b; indexed by constants only */
    for (int r = 0; r < nr; r++) al[0][r] = al[1][r] = ah[r] = _mm256_setzero_si256();
    const __m256i S = _mm256_loadu_si256((const __m256i *)(w->v[v].sb[q].sg));
    __m256i op = _mm256_or_si256(S, one); /* group 7's operand; doubled for 6, 5, .., 1 */
    _Pragma("clang loop unroll(full)") for (int j = 3; j >= 0; j--) { /* al[] indexed by constants */
        const __m256i code = _mm256_loadu_si256((const __m256i *)(w->v[v].sb[q].qs[j]));
        const __m256i mh = _mm256_and_si256(ciot_tl16_srl4_avx2(code), c15), ml = _mm256_and_si256(code, c15);
        ciot_tl16_group_avx2(t, 2 * j + 1, mh, op, nr, al[2 * j + 1 >= 5], ah);
        op = ciot_tl16_double_avx2(op);
        if (j) {
            ciot_tl16_group_avx2(t, 2 * j, ml, op, nr, al[2 * j >= 5], ah);
            op = ciot_tl16_double_avx2(op);
        } else {
            ciot_tl16_group_avx2(t, 0, ml, _mm256_or_si256(ml, ciot_tl16_sll_avx2(S, 7)), nr, al[0], ah);
        }
    }
    {
        const __m256i code = _mm256_loadu_si256((const __m256i *)(w->v[v].sb[q].qs[4]));
        const __m256i X = _mm256_loadu_si256((const __m256i *)(w->v[v].sx)), X1 = _mm256_or_si256(X, one);
        const __m256i m8 = _mm256_and_si256(code, c15), m9 = _mm256_and_si256(ciot_tl16_srl4_avx2(code), c15);
        const __m256i *mul = (const __m256i *)ciot_tl16_sx_mul_avx2[q];
        const __m256i op8 = q ? _mm256_mullo_epi16(X1, _mm256_loadu_si256(mul)) : _mm256_or_si256(m8, ciot_tl16_sll_avx2(X, 7));
        ciot_tl16_group_avx2(t, 8, m8, op8, nr, al[1], ah);
        ciot_tl16_group_avx2(t, 9, m9, _mm256_mullo_epi16(X1, _mm256_loadu_si256(mul + 1)), nr, al[1], ah);
    }
    /* qn[q >> 1]: sub-block q's pair codes in nibble q & 1 */
    const __m256i n = _mm256_loadu_si256((const __m256i *)w->v[v].qn[q >> 1]);
    const __m256i c = _mm256_and_si256(q & 1 ? ciot_tl16_srl4_avx2(n) : n, c15);
    for (int r = 0; r < nr; r++) {
        al[1][r] = _mm256_add_epi8(al[1][r], _mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)t[r]->pair[0]), c));
        ah[r] = _mm256_add_epi8(ah[r], _mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)t[r]->pair[1]), c));
        /* al_a + 32 ah by vpmaddubsw with byte weights (1, 32); al_b sign-extended from (al_b, al_b) words */
        const __m256i lo = _mm256_add_epi16(_mm256_maddubs_epi16(w132, _mm256_unpacklo_epi8(al[0][r], ah[r])),
                                            _mm256_srai_epi16(_mm256_unpacklo_epi8(al[1][r], al[1][r]), 8));
        const __m256i hi = _mm256_add_epi16(_mm256_maddubs_epi16(w132, _mm256_unpackhi_epi8(al[0][r], ah[r])),
                                            _mm256_srai_epi16(_mm256_unpackhi_epi8(al[1][r], al[1][r]), 8));
        s[r][0] = lo, s[r][1] = hi;
    }
}

/* isum[k] (int32, rows 8k .. 8k + 7 of the 32) from ciot_tl16_subblock_rows_avx2's sums s[2]. */
static inline void ciot_tl16_isum_avx2(const __m256i s[2], __m256i isum[4]) {
    isum[0] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s[0])), isum[1] = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s[1]));
    isum[2] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s[0], 1)), isum[3] = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s[1], 1));
}

#endif
