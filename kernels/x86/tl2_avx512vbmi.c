#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VBMI__) || \
    !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl2_avx512vbmi.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vbmi.c)"
#endif
/* The gemv: TL2 tiles (256 rows x 128 weights, formats.h) times Q8_K activations by table lookup.
 * Each PQ2_0 byte is split into its nibbles: for group j the kernel builds two 16-entry tables, of
 * (c0 - 1) a_{4j} + (c1 - 1) a_{4j+1} and of the same for codes 2, 3, each as two byte planes l, h with
 * value 32 h + l; vpermb on a table broadcast to 64 bytes looks up 64 rows' low nibbles, and their high
 * nibbles after one 16-bit shift (vpermb reads index bits 0..5, so no masking). 2 KiB of tables per 128-block
 * stay in L1 beside the streamed weights. Canonical float order of kernels/formats.md: per row one fmaf per
 * 128-block. K % 256 == 0, rows % 256 == 0. */
#include <string.h>
#include "formats.h"
#include "kernel.h"
#include "lut_avx512vnni.h"
#include "prefetch.h"

/* Group j, nibble n (0: codes 0, 1 = weights 4j, 4j + 1; 1: codes 2, 3): T[c] = 32 h[n][c] + l[n][c] for the
 * nibble value c, l in 0..31, h in -16..15 (|T| <= 2 * 2 * 127). */
typedef struct { uint8_t l[2][16], h[2][16]; } group_table;

typedef struct {
    _Alignas(64) group_table g[32];
    float dy; /* the Q8_K scale */
} block_tables;

/* coefficients (code - 1) of the nibble's two weights, per nibble value c */
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
            const int8_t *an = a + 4 * j + 2 * n;
            const __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(c0, _mm256_set1_epi16(an[0])), _mm256_mullo_epi16(c1, _mm256_set1_epi16(an[1])));
            _mm_storeu_si128((__m128i *)tb->g[j].l[n], _mm256_cvtepi16_epi8(_mm256_and_si256(t, _mm256_set1_epi16(31))));
            _mm_storeu_si128((__m128i *)tb->g[j].h[n], _mm256_cvtepi16_epi8(_mm256_srai_epi16(t, 5)));
        }
    tb->dy = b->d;
}

/* One 128-block of a tile (256 rows: four 64-row vectors v): acc[v][u] are the float lanes of rows
 * 64v + ciot_lut_row_avx512vnni(u, d). */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl2 *w = wp;
    const block_tables *tb = tables;
    __m512(*acc)[4] = state;
    /* s[v][0] rows 16L + j, s[v][1] rows 16L + 8 + j (16-bit lane 8L + j): the block's isum + 8 * 4096, mod
     * 2^16. Exact: isum is within +-128 * 2 * 127 = +-32512, so isum + 32768 is in 256..65280. */
    __m512i s[4][2];
    for (int v = 0; v < 4; v++) s[v][0] = s[v][1] = _mm512_setzero_si512();
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int j0 = 0; j0 < 32; j0 += 4) {
        /* byte sums of 4 bytes' lookups: al = sum l in 0..248, ah = 128 + sum h in 0..248 (u8 safe) */
        __m512i al[4], ah[4];
        for (int v = 0; v < 4; v++) al[v] = _mm512_setzero_si512(), ah[v] = _mm512_set1_epi8(-128);
#pragma clang loop unroll(disable) /* unrolled, the four groups' temporaries spill */
        for (int j = j0; j < j0 + 4; j++) {
            const group_table *T = &tb->g[j];
            const __m512i l0 = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)T->l[0]));
            const __m512i l1 = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)T->l[1]));
            const __m512i h0 = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)T->h[0]));
            const __m512i h1 = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)T->h[1]));
            ciot_prefetch(w->qs[j], sizeof w->qs[j], prefetch);
            for (int v = 0; v < 4; v++) {
                /* index bits 0..3 pick the entry, bits 4..5 pick among four equal copies */
                const __m512i x = _mm512_loadu_si512(w->qs[j] + 64 * v), xh = _mm512_srli_epi16(x, 4);
                al[v] = _mm512_add_epi8(al[v], _mm512_add_epi8(_mm512_permutexvar_epi8(x, l0), _mm512_permutexvar_epi8(xh, l1)));
                ah[v] = _mm512_add_epi8(ah[v], _mm512_add_epi8(_mm512_permutexvar_epi8(x, h0), _mm512_permutexvar_epi8(xh, h1)));
            }
        }
        for (int v = 0; v < 4; v++) ciot_lut_sum16_avx512vnni(al[v], ah[v], s[v]); /* al + 32 ah per row: at most 248 * 33 */
    }
    const __m512 dy = _mm512_set1_ps(tb->dy);
    for (int v = 0; v < 4; v++) ciot_lut_fma16_avx512vnni(w->d + 64 * v, s[v], dy, acc[v]);
}

static void finish(const void *state, float *y) {
    const __m512(*acc)[4] = state;
    for (int v = 0; v < 4; v++) ciot_lut_store_avx512vnni(acc[v], y + 64 * v);
}

CIOT_LUT_METHOD(CIOT_TL2_GROUP, block_tables, __m512[4][4], block_tl2, NULL);

CIOT_LUT_KERNELS(tl2, avx512vbmi, ciot_act_q8_K, CIOT_F_AVX512VBMI | CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA,
                 CIOT_MAC_LOOKUP);
