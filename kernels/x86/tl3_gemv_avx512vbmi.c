#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VBMI__) || \
    !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_gemv_avx512vbmi.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vbmi.c)"
#endif
/* tl3_gemv_avx512vbmi: TL3 tiles (64 rows x 128 weights, formats.h) times Q8_0 activations by table lookup.
 * For each 5-activation group the kernel builds T[m] = sum_n (u_n(m) - 1) a_n, m = 0..127, split as
 * T = 32 h + l (l in 0..31) into two 128-byte planes; one vpermi2b per plane then looks up 64 rows' group
 * codes at once (bit 7 of a code, ignored by the permute, negates: -T = 32 ~h + (l ^ 31) + 1). Pair codes
 * use 16-entry vpshufb tables. Float order of spec/formats.md: per row, four lanes (one per Q8_0 block of
 * the 128-weight block), then (a0 + a1) + (a2 + a3). K % 128 == 0, rows % 64 == 0. */
#include <immintrin.h>
#include <string.h>
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

enum {
    CHUNK = 4,  /* 128-blocks whose tables are built at a time (25 KiB) */
    SUPER = 32, /* tiles sharing one table build; their float lanes stay in a 32 KiB buffer */
    QUAD = 4,   /* tiles sharing each table load */
};

typedef struct { uint8_t l[128], h[128]; } group_table; /* T[m] = 32 h[m] + l[m] */

typedef struct {
    _Alignas(64) group_table g[4][6]; /* [sub-block q][group g] */
    uint8_t pl[4][16], ph[4][16];     /* pair tables, code c = 0..15 */
    float dy[4];                      /* fp32 scale of each Q8_0 block */
} block_tables;

/* Lists of lane constants. */
#define L8(F, b) F((b) + 0), F((b) + 1), F((b) + 2), F((b) + 3), F((b) + 4), F((b) + 5), F((b) + 6), F((b) + 7)
#define L16(F, b) L8(F, b), L8(F, (b) + 8)
#define L32(F, b) L16(F, b), L16(F, (b) + 16)
#define Z16 L16(ZERO, 0)
#define ZERO(j) 0

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

/* Row of lane d of isum vector v (v = 0..3, d = 0..15) after the byte-to-dword steps of finish_subblock. */
static inline int row_of(int v, int d) { return 16 * (d >> 2) + 8 * (v >> 1) + 2 * (d & 3) + (v & 1); }
#define ROW01(w) (16 * (((w) & 15) >> 2) + 2 * ((w) & 3) + ((w) >> 4))
#define ROW23(w) (ROW01(w) + 8)
static const uint16_t idx_rows01[32] = {L32(ROW01, 0)}, idx_rows23[32] = {L32(ROW23, 0)};

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

/* fp32 row scales of a tile block in the lane order of finish_subblock: s[v] lane d = d_w[row_of(v, d)]. */
static inline void row_scales(const uint16_t *d, __m512 s[4]) {
    const __m512i d0 = _mm512_loadu_si512(d), d1 = _mm512_loadu_si512(d + 32); /* rows 0..31, 32..63 */
    const __m512i p01 = _mm512_permutex2var_epi16(d0, _mm512_loadu_si512(idx_rows01), d1);
    const __m512i p23 = _mm512_permutex2var_epi16(d0, _mm512_loadu_si512(idx_rows23), d1);
    s[0] = _mm512_cvtph_ps(_mm512_castsi512_si256(p01)), s[1] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(p01, 1));
    s[2] = _mm512_cvtph_ps(_mm512_castsi512_si256(p23)), s[3] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(p23, 1));
}

/* One sub-block's byte sums of 64 rows -> exact int32 isums -> acc[v] = fmaf(isum, d_w * d_y, acc[v]).
 * al = 6 + sum l' - (positive group count), ah = 128 + sum h' (see the invariants in quad_block). */
static inline void finish_subblock(__m512i al, __m512i ah, const __m512 dws[4], float dy, __m512 *acc) {
    const __m512i bias = _mm512_set1_epi32(-128 * 32), w0 = _mm512_set1_epi32(1 | 32 << 8), w1 = _mm512_set1_epi32(1 << 16 | 32 << 24);
    const __m512i lo = _mm512_unpacklo_epi8(al, ah), hi = _mm512_unpackhi_epi8(al, ah); /* rows 16L + j | 16L + 8 + j */
    const __m512i isum[4] = {_mm512_dpbusd_epi32(bias, lo, w0), _mm512_dpbusd_epi32(bias, lo, w1),
                             _mm512_dpbusd_epi32(bias, hi, w0), _mm512_dpbusd_epi32(bias, hi, w1)};
    const __m512 y = _mm512_set1_ps(dy);
    for (int v = 0; v < 4; v++) acc[v] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[v]), _mm512_mul_ps(dws[v], y), acc[v]);
}

/* NT tiles' block: w[t] the tile blocks, acc[t][q][v] their float lanes. */
static inline __attribute__((always_inline)) void quad_block(const block_tl3 *const *w, int nt, const block_tables *tb,
                                                             __m512 (*acc)[4][4], size_t prefetch) {
    const __m512i ones = _mm512_set1_epi8(-1), c31 = _mm512_set1_epi8(31), c15 = _mm512_set1_epi8(15);
    const __m512i nib_shift = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(4), 1);
    __m512 dws[QUAD][4];
    for (int t = 0; t < nt; t++) {
        ciot_prefetch(w[t], sizeof *w[t], prefetch);
        row_scales(w[t]->d, dws[t]);
    }
    for (int q = 0; q < 4; q++) {
        /* Byte sums over the sub-block's 6 group lookups and its pair lookup, per row:
         * al = 6 + sum l' + sum sbar in 0..223 (l' <= 31 each, sbar = -1 per positive group), u8 safe;
         * ah = 128 + sum h' in 0..249 (h' in -20..19 per group, -8..7 for the pair), u8 safe. */
        __m512i al[QUAD], ah[QUAD];
        for (int t = 0; t < nt; t++) al[t] = _mm512_set1_epi8(6), ah[t] = _mm512_set1_epi8(-128);
        for (int g = 0; g < 6; g++) {
            const group_table *T = &tb->g[q][g];
            const __m512i tl0 = _mm512_load_si512(T->l), tl1 = _mm512_load_si512(T->l + 64);
            const __m512i th0 = _mm512_load_si512(T->h), th1 = _mm512_load_si512(T->h + 64);
            for (int t = 0; t < nt; t++) {
                const __m512i x = _mm512_loadu_si512(w[t]->qs[q][g]);
                const __m512i sbar = _mm512_shuffle_epi8(ones, x); /* 0xff where bit 7 is clear, 0 where set */
                const __m512i l = _mm512_permutex2var_epi8(tl0, x, tl1), h = _mm512_permutex2var_epi8(th0, x, th1);
                /* bit 7 set: -T = 32 ~h + (l ^ 31) + 1; the +1 is counted as 6 - (positive groups) */
                al[t] = _mm512_add_epi8(al[t], _mm512_ternarylogic_epi32(l, sbar, c31, 0xd2)); /* l ^ (~sbar & 31) */
                al[t] = _mm512_add_epi8(al[t], sbar);
                ah[t] = _mm512_add_epi8(ah[t], _mm512_ternarylogic_epi32(h, sbar, sbar, 0xc3)); /* ~(h ^ sbar) */
            }
        }
        const __m512i pl = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)tb->pl[q]));
        const __m512i ph = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)tb->ph[q]));
        for (int t = 0; t < nt; t++) {
            /* bytes 0..31: low nibbles (rows 0..31), bytes 32..63: high nibbles (rows 32..63) */
            const __m512i n = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)w[t]->qn[q]));
            const __m512i c = _mm512_and_si512(_mm512_srlv_epi16(n, nib_shift), c15);
            al[t] = _mm512_add_epi8(al[t], _mm512_shuffle_epi8(pl, c));
            ah[t] = _mm512_add_epi8(ah[t], _mm512_shuffle_epi8(ph, c));
            finish_subblock(al[t], ah[t], dws[t], tb->dy[q], acc[t][q]);
        }
    }
}

static void tl3_gemv_avx512vbmi(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_0 *x = mm->x;
    const block_tl3 *W = mm->w;
    block_tables tab[CHUNK];
    __m512 acc[SUPER][4][4];
    for (int s0 = first; s0 < first + count; s0 += SUPER) {
        const int ns = first + count - s0 < SUPER ? first + count - s0 : SUPER;
        for (int t = 0; t < ns; t++)
            for (int q = 0; q < 4; q++)
                for (int v = 0; v < 4; v++) acc[t][q][v] = _mm512_setzero_ps();
        for (int i0 = 0; i0 < nb; i0 += CHUNK) {
            const int nc = nb - i0 < CHUNK ? nb - i0 : CHUNK;
            for (int k = 0; k < nc; k++) build_block(x + 4 * (size_t)(i0 + k), &tab[k]);
            int t = 0;
            for (; t + QUAD <= ns; t += QUAD)
                for (int k = 0; k < nc; k++) {
                    const block_tl3 *w[QUAD];
                    for (int j = 0; j < QUAD; j++) w[j] = W + (size_t)(s0 + t + j) * nb + i0 + k;
                    quad_block(w, QUAD, &tab[k], &acc[t], mm->prefetch);
                }
            for (; t < ns; t++)
                for (int k = 0; k < nc; k++) {
                    const block_tl3 *w[1] = {W + (size_t)(s0 + t) * nb + i0 + k};
                    quad_block(w, 1, &tab[k], &acc[t], mm->prefetch);
                }
        }
        for (int t = 0; t < ns; t++) {
            float out[4][16];
            for (int v = 0; v < 4; v++) /* (acc0 + acc1) + (acc2 + acc3) */
                _mm512_storeu_ps(out[v], _mm512_add_ps(_mm512_add_ps(acc[t][0][v], acc[t][1][v]),
                                                       _mm512_add_ps(acc[t][2][v], acc[t][3][v])));
            float *y = mm->y + 64 * (size_t)(s0 + t);
            for (int v = 0; v < 4; v++)
                for (int d = 0; d < 16; d++) y[row_of(v, d)] = out[v][d];
        }
    }
}

const ciot_kernel ciot_k_tl3_gemv_avx512vbmi = {
    "tl3_gemv_avx512vbmi", &ciot_layout_tl3, &ciot_act_q8_0, CIOT_OP_GEMV,
    CIOT_F_AVX512VBMI | CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, "tl3_gemv_ref", tl3_gemv_avx512vbmi,
};
