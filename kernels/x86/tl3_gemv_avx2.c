#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_gemv_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* tl3_gemv_avx2: TL3 tiles (256 rows x 128 weights, formats.h) times Q8_0 activations without byte permutes
 * (AVX2 has no 128-entry lookup). A group code b of 32 rows is decoded to its five trits: V = b, or 370 - b
 * when bit 7 is set (the negated group, so no sign step follows), digit n by two signed compares of
 * V - 128 against 3^(4-n) and 2 * 3^(4-n); pair codes by two 16-entry vpshufb. Trits of one row are paired
 * by unpacking two trit vectors and multiplied with vpmaddubsw by the pair's two activations; u . a - sum a
 * is the sub-block's isum. Float order of spec/formats.md (PTQ1_0). K % 128 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"

/* Activations of one 128-block in the order the trits are paired: per sub-block q, pair p at bytes 2p, 2p + 1
 * (p = 0..11: trits 0,1 and 2,3 of group p / 2; 12..14: trit 4 of groups 2k, 2k + 1; 15: the pair code). */
typedef struct {
    uint8_t pairs[4][32];
    int16_t asum[4]; /* sum of the sub-block's 32 activations */
    float dy[4];     /* fp32 scale of its Q8_0 block */
} block_prep;

static void build(const void *x, int i, void *prep) {
    const block_q8_0 *y = (const block_q8_0 *)x + 4 * (size_t)i;
    block_prep *p = prep;
    for (int q = 0; q < 4; q++) {
        const int8_t *a = y[q].qs;
        int8_t *o = (int8_t *)p->pairs[q];
        int s = 0;
        for (int g = 0; g < 6; g++)
            for (int n = 0; n < 4; n++) o[4 * g + n] = a[5 * g + n]; /* pairs 2g, 2g + 1 */
        for (int k = 0; k < 3; k++) o[24 + 2 * k] = a[10 * k + 4], o[25 + 2 * k] = a[10 * k + 9];
        o[30] = a[30], o[31] = a[31];
        for (int e = 0; e < 32; e++) s += a[e];
        p->asum[q] = (int16_t)s;
        p->dy[q] = _cvtsh_ss(y[q].d);
    }
}

/* The five trits (0..2) of 32 group codes. */
static inline void decode5(__m256i b, __m256i u[5]) {
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

/* s[0] += rows 0-7 | 16-23, s[1] += rows 8-15 | 24-31 of ua * pair[0] + ub * pair[1] (int16 safe: 2 * 2 * 127
 * per pair, 16 pairs per sub-block). */
static inline void mac(__m256i ua, __m256i ub, const uint8_t *pair, __m256i s[2]) {
    int16_t w;
    memcpy(&w, pair, 2);
    const __m256i a = _mm256_set1_epi16(w);
    s[0] = _mm256_add_epi16(s[0], _mm256_maddubs_epi16(_mm256_unpacklo_epi8(ua, ub), a));
    s[1] = _mm256_add_epi16(s[1], _mm256_maddubs_epi16(_mm256_unpackhi_epi8(ua, ub), a));
}

/* pair code c -> its two trits (value c or 16 - c) */
#define PV(c) ((c) < 8 ? (c) : 16 - (c))
#define T0(c) (PV(c) / 3)
#define T1(c) (PV(c) % 3)
static const uint8_t pair_trits[2][16] = {{CIOT_L16(T0, 0)}, {CIOT_L16(T1, 0)}};

/* One 128-block of a tile: eight vectors v of 32 rows; acc[v][q][k] = float lanes of rows 32v + 8k .. + 7. */
static void run(const void *wp, const void *prep, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_prep *p = prep;
    __m256(*acc)[4][4] = state;
    const __m256i c15 = _mm256_set1_epi8(15);
    const __m256i t0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)pair_trits[0]));
    const __m256i t1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)pair_trits[1]));
    for (int v = 0; v < 8; v++) {
        ciot_prefetch((const char *)w + v * (sizeof *w / 8), sizeof *w / 8, prefetch); /* the block, in eighths */
        __m256 dw[4];
        for (int k = 0; k < 4; k++) dw[k] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w->d + 32 * v + 8 * k)));
        for (int q = 0; q < 4; q++) {
            const uint8_t *pq = p->pairs[q];
            __m256i s[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            for (int k = 0; k < 3; k++) {
                __m256i u[2][5];
                for (int h = 0; h < 2; h++) {
                    decode5(_mm256_loadu_si256((const __m256i *)(w->sb[q].qs[2 * k + h] + 32 * v)), u[h]);
                    mac(u[h][0], u[h][1], pq + 8 * k + 4 * h, s);
                    mac(u[h][2], u[h][3], pq + 8 * k + 4 * h + 2, s);
                }
                mac(u[0][4], u[1][4], pq + 24 + 2 * k, s);
            }
            /* qn byte j: row j in the low nibble, row j + 128 in the high one */
            const __m256i n = _mm256_loadu_si256((const __m256i *)(w->sb[q].qn + 32 * (v & 3)));
            const __m256i c = _mm256_and_si256(v < 4 ? n : _mm256_srli_epi16(n, 4), c15);
            mac(_mm256_shuffle_epi8(t0, c), _mm256_shuffle_epi8(t1, c), pq + 30, s);
            /* isum = u . a - sum a, within +-32 * 127 */
            const __m256i as = _mm256_set1_epi16(p->asum[q]);
            const __m256i i0 = _mm256_sub_epi16(s[0], as), i1 = _mm256_sub_epi16(s[1], as);
            const __m256i isum[4] = {_mm256_cvtepi16_epi32(_mm256_castsi256_si128(i0)), _mm256_cvtepi16_epi32(_mm256_castsi256_si128(i1)),
                                     _mm256_cvtepi16_epi32(_mm256_extracti128_si256(i0, 1)), _mm256_cvtepi16_epi32(_mm256_extracti128_si256(i1, 1))};
            const __m256 dy = _mm256_set1_ps(p->dy[q]);
            for (int k = 0; k < 4; k++)
                acc[v][q][k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[k]), _mm256_mul_ps(dw[k], dy), acc[v][q][k]);
        }
    }
}

static void finish(const void *state, float *y) {
    const __m256(*acc)[4][4] = state;
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 4; k++) /* (acc0 + acc1) + (acc2 + acc3) */
            _mm256_storeu_ps(y + 32 * v + 8 * k, _mm256_add_ps(_mm256_add_ps(acc[v][0][k], acc[v][1][k]),
                                                               _mm256_add_ps(acc[v][2][k], acc[v][3][k])));
}

static const ciot_lut_method method = {CIOT_TL3_GROUP, sizeof(block_prep), sizeof(__m256[8][4][4]), sizeof(block_tl3),
                                       build, run, finish};
_Static_assert(CIOT_TL3_GROUP * sizeof(__m256[8][4][4]) <= CIOT_LUT_STATE_BUDGET, "a group's float state fits");

static void tl3_gemv_avx2(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }

const ciot_kernel ciot_k_tl3_gemv_avx2 = {
    "tl3_gemv_avx2", &ciot_layout_tl3, &ciot_act_q8_0, CIOT_OP_GEMV, CIOT_F_AVX2 | CIOT_F_FMA, "tl3_gemv_ref", tl3_gemv_avx2,
};
