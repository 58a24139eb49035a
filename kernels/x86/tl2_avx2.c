#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl2_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: TL2 tiles (256 rows x 128 weights, formats.h) times Q8_K activations by table lookup with
 * vpshufb: each PQ2_0 byte's two nibbles index 16-entry tables of (c0 - 1) a_{4j} + (c1 - 1) a_{4j+1} (and
 * codes 2, 3), kept as byte planes l (0..31) and h (-16..15) with value 32 h + l, as in tl2_gemv_avx512vbmi
 * but 32 rows per vector. Canonical float order of kernels/formats.md: per row one fmaf per 128-block.
 * K % 256 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"
#include "tl2_slices_avx2.h"

/* Group j, nibble n: lh[n][0..15] = l, lh[n][16..31] = h of T[c] for nibble value c. */
typedef struct { uint8_t lh[2][32]; } group_table;

typedef struct {
    group_table g[32];
    float dy; /* the Q8_K scale */
} block_tables;

#define N0(c) (((c) & 3) - 1)
#define N1(c) (((c) >> 2) - 1)
static const int16_t coef[2][16] = {{CIOT_L16(N0, 0)}, {CIOT_L16(N1, 0)}};

static void build(const void *x, int i, void *tables) {
    const block_q8_K *b = (const block_q8_K *)x + (i >> 1);
    const int8_t *a = b->qs + 128 * (i & 1);
    block_tables *tb = tables;
    const __m256i c0 = _mm256_loadu_si256((const __m256i *)coef[0]), c1 = _mm256_loadu_si256((const __m256i *)coef[1]);
    for (int j = 0; j < 32; j++)
        for (int n = 0; n < 2; n++) {
            const int8_t *an = a + 4 * j + 2 * n; /* int16 safe: |T| <= 2 * 2 * 127 */
            const __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(c0, _mm256_set1_epi16(an[0])), _mm256_mullo_epi16(c1, _mm256_set1_epi16(an[1])));
            /* [l 0..7, h 0..7 | l 8..15, h 8..15] -> [l 0..15 | h 0..15] */
            const __m256i p = _mm256_packs_epi16(_mm256_and_si256(t, _mm256_set1_epi16(31)), _mm256_srai_epi16(t, 5));
            _mm256_storeu_si256((__m256i *)tb->g[j].lh[n], _mm256_permute4x64_epi64(p, 0xd8));
        }
    tb->dy = b->d;
}

/* One 128-block of a tile: eight vectors v of 32 rows; acc[v][k] = rows 32v + 8k .. + 7. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl2 *w = wp;
    const block_tables *tb = tables;
    __m256(*acc)[4] = state;
    const __m256i c15 = _mm256_set1_epi8(15), w132 = _mm256_set1_epi16(1 | 32 << 8);
    /* s[v][0] rows 0-7 | 16-23, s[v][1] rows 8-15 | 24-31 of vector v: isum + 8 * 4096 mod 2^16 (isum within
     * +-32512, so isum + 32768 is in 256..65280) */
    __m256i s[8][2];
    for (int v = 0; v < 8; v++) s[v][0] = s[v][1] = _mm256_setzero_si256();
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int j0 = 0; j0 < 32; j0 += 4) {
        /* byte sums of 4 bytes' lookups: al = sum l in 0..248, ah = 128 + sum h in 0..248 (u8 safe); eight
         * vectors' sums do not fit the 16 registers and live in L1, so that each byte plane is read whole */
        __m256i al[8], ah[8];
        for (int v = 0; v < 8; v++) al[v] = _mm256_setzero_si256(), ah[v] = _mm256_set1_epi8(-128);
        for (int j = j0; j < j0 + 4; j++) {
            const group_table *T = &tb->g[j];
            const __m256i l0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)T->lh[0]));
            const __m256i h0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(T->lh[0] + 16)));
            const __m256i l1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)T->lh[1]));
            const __m256i h1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(T->lh[1] + 16)));
            ciot_prefetch(w->qs[j], sizeof w->qs[j], prefetch);
            for (int v = 0; v < 8; v++) {
                const __m256i x = _mm256_loadu_si256((const __m256i *)(w->qs[j] + 32 * v));
                const __m256i lo = _mm256_and_si256(x, c15), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), c15);
                al[v] = _mm256_add_epi8(al[v], _mm256_add_epi8(_mm256_shuffle_epi8(l0, lo), _mm256_shuffle_epi8(l1, hi)));
                ah[v] = _mm256_add_epi8(ah[v], _mm256_add_epi8(_mm256_shuffle_epi8(h0, lo), _mm256_shuffle_epi8(h1, hi)));
            }
        }
        for (int v = 0; v < 8; v++) { /* al + 32 ah per row: at most 248 + 32 * 248, int16 safe */
            s[v][0] = _mm256_add_epi16(s[v][0], _mm256_maddubs_epi16(_mm256_unpacklo_epi8(al[v], ah[v]), w132));
            s[v][1] = _mm256_add_epi16(s[v][1], _mm256_maddubs_epi16(_mm256_unpackhi_epi8(al[v], ah[v]), w132));
        }
    }
    const __m256i even = _mm256_set1_epi32(1), odd = _mm256_set1_epi32(1 << 16), flip = _mm256_set1_epi16(-32768);
    const __m256 dy = _mm256_set1_ps(tb->dy);
    for (int v = 0; v < 8; v++) {
        const __m256i u0 = _mm256_xor_si256(s[v][0], flip), u1 = _mm256_xor_si256(s[v][1], flip); /* isum, int16 */
        /* 32-bit lane 4L + j of madd(u, even / odd) holds 16-bit lane 8L + 2j / 2j + 1: back to rows by unpacking */
        const __m256i e0 = _mm256_madd_epi16(u0, even), o0 = _mm256_madd_epi16(u0, odd);
        const __m256i e1 = _mm256_madd_epi16(u1, even), o1 = _mm256_madd_epi16(u1, odd);
        const __m256i r0 = _mm256_unpacklo_epi32(e0, o0), r1 = _mm256_unpackhi_epi32(e0, o0); /* rows 0-3 | 16-19, 4-7 | 20-23 */
        const __m256i r2 = _mm256_unpacklo_epi32(e1, o1), r3 = _mm256_unpackhi_epi32(e1, o1); /* rows 8-11 | 24-27, 12-15 | 28-31 */
        const __m256i isum[4] = {_mm256_permute2x128_si256(r0, r1, 0x20), _mm256_permute2x128_si256(r2, r3, 0x20),
                                 _mm256_permute2x128_si256(r0, r1, 0x31), _mm256_permute2x128_si256(r2, r3, 0x31)};
        for (int k = 0; k < 4; k++) {
            const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w->d + 32 * v + 8 * k)));
            acc[v][k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[k]), _mm256_mul_ps(dw, dy), acc[v][k]);
        }
    }
}

static void finish(const void *state, float *y) {
    const __m256(*acc)[4] = state;
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(y + 32 * v + 8 * k, acc[v][k]);
}

CIOT_LUT_METHOD(CIOT_TL2_GROUP, block_tables, __m256[8][4], block_tl2, NULL);

/* The gemm slices from this batch on (tl2_slices_avx2.h, vpmaddubsw), the lookups below it, where those are
 * faster (results/kernel-bounds.md, "Gemm families"). */
enum { CIOT_TL2_SLICES_MIN_BATCH_AVX2 = 8 };

/* The gemm from its .mac_batch activation rows on: each slice decoded once for the pass's rows; below it the same
 * method per activation row (ciot_lut_gemm), each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl2, avx2, ciot_act_q8_K, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_MAC_LOOKUP,
                          CIOT_TL2_SLICES_MIN_BATCH_AVX2, CIOT_MAC_AVX2_I16,
                          (ciot_tl2_slices_gemm(mm, first, count, 2, ciot_slice_block_avx2)));
