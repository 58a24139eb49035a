#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VBMI__) || \
    !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_gemv_avx512vbmi.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vbmi.c)"
#endif
/* tl3_gemv_avx512vbmi: TL3 tiles (256 rows x 128 weights, formats.h) times Q8_0 activations by table lookup.
 * For each 5-activation group the kernel builds T[m] = sum_n (u_n(m) - 1) a_n, m = 0..127, split as
 * T = 32 h + l (l in 0..31) into two 128-byte planes; one vpermi2b per plane then looks up 64 rows' group
 * codes at once (bit 7 of a code, ignored by the permute, negates: -T = 32 ~h + (l ^ 31) + 1). Pair codes
 * use 16-entry vpshufb tables. Float order of spec/formats.md: per row, four lanes (one per Q8_0 block of
 * the 128-weight block), then (a0 + a1) + (a2 + a3). K % 128 == 0, rows % 256 == 0. */
#include <string.h>
#include "formats.h"
#include "kernel.h"
#include "lut_avx512.h"
#include "prefetch.h"

typedef struct { uint8_t l[128], h[128]; } group_table; /* T[m] = 32 h[m] + l[m] */

typedef struct {
    _Alignas(64) group_table g[4][6]; /* [sub-block q][group g] */
    uint8_t pl[4][16], ph[4][16];     /* pair tables, code c = 0..15 */
    float dy[4];                      /* fp32 scale of each Q8_0 block */
} block_tables;                       /* 6336 bytes */

#define L16(F, b) CIOT_L16(F, b)
#define L32(F, b) CIOT_L32(F, b)
#define ZERO(j) 0
#define Z16 L16(ZERO, 0)

/* PQ word vector: lanes 0..15 hold P[H] = sum_{n<3} (u_n - 1) a_n for H = 9u0 + 3u1 + u2, lanes 16..24 hold
 * Q[L] = (u3 - 1) a3 + (u4 - 1) a4 for L = 3u3 + u4. Coefficient n of each lane: */
#define P0(j) ((j) / 9 - 1)
#define P1(j) ((j) / 3 % 3 - 1)
#define P2(j) ((j) % 3 - 1)
#define Q3(j) ((j) < 9 ? (j) / 3 - 1 : 0)
#define Q4(j) ((j) < 9 ? (j) % 3 - 1 : 0)
static const int16_t coef[5][32] = {{L16(P0, 0), Z16}, {L16(P1, 0), Z16}, {L16(P2, 0), Z16}, {Z16, L16(Q3, 0)},
                                    {Z16, L16(Q4, 0)}};
/* T[m] = PQ[m / 9] + PQ[16 + m % 9]: word indices for m = 0..127 */
#define IH(m) ((m) / 9)
#define IL(m) (16 + (m) % 9)
static const uint16_t idx_h[128] = {L32(IH, 0), L32(IH, 32), L32(IH, 64), L32(IH, 96)};
static const uint16_t idx_l[128] = {L32(IL, 0), L32(IL, 32), L32(IL, 64), L32(IL, 96)};
/* the low bytes of two word vectors: byte 2k of the pair */
#define EVEN(k) (2 * (k))
static const uint8_t idx_even[64] = {L32(EVEN, 0), L32(EVEN, 32)};
/* pair code c -> value V = c < 8 ? c : 16 - c -> coefficients of a30 (V / 3 - 1) and a31 (V % 3 - 1) */
#define PV(c) ((c) < 8 ? (c) : 16 - (c))
#define C30(c) (PV(c) / 3 - 1)
#define C31(c) (PV(c) % 3 - 1)
static const int16_t pair_coef[2][16] = {{L16(C30, 0)}, {L16(C31, 0)}};

/* The two planes of T = PQ[m / 9] + PQ[16 + m % 9] for m = 0..127. */
static inline void build_group(const int8_t *a, group_table *out) {
    __m512i pq = _mm512_mullo_epi16(_mm512_loadu_si512(coef[0]), _mm512_set1_epi16(a[0]));
    for (int n = 1; n < 5; n++) /* int16 safe: |P| <= 3 * 127, |Q| <= 2 * 127 */
        pq = _mm512_add_epi16(pq, _mm512_mullo_epi16(_mm512_loadu_si512(coef[n]), _mm512_set1_epi16(a[n])));
    __m512i l[4], h[4];
    for (int b = 0; b < 4; b++) {
        const __m512i t = _mm512_add_epi16(_mm512_permutexvar_epi16(_mm512_loadu_si512(idx_h + 32 * b), pq),
                                           _mm512_permutexvar_epi16(_mm512_loadu_si512(idx_l + 32 * b), pq));
        l[b] = _mm512_and_si512(t, _mm512_set1_epi16(31)); /* 0..31 */
        h[b] = _mm512_srai_epi16(t, 5);                     /* -20..19: |T| <= 5 * 127 */
    }
    const __m512i even = _mm512_loadu_si512(idx_even);
    _mm512_store_si512(out->l, _mm512_permutex2var_epi8(l[0], even, l[1]));
    _mm512_store_si512(out->l + 64, _mm512_permutex2var_epi8(l[2], even, l[3]));
    _mm512_store_si512(out->h, _mm512_permutex2var_epi8(h[0], even, h[1]));
    _mm512_store_si512(out->h + 64, _mm512_permutex2var_epi8(h[2], even, h[3]));
}

/* Tables of the 4 Q8_0 blocks y[0..3] of one 128-block. */
static void build_block(const block_q8_0 *y, block_tables *tb) {
    for (int q = 0; q < 4; q++) {
        const int8_t *a = y[q].qs;
        for (int g = 0; g < 6; g++) build_group(a + 5 * g, &tb->g[q][g]);
        const __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(_mm256_loadu_si256((const __m256i *)pair_coef[0]), _mm256_set1_epi16(a[30])),
                                           _mm256_mullo_epi16(_mm256_loadu_si256((const __m256i *)pair_coef[1]), _mm256_set1_epi16(a[31])));
        _mm_storeu_si128((__m128i *)tb->pl[q], _mm256_cvtepi16_epi8(_mm256_and_si256(t, _mm256_set1_epi16(31))));
        _mm_storeu_si128((__m128i *)tb->ph[q], _mm256_cvtepi16_epi8(_mm256_srai_epi16(t, 5))); /* -8..7 */
        tb->dy[q] = _cvtsh_ss(y[q].d);
    }
}

/* One sub-block's byte sums of 64 rows -> exact int32 isums -> acc[v] = fmaf(isum, d_w * d_y, acc[v]).
 * al = 6 + sum l' - (positive groups), ah = 128 + sum h' (the invariants in run): isum = al + 32 ah - 4096. */
static inline void finish_subblock(__m512i al, __m512i ah, const __m512 dws[4], float dy, __m512 *acc) {
    __m512i isum[4];
    for (int v = 0; v < 4; v++) isum[v] = _mm512_set1_epi32(-128 * 32);
    ciot_lut_widen(al, ah, isum);
    const __m512 y = _mm512_set1_ps(dy);
    for (int v = 0; v < 4; v++) acc[v] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[v]), _mm512_mul_ps(dws[v], y), acc[v]);
}

/* One 128-block of a tile (256 rows: four 64-row vectors s): acc[s][q][v] are the float lanes of rows
 * 64s + ciot_lut_row(v, d) for Q8_0 block q. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    __m512(*acc)[4][4] = state;
    const __m512i ones = _mm512_set1_epi8(-1), c31 = _mm512_set1_epi8(31), c15 = _mm512_set1_epi8(15);
    __m512 dws[4][4];
    /* the prefetch policy, spread over the block: each part just before it is read */
    ciot_prefetch(w->d, sizeof w->d, prefetch);
    for (int v = 0; v < 4; v++) ciot_lut_row_scales(w->d + 64 * v, dws[v]);
    for (int q = 0; q < 4; q++) {
        /* Byte sums over the sub-block's 6 group lookups and its pair lookup, per row:
         * al = 6 + sum l' + sum sbar in 0..223 (l' <= 31 each, sbar = -1 per positive group), u8 safe;
         * ah = 128 + sum h' in 0..249 (h' in -20..19 per group, -8..7 for the pair), u8 safe. */
        __m512i al[4], ah[4];
        for (int v = 0; v < 4; v++) al[v] = _mm512_set1_epi8(6), ah[v] = _mm512_set1_epi8(-128);
#pragma clang loop unroll(disable) /* unrolled, the six groups' temporaries spill */
        for (int g = 0; g < 6; g++) {
            const group_table *T = &tb->g[q][g];
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
            finish_subblock(al[v], ah[v], dws[v], tb->dy[q], acc[v][q]);
        }
    }
}

static void build(const void *x, int i, void *tables) { build_block((const block_q8_0 *)x + 4 * (size_t)i, tables); }

static void finish(const void *state, float *y) {
    const __m512(*acc)[4][4] = state;
    for (int v = 0; v < 4; v++) {
        __m512 s[4];
        for (int u = 0; u < 4; u++) /* (acc0 + acc1) + (acc2 + acc3) */
            s[u] = _mm512_add_ps(_mm512_add_ps(acc[v][0][u], acc[v][1][u]), _mm512_add_ps(acc[v][2][u], acc[v][3][u]));
        ciot_lut_store(s, y + 64 * v);
    }
}

static const ciot_lut_method method = {CIOT_TL3_GROUP, sizeof(block_tables), sizeof(__m512[4][4][4]),
                                       sizeof(block_tl3), build, run, finish};
_Static_assert(sizeof(block_tables) <= CIOT_LUT_TABLE_BUDGET, "a block's tables fit");
_Static_assert(CIOT_TL3_GROUP * sizeof(__m512[4][4][4]) <= CIOT_LUT_STATE_BUDGET, "a group's float state fits");

static void tl3_gemv_avx512vbmi(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }

const ciot_kernel ciot_k_tl3_gemv_avx512vbmi = {
    "tl3_gemv_avx512vbmi", &ciot_layout_tl3, &ciot_act_q8_0, CIOT_OP_GEMV,
    CIOT_F_AVX512VBMI | CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, "tl3_gemv_ref", tl3_gemv_avx512vbmi,
};
