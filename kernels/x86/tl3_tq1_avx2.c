#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_tq1_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: TQ1_0 in TL3's bytes (layout tl3_tq1: 256-block q of a row = TL3 128-blocks 2q and
 * 2q + 1, both carrying its scale) times Q8_K activations, by the TL3 decoding of tl3_sums_avx2.h (trits paired
 * and multiplied with vpmaddubsw). TQ1_0's float order (kernels/README-tq.md): u . a over the 256-block's
 * eight sub-blocks in 16 bits (modulo 2^16), minus the block's activation sum, is its exact isum; then one
 * fmaf per row with block 2q + 1's scales. K % 256 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"
#include "tl3_slices_avx2.h"
#include "tl3_sums_avx2.h"
#include "tq1_tile_avx2.h"

/* Activations of one 128-block (half of a Q8_K block): per sub-block q in the order the trits are paired. */
typedef struct {
    uint8_t pairs[4][32];
    int16_t asum; /* sum of the Q8_K block's 256 activations: |asum| <= 256 * 127 */
    int half;     /* 0: weights 0..127 of the 256-block, 1: 128..255 */
    float dy;     /* the Q8_K scale */
} block_prep;

/* One tile's state: the integer sums in this kernel's lanes (s), the float sums (acc). */
typedef ciot_tq1_tile_avx2 tile_state;

static void build(const void *x, int i, void *prep) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_prep *p = prep;
    int s = 0;
    for (int q = 0; q < 4; q++) ciot_tl3_pairs_avx2(y->qs + CIOT_QK * (i & 1) + 32 * q, p->pairs[q]);
    for (int e = 0; e < CIOT_QK_K; e++) s += y->qs[e];
    p->asum = (int16_t)s, p->half = i & 1, p->dy = y->d;
}

/* One 128-block (half) of a tile for nr activation rows: eight vectors v of 32 rows. Each trit vector is
 * decoded once for all nr rows. */
static inline __attribute__((always_inline)) void step(const block_tl3 *w, const void *const *preps,
                                                       void *const *states, int nr, size_t prefetch) {
    const int half = ((const block_prep *)preps[0])->half; /* every row's 128-block i is the same half */
    for (int v = 0; v < 8; v++) {
        ciot_prefetch((const char *)w + v * (sizeof *w / 8), sizeof *w / 8, prefetch); /* the block, in eighths */
        __m256i s[CIOT_LUT_ROWS][2];
        for (int r = 0; r < nr; r++) {
            const tile_state *st = states[r];
            s[r][0] = half ? st->s[v][0] : _mm256_setzero_si256();
            s[r][1] = half ? st->s[v][1] : _mm256_setzero_si256();
        }
        for (int q = 0; q < 4; q++) {
            const uint8_t *pq[CIOT_LUT_ROWS];
            for (int r = 0; r < nr; r++) pq[r] = ((const block_prep *)preps[r])->pairs[q];
            ciot_tl3_subblock_rows_avx2(w, q, v, pq, nr, s);
        }
        for (int r = 0; r < nr; r++) {
            const block_prep *p = preps[r];
            tile_state *st = states[r];
            if (!half) {
                st->s[v][0] = s[r][0], st->s[v][1] = s[r][1];
                continue;
            }
            /* isum = u . a - sum a over the 256-block, within +-256 * 127: exact in int16 */
            __m256i isum[4];
            ciot_tl3_isum_avx2(s[r], p->asum, isum);
            ciot_tq1_step_avx2(st->acc[v], isum, w->d + 32 * v, p->dy);
        }
    }
}

/* run (a gemv's one row) and run_rows (the gemm's 2 .. 4 rows, one decoding) */
CIOT_LUT_RUN_FROM_STEP(step, run, run_rows)

static void finish(const void *state, float *y) { ciot_tq1_tile_store_avx2(state, y); }

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_prep, tile_state, block_tl3, run_rows);

/* The gemm from its .mac_batch activation rows on: the decoded slices (tl3_slices_avx2.h), as tl3_gemm_avx2; below
 * it the same decoding as the gemv, once per 4 rows (run_rows). Either way each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl3_tq1, avx2, ciot_act_q8_K, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_MAC_AVX2_I16,
                          CIOT_TL3_SLICES_MIN_BATCH_AVX2, CIOT_MAC_AVX2_I16,
                          (ciot_tl3_slices_gemm_avx2(mm, first, count, &ciot_act_q8_K, CIOT_DOT_PER256)));
