#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VBMI__) || \
    !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "tl3_avx512vbmi.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vbmi.c)"
#endif
/* The gemv: TL3 tiles (256 rows x 128 weights, formats.h) times Q8_0 activations by table lookup.
 * For each 5-activation group the kernel builds T[m] = sum_n (u_n(m) - 1) a_n, m = 0..127, split as
 * T = 32 h + l (l in 0..31) into two 128-byte planes; one vpermi2b per plane then looks up 64 rows' group
 * codes at once (bit 7 of a code, ignored by the permute, negates: -T = 32 ~h + (l ^ 31) + 1). Pair codes
 * use 16-entry vpshufb tables. Float order of kernels/formats.md: per row, four lanes (one per Q8_0 block of
 * the 128-weight block), then (a0 + a1) + (a2 + a3). K % 128 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_avx512vnni.h"
#include "prefetch.h"
#include "tl3_dot_avx512vbmi.h"
#include "tl3_sums_avx512vbmi.h"

typedef struct {
    ciot_tl3_tables_avx512vbmi t;
    float dy[4]; /* fp32 scale of each Q8_0 block */
} block_tables;  /* 6336 bytes */

/* One sub-block's byte sums of 64 rows -> exact int32 isums -> acc[v] = fmaf(isum, d_w * d_y, acc[v]).
 * al = 6 + sum l' - (positive groups), ah = 128 + sum h' (ciot_tl3_subblock_sums_avx512vbmi): isum = al + 32 ah - 4096. */
static inline void finish_subblock(__m512i al, __m512i ah, const __m512 dws[4], float dy, __m512 *acc) {
    __m512i isum[4];
    for (int v = 0; v < 4; v++) isum[v] = _mm512_set1_epi32(-128 * 32);
    ciot_lut_widen_avx512vnni(al, ah, isum);
    const __m512 y = _mm512_set1_ps(dy);
    for (int v = 0; v < 4; v++) acc[v] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[v]), _mm512_mul_ps(dws[v], y), acc[v]);
}

/* One 128-block of a tile (256 rows: four 64-row vectors s): acc[s][q][v] are the float lanes of rows
 * 64s + ciot_lut_row_avx512vnni(v, d) for Q8_0 block q. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    __m512(*acc)[4][4] = state;
    __m512 dws[4][4];
    /* the prefetch policy, spread over the block: each part just before it is read */
    ciot_prefetch(w->d, sizeof w->d, prefetch);
    for (int v = 0; v < 4; v++) ciot_lut_row_scales_avx512vnni(w->d + 64 * v, dws[v]);
    for (int q = 0; q < 4; q++) {
        __m512i al[4], ah[4];
        ciot_tl3_subblock_sums_avx512vbmi(w, &tb->t, q, prefetch, al, ah);
        for (int v = 0; v < 4; v++) finish_subblock(al[v], ah[v], dws[v], tb->dy[q], acc[v][q]);
    }
}

static void build(const void *x, int i, void *tables) {
    const block_q8_0 *y = (const block_q8_0 *)x + 4 * (size_t)i;
    block_tables *tb = tables;
    for (int q = 0; q < 4; q++) ciot_tl3_build_subblock_avx512vbmi(y[q].qs, q, &tb->t), tb->dy[q] = _cvtsh_ss(y[q].d);
}

static void finish(const void *state, float *y) {
    const __m512(*acc)[4][4] = state;
    for (int v = 0; v < 4; v++) {
        __m512 s[4];
        for (int u = 0; u < 4; u++) /* (acc0 + acc1) + (acc2 + acc3) */
            s[u] = _mm512_add_ps(_mm512_add_ps(acc[v][0][u], acc[v][1][u]), _mm512_add_ps(acc[v][2][u], acc[v][3][u]));
        ciot_lut_store_avx512vnni(s, y + 64 * v);
    }
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_tables, __m512[4][4][4], block_tl3, NULL);

/* From this batch on the gemm decodes, where the decoded quarters pass the lookups (results/kernel-bounds.md,
 * "TL3"). */
enum { CIOT_TL3_DOT_MIN_BATCH = 16 };

/* The gemm from its .mac_batch activation rows on: each 64-row quarter of a block decoded once into weights for the
 * whole batch, which vpdpbusd multiplies (tl3_dot_avx512vbmi.h); below it the same lookups per row (ciot_lut_gemm).
 * Either way each row in the gemv's float order. */
CIOT_LUT_KERNELS_BY_BATCH(tl3, avx512vbmi, ciot_act_q8_0, CIOT_F_AVX512VBMI | CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA,
                          CIOT_MAC_LOOKUP, CIOT_TL3_DOT_MIN_BATCH, CIOT_MAC_AVX512VNNI_B32,
                          (ciot_tl3_dot_gemm_avx512vbmi(mm, first, count, ciot_act_bytes(&ciot_act_q8_0, 1, mm->K), 0)));
