#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VBMI__) || \
    !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_tq1_avx512vbmi.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vbmi.c)"
#endif
/* The gemv: TQ1_0 in TL3's bytes (layout tl3_tq1: 256-block q of a row = TL3 128-blocks 2q and
 * 2q + 1, both carrying its scale) times Q8_K activations, by the TL3 lookups of tl3_sums_avx512vbmi.h with tables
 * built from the Q8_K row's int8 values. TQ1_0's float order (kernels/README-tq.md): the 256-block's eight
 * sub-block sums are added as integers (16-bit, modulo 2^16, exact), then one fmaf per row with block
 * 2q + 1's scales. K % 256 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_avx512vnni.h"
#include "prefetch.h"
#include "tl3_dot_avx512vbmi.h"
#include "tl3_sums_avx512vbmi.h"

typedef struct {
    ciot_tl3_tables_avx512vbmi t;
    float dy;  /* the Q8_K scale of the 256-block */
    int half;  /* 0: its weights 0..127, 1: 128..255 */
} block_tables;

/* One tile's state between the two halves of a 256-block and across blocks. */
typedef struct {
    __m512i s[4][2];  /* 64-row vector v: isum + 32768 so far, 16-bit lanes (ciot_lut_sum16_avx512vnni's order) */
    __m512 acc[4][4]; /* rows 64v + ciot_lut_row_avx512vnni(u, d) */
} tile_state;

static void build(const void *x, int i, void *tables) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_tables *tb = tables;
    for (int q = 0; q < 4; q++) ciot_tl3_build_subblock_avx512vbmi(y->qs + CIOT_QK * (i & 1) + 32 * q, q, &tb->t);
    tb->dy = y->d, tb->half = i & 1;
}

/* One 128-block (half) of a tile: 256 rows as four 64-row vectors v. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    tile_state *st = state;
    /* 16-bit sums over the 256-block's eight sub-blocks of al + 32 ah = isum_sub + 4096 (ciot_tl3_subblock_sums_avx512vbmi):
     * isum + 32768, and |isum| <= 256 * 127 = 32512, so the sum is in 256..65280 and exact modulo 2^16 */
    __m512i s[4][2];
    for (int v = 0; v < 4; v++)
        for (int j = 0; j < 2; j++) s[v][j] = tb->half ? st->s[v][j] : _mm512_setzero_si512();
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int q = 0; q < 4; q++) {
        __m512i al[4], ah[4];
        ciot_tl3_subblock_sums_avx512vbmi(w, &tb->t, q, prefetch, al, ah);
        for (int v = 0; v < 4; v++) ciot_lut_sum16_avx512vnni(al[v], ah[v], s[v]);
    }
    if (!tb->half) {
        for (int v = 0; v < 4; v++) st->s[v][0] = s[v][0], st->s[v][1] = s[v][1];
        return;
    }
    const __m512 dy = _mm512_set1_ps(tb->dy);
    for (int v = 0; v < 4; v++) ciot_lut_fma16_avx512vnni(w->d + 64 * v, s[v], dy, st->acc[v]); /* block 2q + 1's scales */
}

static void finish(const void *state, float *y) {
    const tile_state *st = state;
    for (int v = 0; v < 4; v++) ciot_lut_store_avx512vnni(st->acc[v], y + 64 * v);
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_tables, tile_state, block_tl3, NULL);

/* From this batch on the gemm decodes: TQ1_0's lookups are faster than PTQ1_0's (one float step per 256
 * weights), so the decoded quarters pass them only at a larger batch (results/kernel-bounds.md, "TL3"). */
enum { CIOT_TL3_TQ1_DOT_MIN_BATCH = 64 };

/* The gemm from its .mac_batch activation rows on: each 64-row quarter of a block decoded once into weights for the
 * whole batch, which vpdpbusd multiplies (tl3_dot_avx512vbmi.h); below it the same lookups per row (ciot_lut_gemm).
 * Either way each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl3_tq1, avx512vbmi, ciot_act_q8_K,
                          CIOT_F_AVX512VBMI | CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, CIOT_MAC_LOOKUP,
                          CIOT_TL3_TQ1_DOT_MIN_BATCH, CIOT_MAC_AVX512VNNI,
                          (ciot_tl3_dot_gemm_avx512vbmi(mm, first, count, ciot_act_bytes(&ciot_act_q8_K, 1, mm->K), 1)));
