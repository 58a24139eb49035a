#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VBMI__) || \
    !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl2_gemv_avx512vbmi.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vbmi.c)"
#endif
/* tl2_gemv_avx512vbmi: TL2 tiles (256 rows x 128 weights, formats.h) times Q8_K activations by table lookup.
 * For each 4-activation group j the kernel builds T[b] = sum_n (code_n(b) - 1) a_{4j+n} for all 256 bytes
 * b, kept as two byte planes l, h with T = 32 h + l; per 64 rows, two vpermi2b per plane (the low and high
 * 128 entries) and a blend on bit 7 look up the rows' PQ2_0 bytes. Canonical float order of spec/formats.md:
 * per row one fmaf per 128-block. K % 256 == 0, rows % 256 == 0. */
#include <string.h>
#include "formats.h"
#include "kernel.h"
#include "lut_avx512.h"
#include "prefetch.h"

/* T[b] = 32 h[b] + l[b] = P[b >> 4] + Q[b & 15], with P = 32 Ph + Pl, Q = 32 Qh + Ql (Pl, Ql in 0..31):
 * l = Pl + Ql in 0..62, h = Ph + Qh in -32..30 (|P|, |Q| <= 2 * 2 * 127). */
typedef struct { uint8_t l[256], h[256]; } group_table;

typedef struct {
    _Alignas(64) group_table g[32]; /* group j: PQ2_0 byte j, weights 4j .. 4j + 3 */
    float dy;                       /* the Q8_K scale */
} block_tables;                     /* 16448 bytes */

/* PQ word vector: lanes 0..15 hold P[H] = (c2 - 1) a2 + (c3 - 1) a3 for H = c2 + 4 c3, lanes 16..31 hold
 * Q[L] = (c0 - 1) a0 + (c1 - 1) a1 for L = c0 + 4 c1. Coefficient n of each lane: */
#define LO(j) (((j) & 3) - 1)
#define HI(j) (((j) >> 2) - 1)
#define ZERO(j) 0
static const int16_t coef[4][32] = {{CIOT_L16(ZERO, 0), CIOT_L16(LO, 0)}, {CIOT_L16(ZERO, 0), CIOT_L16(HI, 0)},
                                    {CIOT_L16(LO, 0), CIOT_L16(ZERO, 0)}, {CIOT_L16(HI, 0), CIOT_L16(ZERO, 0)}};
/* byte indices into the PQ words (low byte of word w = byte 2w): entry 64c + e takes P[4c + (e >> 4)] and
 * Q[e & 15] */
#define IQ(e) (2 * (16 + ((e) & 15)))
#define IP0(e) (2 * ((e) >> 4))
#define IP1(e) (2 * (4 + ((e) >> 4)))
#define IP2(e) (2 * (8 + ((e) >> 4)))
#define IP3(e) (2 * (12 + ((e) >> 4)))
static const uint8_t idx_q[64] = {CIOT_L32(IQ, 0), CIOT_L32(IQ, 32)};
static const uint8_t idx_p[4][64] = {{CIOT_L32(IP0, 0), CIOT_L32(IP0, 32)}, {CIOT_L32(IP1, 0), CIOT_L32(IP1, 32)},
                                     {CIOT_L32(IP2, 0), CIOT_L32(IP2, 32)}, {CIOT_L32(IP3, 0), CIOT_L32(IP3, 32)}};

static inline void build_group(const int8_t *a, group_table *out) {
    __m512i pq = _mm512_mullo_epi16(_mm512_loadu_si512(coef[0]), _mm512_set1_epi16(a[0]));
    for (int n = 1; n < 4; n++) /* int16 safe: |P|, |Q| <= 508 */
        pq = _mm512_add_epi16(pq, _mm512_mullo_epi16(_mm512_loadu_si512(coef[n]), _mm512_set1_epi16(a[n])));
    const __m512i pl = _mm512_and_si512(pq, _mm512_set1_epi16(31)), ph = _mm512_srai_epi16(pq, 5); /* low bytes */
    const __m512i iq = _mm512_loadu_si512(idx_q);
    const __m512i ql = _mm512_permutexvar_epi8(iq, pl), qh = _mm512_permutexvar_epi8(iq, ph);
    for (int c = 0; c < 4; c++) {
        const __m512i ip = _mm512_loadu_si512(idx_p[c]);
        _mm512_store_si512(out->l + 64 * c, _mm512_add_epi8(_mm512_permutexvar_epi8(ip, pl), ql));
        _mm512_store_si512(out->h + 64 * c, _mm512_add_epi8(_mm512_permutexvar_epi8(ip, ph), qh));
    }
}

static void build(const void *x, int i, void *tables) {
    const block_q8_K *b = (const block_q8_K *)x + (i >> 1);
    block_tables *tb = tables;
    for (int j = 0; j < 32; j++) build_group(b->qs + 128 * (i & 1) + 4 * j, &tb->g[j]);
    tb->dy = b->d;
}

/* One 128-block of a tile (256 rows: four 64-row vectors v): acc[v][u] are the float lanes of rows
 * 64v + ciot_lut_row(u, d). */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl2 *w = wp;
    const block_tables *tb = tables;
    __m512(*acc)[4] = state;
    const __m512i w132 = _mm512_set1_epi16(1 | 32 << 8);
    /* s[v][0] rows 16L + j, s[v][1] rows 16L + 8 + j (16-bit lane 8L + j): the block's isum + 8 * 4096, mod
     * 2^16. Exact: isum is within +-128 * 2 * 127 = +-32512, so isum + 32768 is in 256..65280. */
    __m512i s[4][2];
    for (int v = 0; v < 4; v++) s[v][0] = s[v][1] = _mm512_setzero_si512();
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int j0 = 0; j0 < 32; j0 += 4) {
        /* byte sums of 4 lookups: al = sum l in 0..248, ah = 128 + sum h in 0..248 (u8 safe) */
        __m512i al[4], ah[4];
        for (int v = 0; v < 4; v++) al[v] = _mm512_setzero_si512(), ah[v] = _mm512_set1_epi8(-128);
#pragma clang loop unroll(disable) /* unrolled, the four groups' temporaries spill */
        for (int j = j0; j < j0 + 4; j++) {
            const group_table *T = &tb->g[j];
            const __m512i l0 = _mm512_load_si512(T->l), l1 = _mm512_load_si512(T->l + 64);
            const __m512i l2 = _mm512_load_si512(T->l + 128), l3 = _mm512_load_si512(T->l + 192);
            const __m512i h0 = _mm512_load_si512(T->h), h1 = _mm512_load_si512(T->h + 64);
            const __m512i h2 = _mm512_load_si512(T->h + 128), h3 = _mm512_load_si512(T->h + 192);
            ciot_prefetch(w->qs[j], sizeof w->qs[j], prefetch);
            for (int v = 0; v < 4; v++) {
                const __m512i x = _mm512_loadu_si512(w->qs[j] + 64 * v);
                const __mmask64 high = _mm512_movepi8_mask(x); /* entries 128..255 */
                const __m512i l = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(l0, x, l1), _mm512_permutex2var_epi8(l2, x, l3));
                const __m512i h = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(h0, x, h1), _mm512_permutex2var_epi8(h2, x, h3));
                al[v] = _mm512_add_epi8(al[v], l);
                ah[v] = _mm512_add_epi8(ah[v], h);
            }
        }
        for (int v = 0; v < 4; v++) { /* al + 32 ah per row: at most 248 + 32 * 248, int16 safe */
            s[v][0] = _mm512_add_epi16(s[v][0], _mm512_maddubs_epi16(_mm512_unpacklo_epi8(al[v], ah[v]), w132));
            s[v][1] = _mm512_add_epi16(s[v][1], _mm512_maddubs_epi16(_mm512_unpackhi_epi8(al[v], ah[v]), w132));
        }
    }
    const __m512i even = _mm512_set1_epi32(1), odd = _mm512_set1_epi32(1 << 16), flip = _mm512_set1_epi16(-32768);
    const __m512 dy = _mm512_set1_ps(tb->dy);
    for (int v = 0; v < 4; v++) {
        __m512 dws[4];
        ciot_lut_row_scales(w->d + 64 * v, dws);
        const __m512i u0 = _mm512_xor_si512(s[v][0], flip), u1 = _mm512_xor_si512(s[v][1], flip); /* isum, int16 */
        const __m512i isum[4] = {_mm512_madd_epi16(u0, even), _mm512_madd_epi16(u0, odd), _mm512_madd_epi16(u1, even),
                                 _mm512_madd_epi16(u1, odd)};
        for (int u = 0; u < 4; u++) acc[v][u] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[u]), _mm512_mul_ps(dws[u], dy), acc[v][u]);
    }
}

static void finish(const void *state, float *y) {
    const __m512(*acc)[4] = state;
    for (int v = 0; v < 4; v++) ciot_lut_store(acc[v], y + 64 * v);
}

static const ciot_lut_method method = {CIOT_TL2_GROUP, sizeof(block_tables), sizeof(__m512[4][4]),
                                       sizeof(block_tl2), build, run, finish};
_Static_assert(sizeof(block_tables) <= CIOT_LUT_TABLE_BUDGET, "a block's tables fit");
_Static_assert(CIOT_TL2_GROUP * sizeof(__m512[4][4]) <= CIOT_LUT_STATE_BUDGET, "a group's float state fits");

static void tl2_gemv_avx512vbmi(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }

const ciot_kernel ciot_k_tl2_gemv_avx512vbmi = {
    "tl2_gemv_avx512vbmi", &ciot_layout_tl2, &ciot_act_q8_K, CIOT_OP_GEMV,
    CIOT_F_AVX512VBMI | CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, "tl2_gemv_ref", tl2_gemv_avx512vbmi,
};
