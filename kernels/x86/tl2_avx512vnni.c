#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl2_avx512vnni.c needs -mavx512f -mavx512bw -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vnni.c)"
#endif
/* The gemv: TL2 tiles (256 rows x 128 weights, formats.h) times Q8_K activations by dot products,
 * no tables: the competitor of the lookups on the same bytes. TL2 keeps one row per byte (plane j = PQ2_0
 * byte j of 256 rows); four planes j = 4q .. 4q + 3 of 64 rows are transposed by two rounds of unpacks so that
 * each int32 lane holds one row's bytes 4q .. 4q + 3, then each of the four bit pairs is masked in place
 * (u, 4u, 16u, 64u: at most 192, an unsigned byte) and vpdpbusd multiplies it by the four activations it
 * meets, broadcast: a[16q + 4jj + p] for byte jj, bit pair p (prepared once per block). Four int32 sums per
 * row, one per bit pair, start at -sum(a) (the code offset) and 0 and are joined exactly by arithmetic shifts
 * (every product of pair p is a multiple of 4^p). Then per row the canonical fmaf((float) isum,
 * fp32(d) * d_y, acc) of kernels/formats.md, per 128-block in order. K % 256 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include <stdint.h>
#include "formats.h"
#include "kernel.h"
#include "lut_avx512vnni.h"
#include "prefetch.h"
#include "tl16_dot_avx512vnni.h"
#include "tl2_slices_avx2.h"

typedef struct {
    _Alignas(64) int8_t a[8][4][4]; /* [q][p][jj] = a[16q + 4jj + p] */
    int32_t neg_sum;                 /* -sum of the block's 128 activations */
    float dy;                        /* the Q8_K scale */
} block_act;

/* Byte order that turns 16 activations a[4jj + p] into [p][jj], per 16-byte lane. */
#define TRANSPOSE4(n) (4 * ((n) & 3) + ((n) >> 2))
static const int8_t transpose4[16] = {CIOT_L16(TRANSPOSE4, 0)};

static void build(const void *x, int i, void *tables) {
    const block_q8_K *b = (const block_q8_K *)x + (i >> 1);
    const int8_t *a = b->qs + 128 * (i & 1);
    block_act *t = tables;
    const __m512i perm = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)transpose4));
    _mm512_store_si512(t->a[0], _mm512_shuffle_epi8(_mm512_loadu_si512(a), perm));
    _mm512_store_si512(t->a[4], _mm512_shuffle_epi8(_mm512_loadu_si512(a + 64), perm));
    int32_t sum = 0;
    for (int g = 0; g < 8; g++) sum += b->bsums[8 * (i & 1) + g];
    t->neg_sum = -sum, t->dy = b->d;
}

/* Lane d of sum vector k (k = 0..3) of a 64-row part holds row 16 (d >> 2) + 4k + (d & 3): the unpacks work
 * within 128-bit lanes. The part's fp16 scales are permuted into that order, and the results back. */
#define ROW(k, d) (16 * ((d) >> 2) + 4 * (k) + ((d) & 3))
static int row_of(int k, int d) { return ROW(k, d); }
#define ROW01(n) ROW((n) >> 4, (n) & 15)       /* vectors 0, 1: word n of the pair */
#define ROW23(n) ROW(2 + ((n) >> 4), (n) & 15) /* vectors 2, 3 */
static const uint16_t rows01[32] = {CIOT_L32(ROW01, 0)}, rows23[32] = {CIOT_L32(ROW23, 0)};

/* s[k][p] += bit pair p of the row bytes v (masked in place) times the activations it meets. */
static inline void dot4(__m512i v, const int32_t *act, __m512i s[4]) {
    s[0] = _mm512_dpbusd_epi32(s[0], _mm512_and_si512(v, _mm512_set1_epi8(0x03)), _mm512_set1_epi32(act[0]));
    s[1] = _mm512_dpbusd_epi32(s[1], _mm512_and_si512(v, _mm512_set1_epi8(0x0c)), _mm512_set1_epi32(act[1]));
    s[2] = _mm512_dpbusd_epi32(s[2], _mm512_and_si512(v, _mm512_set1_epi8(0x30)), _mm512_set1_epi32(act[2]));
    s[3] = _mm512_dpbusd_epi32(s[3], _mm512_and_si512(v, _mm512_set1_epi8((char)0xc0)), _mm512_set1_epi32(act[3]));
}

/* One 128-block of a tile: four 64-row parts v; acc[4v + k] lane d is row 64v + row_of(k, d). int32 safe: a
 * sum gains at most 4 * 192 * 127 per vpdpbusd, 8 of them per block. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl2 *w = wp;
    const block_act *t = tables;
    __m512 *acc = state;
    const __m512 dy = _mm512_set1_ps(t->dy);
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int v = 0; v < 4; v++) {
        __m512i s[4][4];
        for (int k = 0; k < 4; k++) {
            s[k][0] = _mm512_set1_epi32(t->neg_sum);
            s[k][1] = s[k][2] = s[k][3] = _mm512_setzero_si512();
        }
        for (int q = 0; q < 8; q++) {
            const uint8_t *p = w->qs[4 * q] + 64 * v;
            ciot_prefetch(w->qs[8 * v + q], 256, prefetch); /* in address order, whatever the load order */
            const __m512i b0 = _mm512_loadu_si512(p), b1 = _mm512_loadu_si512(p + 256);
            const __m512i b2 = _mm512_loadu_si512(p + 512), b3 = _mm512_loadu_si512(p + 768);
            const __m512i lo01 = _mm512_unpacklo_epi8(b0, b1), hi01 = _mm512_unpackhi_epi8(b0, b1);
            const __m512i lo23 = _mm512_unpacklo_epi8(b2, b3), hi23 = _mm512_unpackhi_epi8(b2, b3);
            const int32_t *act = (const int32_t *)t->a[q];
            dot4(_mm512_unpacklo_epi16(lo01, lo23), act, s[0]);
            dot4(_mm512_unpackhi_epi16(lo01, lo23), act, s[1]);
            dot4(_mm512_unpacklo_epi16(hi01, hi23), act, s[2]);
            dot4(_mm512_unpackhi_epi16(hi01, hi23), act, s[3]);
        }
        __m512 dws[4];
        ciot_lut_row_scales_in_avx512vnni(w->d + 64 * v, rows01, rows23, dws);
        for (int k = 0; k < 4; k++) {
            const __m512i isum = _mm512_add_epi32(_mm512_add_epi32(s[k][0], _mm512_srai_epi32(s[k][1], 2)),
                                                  _mm512_add_epi32(_mm512_srai_epi32(s[k][2], 4), _mm512_srai_epi32(s[k][3], 6)));
            acc[4 * v + k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(dws[k], dy), acc[4 * v + k]);
        }
    }
}

static void finish(const void *state, float *y) {
    const __m512 *acc = state;
    for (int v = 0; v < 4; v++) ciot_lut_store_in_avx512vnni(acc + 4 * v, y + 64 * v, row_of);
}

CIOT_LUT_METHOD(CIOT_TL2_GROUP, block_act, __m512[16], block_tl2, NULL);

/* The gemm slices from this batch on (tl2_slices_avx2.h, vpdpbusd on zmm), the gemv's dot products per row
 * below it, where those are faster (results/kernel-bounds.md, "Gemm families"). */
enum { CIOT_TL2_SLICES_MIN_BATCH_AVX512 = 8 };

/* The gemm from its .mac_batch activation rows on: each slice decoded once for the pass's rows; below it the same
 * method per activation row (ciot_lut_gemm), each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl2, avx512vnni, ciot_act_q8_K, CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA,
                          CIOT_MAC_AVX512VNNI, CIOT_TL2_SLICES_MIN_BATCH_AVX512, CIOT_MAC_AVX512VNNI,
                          (ciot_tl2_slices_gemm(mm, first, count, CIOT_TL16_DOT_ROWS_AVX512, ciot_slice_block_avx512vnni)));
