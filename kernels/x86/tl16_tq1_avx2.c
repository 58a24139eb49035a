#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl16_tq1_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: TQ1_0 in TL16's bytes (layout tl16_tq1: 256-block q of a row = TL16 128-blocks 2q and 2q + 1,
 * both carrying its scale) times Q8_K activations, by the 16-entry lookups of tl16_sums_avx2.h. TQ1_0's
 * float order (kernels/README-tq.md): the eight sub-block sums of a 256-block added in int16 (every partial
 * sum within +-256 * 127, so exact), then one fmaf per row with block 2q + 1's scales. K % 256 == 0,
 * rows % 256 == 0. */
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"
#include "tl16_dot_avx2.h"
#include "tl16_sums_avx2.h"
#include "tq1_tile_avx2.h"

/* Tables of one 128-block (half of a Q8_K block). */
typedef struct {
    ciot_tl16_tables_avx2 t[4];
    int half;  /* 0: weights 0..127 of the 256-block, 1: 128..255 */
    float dy;  /* the Q8_K scale */
} block_tables;

/* One tile's state: the integer sums in this kernel's lanes (s), the float sums (acc). */
typedef ciot_tq1_tile_avx2 tile_state;

static void build(const void *x, int i, void *tables) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_tables *tb = tables;
    for (int q = 0; q < 4; q++) ciot_tl16_build_avx2(y->qs + CIOT_QK * (i & 1) + 32 * q, &tb->t[q]);
    tb->half = i & 1, tb->dy = y->d;
}

/* One 128-block (half) of a tile for nr activation rows: eight vectors v of 32 rows. */
static inline __attribute__((always_inline)) void step(const block_tl16 *w, const void *const *tables,
                                                       void *const *states, int nr, size_t prefetch) {
    const int half = ((const block_tables *)tables[0])->half; /* every row's 128-block i is the same half */
    for (int v = 0; v < 8; v++) {
        ciot_prefetch(&w->v[v], sizeof w->v[v], prefetch); /* the block slice by slice, as it is read */
        /* the 256-block's sums so far live in the tile state, not in registers, which the lookups need */
        for (int r = 0; r < nr; r++) {
            tile_state *st = states[r];
            if (!half) st->s[v][0] = st->s[v][1] = _mm256_setzero_si256();
        }
        _Pragma("clang loop unroll(disable)") for (int q = 0; q < 4; q++) {
            const ciot_tl16_tables_avx2 *t[CIOT_LUT_ROWS];
            __m256i s[CIOT_LUT_ROWS][2];
            for (int r = 0; r < nr; r++) t[r] = &((const block_tables *)tables[r])->t[q];
            ciot_tl16_subblock_rows_avx2(w, q, v, t, nr, s);
            for (int r = 0; r < nr; r++) { /* every partial sum within +-256 * 127: exact in int16 */
                tile_state *st = states[r];
                st->s[v][0] = _mm256_add_epi16(st->s[v][0], s[r][0]), st->s[v][1] = _mm256_add_epi16(st->s[v][1], s[r][1]);
            }
        }
        for (int r = 0; r < nr && half; r++) {
            tile_state *st = states[r];
            __m256i isum[4];
            ciot_tl16_isum_avx2(st->s[v], isum);
            ciot_tq1_step_avx2(st->acc[v], isum, w->v[v].d, ((const block_tables *)tables[r])->dy);
        }
    }
}

/* run (a gemv's one row) and run_rows (the gemm's 2 .. 4 rows, one decoding) */
CIOT_LUT_RUN_FROM_STEP(step, run, run_rows)

static void finish(const void *state, float *y) { ciot_tq1_tile_store_avx2(state, y); }

CIOT_LUT_METHOD(CIOT_TL16_GROUP, block_tables, tile_state, block_tl16, run_rows);

/* The gemm from its .mac_batch activation rows on: the decoded slices (as tl16_gemm_avx2); below it the lookups.
 * Either way each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl16_tq1, avx2, ciot_act_q8_K, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_MAC_LOOKUP,
                          CIOT_TL16_DOT_MIN_BATCH, CIOT_MAC_AVX2_I16,
                          (ciot_tl16_dot_gemm_avx2(mm, first, count, ciot_act_bytes(&ciot_act_q8_K, 1, mm->K), 1)));
