/* TL3 lookups with AVX-512 VBMI (included only by *_avx512vbmi.c), shared by the TL3 kernels of PTQ1_0 and
 * TQ1_0: the tables of one 128-block's activation sums (built from its 128 int8 activations, whatever
 * their format) and one sub-block's per-row byte sums of 64-row vectors (kernels/README.md, "TL3, AVX-512
 * VBMI"). The kernels differ in what they do with the byte sums: the float order of their source format. */
#ifndef CIOT_X86_TL3_SUMS_AVX512VBMI_H
#define CIOT_X86_TL3_SUMS_AVX512VBMI_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include "formats.h"
#include "lut_loop.h"
#include "prefetch.h"

typedef struct { uint8_t l[128], h[128]; } ciot_tl3_group_avx512vbmi; /* T[m] = 32 h[m] + l[m] */

typedef struct {
    _Alignas(64) ciot_tl3_group_avx512vbmi g[4][6]; /* [sub-block q][group g] */
    uint8_t pl[4][16], ph[4][16];              /* pair tables, code c = 0..15 */
} ciot_tl3_tables_avx512vbmi;                             /* 6272 bytes */

/* PQ word vector: lanes 0..15 hold P[H] = sum_{n<3} (u_n - 1) a_n for H = 9u0 + 3u1 + u2, lanes 16..24 hold
 * Q[L] = (u3 - 1) a3 + (u4 - 1) a4 for L = 3u3 + u4. Coefficient n of each lane: */
#define CIOT_TL3_ZERO_AVX512VBMI(j) 0
#define CIOT_TL3_Z16_AVX512VBMI CIOT_L16(CIOT_TL3_ZERO_AVX512VBMI, 0)
static const int16_t ciot_tl3_coef_avx512vbmi[5][32] = {
    {CIOT_L16(CIOT_TL3_P0, 0), CIOT_TL3_Z16_AVX512VBMI}, {CIOT_L16(CIOT_TL3_P1, 0), CIOT_TL3_Z16_AVX512VBMI},
    {CIOT_L16(CIOT_TL3_P2, 0), CIOT_TL3_Z16_AVX512VBMI}, {CIOT_TL3_Z16_AVX512VBMI, CIOT_L16(CIOT_TL3_Q3, 0)},
    {CIOT_TL3_Z16_AVX512VBMI, CIOT_L16(CIOT_TL3_Q4, 0)}};
/* T[m] = PQ[m / 9] + PQ[16 + m % 9]: word indices for m = 0..127 */
#define CIOT_TL3_IH_AVX512VBMI(m) ((m) / 9)
#define CIOT_TL3_IL_AVX512VBMI(m) (16 + (m) % 9)
static const uint16_t ciot_tl3_idx_h_avx512vbmi[128] = {
    CIOT_L32(CIOT_TL3_IH_AVX512VBMI, 0), CIOT_L32(CIOT_TL3_IH_AVX512VBMI, 32), CIOT_L32(CIOT_TL3_IH_AVX512VBMI, 64),
    CIOT_L32(CIOT_TL3_IH_AVX512VBMI, 96)};
static const uint16_t ciot_tl3_idx_l_avx512vbmi[128] = {
    CIOT_L32(CIOT_TL3_IL_AVX512VBMI, 0), CIOT_L32(CIOT_TL3_IL_AVX512VBMI, 32), CIOT_L32(CIOT_TL3_IL_AVX512VBMI, 64),
    CIOT_L32(CIOT_TL3_IL_AVX512VBMI, 96)};
/* the low bytes of two word vectors: byte 2k of the pair */
#define CIOT_TL3_EVEN_AVX512VBMI(k) (2 * (k))
static const uint8_t ciot_tl3_idx_even_avx512vbmi[64] = {CIOT_L32(CIOT_TL3_EVEN_AVX512VBMI, 0), CIOT_L32(CIOT_TL3_EVEN_AVX512VBMI, 32)};
/* pair code c -> coefficients of a30 and a31 */
static const int16_t ciot_tl3_pair_coef_avx512vbmi[2][16] = {{CIOT_L16(CIOT_TL3_PAIR_W0, 0)}, {CIOT_L16(CIOT_TL3_PAIR_W1, 0)}};

/* The two planes of T = PQ[m / 9] + PQ[16 + m % 9] for m = 0..127 of the five activations a[0..4]. */
static inline void ciot_tl3_build_group_avx512vbmi(const int8_t *a, ciot_tl3_group_avx512vbmi *out) {
    __m512i pq = _mm512_mullo_epi16(_mm512_loadu_si512(ciot_tl3_coef_avx512vbmi[0]), _mm512_set1_epi16(a[0]));
    for (int n = 1; n < 5; n++) /* int16 safe: |P| <= 3 * 127, |Q| <= 2 * 127 */
        pq = _mm512_add_epi16(pq, _mm512_mullo_epi16(_mm512_loadu_si512(ciot_tl3_coef_avx512vbmi[n]), _mm512_set1_epi16(a[n])));
    __m512i l[4], h[4];
    for (int b = 0; b < 4; b++) {
        const __m512i t = _mm512_add_epi16(_mm512_permutexvar_epi16(_mm512_loadu_si512(ciot_tl3_idx_h_avx512vbmi + 32 * b), pq),
                                           _mm512_permutexvar_epi16(_mm512_loadu_si512(ciot_tl3_idx_l_avx512vbmi + 32 * b), pq));
        l[b] = _mm512_and_si512(t, _mm512_set1_epi16(31)); /* 0..31 */
        h[b] = _mm512_srai_epi16(t, 5);                     /* -20..19: |T| <= 5 * 127 */
    }
    const __m512i even = _mm512_loadu_si512(ciot_tl3_idx_even_avx512vbmi);
    _mm512_store_si512(out->l, _mm512_permutex2var_epi8(l[0], even, l[1]));
    _mm512_store_si512(out->l + 64, _mm512_permutex2var_epi8(l[2], even, l[3]));
    _mm512_store_si512(out->h, _mm512_permutex2var_epi8(h[0], even, h[1]));
    _mm512_store_si512(out->h + 64, _mm512_permutex2var_epi8(h[2], even, h[3]));
}

/* Tables of sub-block q (0..3) of one 128-block from its 32 activations a[0..31]. */
static inline void ciot_tl3_build_subblock_avx512vbmi(const int8_t *a, int q, ciot_tl3_tables_avx512vbmi *tb) {
    for (int g = 0; g < 6; g++) ciot_tl3_build_group_avx512vbmi(a + 5 * g, &tb->g[q][g]);
    const __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(_mm256_loadu_si256((const __m256i *)ciot_tl3_pair_coef_avx512vbmi[0]), _mm256_set1_epi16(a[30])),
                                       _mm256_mullo_epi16(_mm256_loadu_si256((const __m256i *)ciot_tl3_pair_coef_avx512vbmi[1]), _mm256_set1_epi16(a[31])));
    _mm_storeu_si128((__m128i *)tb->pl[q], _mm256_cvtepi16_epi8(_mm256_and_si256(t, _mm256_set1_epi16(31))));
    _mm_storeu_si128((__m128i *)tb->ph[q], _mm256_cvtepi16_epi8(_mm256_srai_epi16(t, 5))); /* -8..7 */
}

/* Byte sums of sub-block q of a tile block over its 6 group lookups and its pair lookup, for the four 64-row
 * vectors v (row 64v + j at byte j): isum of the row's 32 weights = al + 32 ah - 4096, where
 * al = 6 + sum l' + sum sbar in 0..223 (l' <= 31 each, sbar = -1 per positive group), u8 safe;
 * ah = 128 + sum h' in 0..249 (h' in -20..19 per group, -8..7 for the pair), u8 safe. */
static inline void ciot_tl3_subblock_sums_avx512vbmi(const block_tl3 *w, const ciot_tl3_tables_avx512vbmi *tb, int q, size_t prefetch,
                                                     __m512i al[4], __m512i ah[4]) {
    const __m512i ones = _mm512_set1_epi8(-1), c31 = _mm512_set1_epi8(31), c15 = _mm512_set1_epi8(15);
    for (int v = 0; v < 4; v++) al[v] = _mm512_set1_epi8(6), ah[v] = _mm512_set1_epi8(-128);
#pragma clang loop unroll(disable) /* unrolled, the six groups' temporaries spill */
    for (int g = 0; g < 6; g++) {
        const ciot_tl3_group_avx512vbmi *T = &tb->g[q][g];
        const __m512i tl0 = _mm512_load_si512(T->l), tl1 = _mm512_load_si512(T->l + 64);
        const __m512i th0 = _mm512_load_si512(T->h), th1 = _mm512_load_si512(T->h + 64);
        ciot_prefetch(w->sb[q].qs[g], sizeof w->sb[q].qs[g], prefetch);
        for (int v = 0; v < 4; v++) {
            const __m512i x = _mm512_loadu_si512(w->sb[q].qs[g] + 64 * v);
            const __m512i sbar = _mm512_shuffle_epi8(ones, x); /* 0xff where bit 7 is clear, 0 where set */
            const __m512i l = _mm512_permutex2var_epi8(tl0, x, tl1), h = _mm512_permutex2var_epi8(th0, x, th1);
            /* bit 7 set: -T = 32 ~h + (l ^ 31) + 1; the +1 is counted as 6 - (positive groups) */
            al[v] = _mm512_add_epi8(al[v], _mm512_ternarylogic_epi32(l, sbar, c31, 0xd2)); /* l ^ (~sbar & 31) */
            al[v] = _mm512_add_epi8(al[v], sbar);
            ah[v] = _mm512_add_epi8(ah[v], _mm512_ternarylogic_epi32(h, sbar, sbar, 0xc3)); /* ~(h ^ sbar) */
        }
    }
    ciot_prefetch(w->sb[q].qn, sizeof w->sb[q].qn, prefetch);
    const __m512i pl = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)tb->pl[q]));
    const __m512i ph = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)tb->ph[q]));
    /* qn byte j: row j in the low nibble, row j + 128 in the high one */
    const __m512i n0 = _mm512_loadu_si512(w->sb[q].qn), n1 = _mm512_loadu_si512(w->sb[q].qn + 64);
    const __m512i c[4] = {_mm512_and_si512(n0, c15), _mm512_and_si512(n1, c15),
                          _mm512_and_si512(_mm512_srli_epi16(n0, 4), c15), _mm512_and_si512(_mm512_srli_epi16(n1, 4), c15)};
    for (int v = 0; v < 4; v++) {
        al[v] = _mm512_add_epi8(al[v], _mm512_shuffle_epi8(pl, c[v]));
        ah[v] = _mm512_add_epi8(ah[v], _mm512_shuffle_epi8(ph, c[v]));
    }
}

#endif
