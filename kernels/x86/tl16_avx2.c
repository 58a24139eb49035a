#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl16_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: TL16 tiles (256 rows x 128 weights, formats.h) times Q8_0 activations by 16-entry table lookups:
 * one vpshufb per plane looks up 32 rows' 3-trit groups, vpsignb applies their sign bits
 * (tl16_sums_avx2.h). Float order of kernels/formats.md (PTQ1_0): four lanes per row, one fmaf per Q8_0
 * block. K % 128 == 0, rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"
#include "tl16_dot_avx2.h"
#include "tl16_sums_avx2.h"

/* Tables of one 128-block: per sub-block q, and the fp32 scales of its Q8_0 blocks. */
typedef struct {
    ciot_tl16_tables_avx2 t[4];
    float dy[4];
} block_tables;

static void build(const void *x, int i, void *tables) {
    const block_q8_0 *y = (const block_q8_0 *)x + 4 * (size_t)i;
    block_tables *tb = tables;
    for (int q = 0; q < 4; q++) {
        ciot_tl16_build_avx2(y[q].qs, &tb->t[q]);
        tb->dy[q] = _cvtsh_ss(y[q].d);
    }
}

/* The int32 lanes of vpmaddwd by (1, 0) and (0, 1) on the sums' int16 vectors s[0] (rows 0-7 | 16-23) and s[1]
 * (rows 8-15 | 24-31): vector k holds rows 8 (k >> 1) + (k & 1) + 2j (j = 0..3) in its low lane and 16 more in
 * its high lane. No shuffle: the row scales are permuted to match once per 32 rows (four sub-blocks), the
 * results back once per tile. */
static inline void rows_permuted(const __m256 d[4], __m256 p[4]) {
    for (int h = 0; h < 2; h++) {
        const __m256 a = _mm256_permute2f128_ps(d[h], d[h + 2], 0x20), b = _mm256_permute2f128_ps(d[h], d[h + 2], 0x31);
        p[2 * h] = _mm256_shuffle_ps(a, b, 0x88), p[2 * h + 1] = _mm256_shuffle_ps(a, b, 0xdd);
    }
}

/* One 128-block of a tile for nr activation rows: eight vectors v of 32 rows; acc[v][q][k] of row r's state
 * = float lanes of the rows of rows_permuted's vector k. The nibbles and signs are decoded once for all nr
 * rows. */
static inline __attribute__((always_inline)) void step(const block_tl16 *w, const void *const *tables,
                                                       void *const *states, int nr, size_t prefetch) {
    for (int v = 0; v < 8; v++) {
        ciot_prefetch(&w->v[v], sizeof w->v[v], prefetch); /* the block slice by slice, as it is read */
        __m256 d[4], dw[4];
        for (int k = 0; k < 4; k++) d[k] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w->v[v].d + 8 * k)));
        rows_permuted(d, dw);
        _Pragma("clang loop unroll(disable)") for (int q = 0; q < 4; q++) { /* unrolled, it spills */
            __m256i s[CIOT_LUT_ROWS][2];
            const ciot_tl16_tables_avx2 *t[CIOT_LUT_ROWS];
            for (int r = 0; r < nr; r++) {
                t[r] = &((const block_tables *)tables[r])->t[q];
            }
            ciot_tl16_subblock_rows_avx2(w, q, v, t, nr, s); /* the sub-block's isum, within +-32 * 127 */
            for (int r = 0; r < nr; r++) {
                __m256(*acc)[4][4] = states[r];
                const __m256i e = _mm256_set1_epi32(1), o = _mm256_set1_epi32(1 << 16);
                const __m256i isum[4] = {_mm256_madd_epi16(s[r][0], e), _mm256_madd_epi16(s[r][0], o),
                                         _mm256_madd_epi16(s[r][1], e), _mm256_madd_epi16(s[r][1], o)};
                const __m256 dy = _mm256_set1_ps(((const block_tables *)tables[r])->dy[q]);
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
    for (int v = 0; v < 8; v++) {
        __m256 a[4];
        for (int k = 0; k < 4; k++) /* (acc0 + acc1) + (acc2 + acc3) */
            a[k] = _mm256_add_ps(_mm256_add_ps(acc[v][0][k], acc[v][1][k]), _mm256_add_ps(acc[v][2][k], acc[v][3][k]));
        for (int h = 0; h < 2; h++) { /* rows 8h .. 8h + 7 and 16 more, back in order */
            const __m256 lo = _mm256_unpacklo_ps(a[2 * h], a[2 * h + 1]), hi = _mm256_unpackhi_ps(a[2 * h], a[2 * h + 1]);
            _mm256_storeu_ps(y + 32 * v + 8 * h, _mm256_permute2f128_ps(lo, hi, 0x20));
            _mm256_storeu_ps(y + 32 * v + 8 * h + 16, _mm256_permute2f128_ps(lo, hi, 0x31));
        }
    }
}

CIOT_LUT_METHOD(CIOT_TL16_GROUP, block_tables, __m256[8][4][4], block_tl16, run_rows);

/* The gemm from its .mac_batch activation rows on: each 32-row slice of a block decoded once into weights for the
 * whole batch, which vpmaddubsw multiplies (tl16_dot_avx2.h); below it the lookups above, the decoding once per 4
 * rows (run_rows). Either way each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl16, avx2, ciot_act_q8_0, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_MAC_LOOKUP, CIOT_TL16_DOT_MIN_BATCH,
                          CIOT_MAC_AVX2_I16_B32,
                          (ciot_tl16_dot_gemm_avx2(mm, first, count, ciot_act_bytes(&ciot_act_q8_0, 1, mm->K), 0)));
