#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: TL3 tiles (256 rows x 128 weights, formats.h) times Q8_0 activations without byte permutes
 * (AVX2 has no 128-entry lookup). A group code b of 32 rows is decoded to its five trits: V = b, or 370 - b
 * when bit 7 is set (the negated group, so no sign step follows), digit n by two signed compares of
 * V - 128 against 3^(4-n) and 2 * 3^(4-n); pair codes by two 16-entry vpshufb. Trits of one row are paired
 * by unpacking two trit vectors and multiplied with vpmaddubsw by the pair's two activations; u . a - sum a
 * is the sub-block's isum. Float order of kernels/formats.md (PTQ1_0). K % 128 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"
#include "tl3_slices_avx2.h"
#include "tl3_sums_avx2.h"

/* Activations of one 128-block: per sub-block q in the order the trits are paired (ciot_tl3_pairs_avx2). */
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
        int s = 0;
        ciot_tl3_pairs_avx2(a, p->pairs[q]);
        for (int e = 0; e < 32; e++) s += a[e];
        p->asum[q] = (int16_t)s;
        p->dy[q] = _cvtsh_ss(y[q].d);
    }
}

/* One 128-block of a tile for nr activation rows: eight vectors v of 32 rows; acc[v][q][k] of row r's state
 * = float lanes of rows 32v + 8k .. + 7. Each trit vector is decoded once for all nr rows. */
static inline __attribute__((always_inline)) void step(const block_tl3 *w, const void *const *preps,
                                                       void *const *states, int nr, size_t prefetch) {
    for (int v = 0; v < 8; v++) {
        ciot_prefetch((const char *)w + v * (sizeof *w / 8), sizeof *w / 8, prefetch); /* the block, in eighths */
        __m256 dw[4];
        for (int k = 0; k < 4; k++) dw[k] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w->d + 32 * v + 8 * k)));
        for (int q = 0; q < 4; q++) {
            __m256i s[CIOT_LUT_ROWS][2];
            const uint8_t *pq[CIOT_LUT_ROWS];
            for (int r = 0; r < nr; r++) {
                s[r][0] = s[r][1] = _mm256_setzero_si256();
                pq[r] = ((const block_prep *)preps[r])->pairs[q];
            }
            ciot_tl3_subblock_rows_avx2(w, q, v, pq, nr, s);
            for (int r = 0; r < nr; r++) {
                const block_prep *p = preps[r];
                __m256(*acc)[4][4] = states[r];
                __m256i isum[4];
                ciot_tl3_isum_avx2(s[r], p->asum[q], isum); /* u . a - sum a, within +-32 * 127 */
                const __m256 dy = _mm256_set1_ps(p->dy[q]);
                for (int k = 0; k < 4; k++)
                    acc[v][q][k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[k]), _mm256_mul_ps(dw[k], dy), acc[v][q][k]);
            }
        }
    }
}

/* run (a gemv's one row) and run_rows (the gemm's 2 .. 4 rows, one decoding) */
CIOT_LUT_RUN_FROM_STEP(step, run, run_rows)

static void finish(const void *state, float *y) {
    const __m256(*acc)[4][4] = state;
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 4; k++) /* (acc0 + acc1) + (acc2 + acc3) */
            _mm256_storeu_ps(y + 32 * v + 8 * k, _mm256_add_ps(_mm256_add_ps(acc[v][0][k], acc[v][1][k]),
                                                               _mm256_add_ps(acc[v][2][k], acc[v][3][k])));
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_prep, __m256[8][4][4], block_tl3, run_rows);

/* The gemm from its .mac_batch activation rows on: each 32-row slice of a block decoded once for the whole batch
 * (tl3_slices_avx2.h); below it the same decoding as the gemv, once per 4 rows (run_rows). Either way each row in
 * the gemv's float order, with vpmaddubsw in int16. */
CIOT_LUT_KERNELS_BY_BATCH(tl3, avx2, ciot_act_q8_0, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_MAC_AVX2_I16_B32,
                          CIOT_TL3_SLICES_MIN_BATCH_AVX2, CIOT_MAC_AVX2_I16_B32,
                          (ciot_tl3_slices_gemm_avx2(mm, first, count, &ciot_act_q8_0, CIOT_DOT_PER32)));
