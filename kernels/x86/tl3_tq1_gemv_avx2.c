#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_tq1_gemv_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* tl3_tq1_gemv_avx2: TQ1_0 in TL3's bytes (layout tl3_tq1: 256-block q of a row = TL3 128-blocks 2q and
 * 2q + 1, both carrying its scale) times Q8_K activations, by the TL3 decoding of tl3_avx2.h (trits paired
 * and multiplied with vpmaddubsw). TQ1_0's float order (kernels/README-tq.md): u . a over the 256-block's
 * eight sub-blocks in 16 bits (modulo 2^16), minus the block's activation sum, is its exact isum; then one
 * fmaf per row with block 2q + 1's scales. K % 256 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"
#include "tl3_avx2.h"

/* Activations of one 128-block (half of a Q8_K block): per sub-block q in the order the trits are paired. */
typedef struct {
    uint8_t pairs[4][32];
    int16_t asum; /* sum of the Q8_K block's 256 activations: |asum| <= 256 * 127 */
    int half;     /* 0: weights 0..127 of the 256-block, 1: 128..255 */
    float dy;     /* the Q8_K scale */
} block_prep;

/* One tile's state between the two halves of a 256-block and across blocks. */
typedef struct {
    __m256i s[8][2];  /* rows 32v ..: u . a so far, modulo 2^16, in ciot_tl3_avx2_mac's lanes */
    __m256 acc[8][4]; /* rows 32v + 8k .. + 7 */
} tile_state;

static void build(const void *x, int i, void *prep) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_prep *p = prep;
    int s = 0;
    for (int q = 0; q < 4; q++) ciot_tl3_avx2_pairs(y->qs + CIOT_QK * (i & 1) + 32 * q, p->pairs[q]);
    for (int e = 0; e < CIOT_QK_K; e++) s += y->qs[e];
    p->asum = (int16_t)s, p->half = i & 1, p->dy = y->d;
}

/* One 128-block (half) of a tile: eight vectors v of 32 rows. */
static void run(const void *wp, const void *prep, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_prep *p = prep;
    tile_state *st = state;
    for (int v = 0; v < 8; v++) {
        ciot_prefetch((const char *)w + v * (sizeof *w / 8), sizeof *w / 8, prefetch); /* the block, in eighths */
        __m256i s[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        if (p->half) s[0] = st->s[v][0], s[1] = st->s[v][1];
        for (int q = 0; q < 4; q++) ciot_tl3_avx2_subblock(w, q, v, p->pairs[q], s);
        if (!p->half) {
            st->s[v][0] = s[0], st->s[v][1] = s[1];
            continue;
        }
        /* isum = u . a - sum a over the 256-block, within +-256 * 127: exact in int16 */
        __m256i isum[4];
        ciot_tl3_avx2_isum(s, p->asum, isum);
        const __m256 dy = _mm256_set1_ps(p->dy);
        for (int k = 0; k < 4; k++) {
            const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w->d + 32 * v + 8 * k)));
            st->acc[v][k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[k]), _mm256_mul_ps(dw, dy), st->acc[v][k]);
        }
    }
}

static void finish(const void *state, float *y) {
    const tile_state *st = state;
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(y + 32 * v + 8 * k, st->acc[v][k]);
}

static const ciot_lut_method method = {CIOT_TL3_GROUP, sizeof(block_prep), sizeof(tile_state), sizeof(block_tl3),
                                       build, run, finish, NULL};
_Static_assert(sizeof(block_prep) <= CIOT_LUT_TABLE_BUDGET, "a block's preparation fits");
_Static_assert(CIOT_TL3_GROUP * sizeof(tile_state) <= CIOT_LUT_STATE_BUDGET, "a group's state fits");
_Static_assert(sizeof(tile_state) % 64 == 0, "tile states stay 64-byte aligned");

static void tl3_tq1_gemv_avx2(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }

const ciot_kernel ciot_k_tl3_tq1_gemv_avx2 = {
    "tl3_tq1_gemv_avx2", &ciot_layout_tl3_tq1, &ciot_act_q8_K, CIOT_OP_GEMV, CIOT_F_AVX2 | CIOT_F_FMA, "tl3_tq1_gemv_ref",
    tl3_tq1_gemv_avx2,
};
