/* TL16 as the slices of slices_gemm_loop_avx2.h (included by *_avx2.c and tl16_dot_avx512vnni.h,
 * tl16_dot_avxvnni.h), shared by the TL16 gemms of PTQ1_0 and TQ1_0: a 32-row slice of a 128-block is decoded
 * once into its weights (-1, 0, 1 as int8), and every activation row then multiplies it, as T2P's gemm does on
 * its codes. A table lookup serves one activation row; these weights serve the whole batch, so at batch 64 the
 * decoding is 1/64 of a weight's cost (kernels/README.md, "TL16, AVX2"). */
#ifndef CIOT_X86_TL16_DOT_AVX2_H
#define CIOT_X86_TL16_DOT_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "slices_gemm_loop_avx2.h"
#include "tl16_sums_avx2.h"

#define CIOT_TL16_TW(n) {CIOT_L16(CIOT_TL16_W##n, 0), CIOT_L16(CIOT_TL16_W##n, 0)}
#define CIOT_TL16_TP(n) {CIOT_L16(CIOT_TL3_PAIR_W##n, 0), CIOT_L16(CIOT_TL3_PAIR_W##n, 0)}
/* weight n of a group by its magnitude nibble (0 for 14, 15), and of the pair by its code */
static const int8_t ciot_tl16_tw_avx2[3][32] __attribute__((aligned(32))) = {CIOT_TL16_TW(0), CIOT_TL16_TW(1),
                                                                             CIOT_TL16_TW(2)};
static const int8_t ciot_tl16_tp_avx2[2][32] __attribute__((aligned(32))) = {CIOT_TL16_TP(0), CIOT_TL16_TP(1)};
#undef CIOT_TL16_TW
#undef CIOT_TL16_TP

/* Weights 3g .. 3g + 2 of 32 rows (byte j: row j) from the group's nibbles m and sign operand op (bit 7: the
 * sign; 0 only where m is 0, whose weights are 0), the scheme of ciot_tl16_subblock_rows_avx2. */
static inline __attribute__((always_inline)) void ciot_tl16_group_weights_avx2(__m256i m, __m256i op, __m256i *t) {
    for (int n = 0; n < 3; n++)
        t[n] = _mm256_sign_epi8(_mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)ciot_tl16_tw_avx2[n]), m), op);
}

/* Sub-block q of slice v of block b into out->w[q] and out->corr[q]. */
static inline void ciot_tl16_decode_subblock_avx2(const block_tl16 *b, int v, int q, ciot_slice_avx2 *out) {
    const __m256i c15 = _mm256_set1_epi8(15), one = _mm256_set1_epi8(1);
    __m256i t[32]; /* t[k]: weight k of the sub-block, 32 rows */
    const __m256i S = _mm256_loadu_si256((const __m256i *)b->v[v].sb[q].sg);
    __m256i op = _mm256_or_si256(S, one); /* group 7's sign operand; doubled bytewise for 6, 5, .., 1 */
    for (int j = 3; j >= 0; j--) {
        const __m256i code = _mm256_loadu_si256((const __m256i *)b->v[v].sb[q].qs[j]);
        const __m256i mh = _mm256_and_si256(_mm256_srli_epi16(code, 4), c15), ml = _mm256_and_si256(code, c15);
        ciot_tl16_group_weights_avx2(mh, op, t + 3 * (2 * j + 1));
        op = _mm256_add_epi8(op, op);
        ciot_tl16_group_weights_avx2(ml, j ? op : _mm256_or_si256(ml, _mm256_slli_epi16(S, 7)), t + 3 * (2 * j));
        op = _mm256_add_epi8(op, op);
    }
    {
        const __m256i code = _mm256_loadu_si256((const __m256i *)b->v[v].sb[q].qs[4]);
        const __m256i X = _mm256_loadu_si256((const __m256i *)b->v[v].sx), X1 = _mm256_or_si256(X, one);
        const __m256i m8 = _mm256_and_si256(code, c15), m9 = _mm256_and_si256(_mm256_srli_epi16(code, 4), c15);
        const __m256i *mul = (const __m256i *)ciot_tl16_sx_mul_avx2[q];
        const __m256i op8 = q ? _mm256_mullo_epi16(X1, _mm256_loadu_si256(mul)) : _mm256_or_si256(m8, _mm256_slli_epi16(X, 7));
        ciot_tl16_group_weights_avx2(m8, op8, t + 24);
        ciot_tl16_group_weights_avx2(m9, _mm256_mullo_epi16(X1, _mm256_loadu_si256(mul + 1)), t + 27);
    }
    const __m256i n = _mm256_loadu_si256((const __m256i *)b->v[v].qn[q >> 1]);
    const __m256i c = _mm256_and_si256(q & 1 ? _mm256_srli_epi16(n, 4) : n, c15);
    t[30] = _mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)ciot_tl16_tp_avx2[0]), c);
    t[31] = _mm256_shuffle_epi8(_mm256_load_si256((const __m256i *)ciot_tl16_tp_avx2[1]), c);
    ciot_slice_subblock_avx2(t, q, out);
}

/* Slice v of block b: its weights, sums and row scales (fp32, in the lanes of w). */
static inline void ciot_tl16_decode_avx2(const block_tl16 *b, int v, ciot_slice_avx2 *out) {
    _Pragma("clang loop unroll(disable)") for (int q = 0; q < 4; q++) ciot_tl16_decode_subblock_avx2(b, v, q, out);
    ciot_slice_scales_avx2(b->v[v].d, out);
}

/* The gemms take the decoded slices from this batch on, the lookups below it: the lookups' rate is flat in the
 * batch, the slices' grows with it and passes them here (results/kernel-bounds.md, "TL16"). */
enum { CIOT_TL16_DOT_MIN_BATCH = 16 };

static inline void ciot_tl16_decode_block_avx2(const void *block, int v, ciot_slice_avx2 *out) {
    ciot_tl16_decode_avx2((const block_tl16 *)block, v, out);
}

/* The gemms take the decoded slices from this batch on, the lookups below it: the lookups' rate is flat in the
 * batch, the slices' grows with it and passes them here (results/kernel-bounds.md, "TL16"). */
_Static_assert(sizeof(block_tl16) == 8 * sizeof(((block_tl16 *)0)->v[0]), "a TL16 slice is an eighth of its block");
static const ciot_slice_layout ciot_slices_tl16 = {sizeof(block_tl16), CIOT_TL16_GROUP, ciot_tl16_decode_block_avx2};

/* TL16's loop (tq1: 0 for PTQ1_0, 1 for TQ1_0: the orders per 32 and per 256). */
static inline __attribute__((always_inline)) void ciot_tl16_dot_gemm_loop(const ciot_mm *mm, int first, int count,
                                                                          size_t x_row_bytes, const int tq1,
                                                                          const int rows, ciot_slice_block_fn *block) {
    ciot_slices_gemm_loop(mm, first, count, ciot_slices_tl16, x_row_bytes, tq1, rows, block);
}

/* AVX2's: two rows per vpmaddubsw step (more spill the accumulators). */
static inline __attribute__((always_inline)) void ciot_tl16_dot_gemm_avx2(const ciot_mm *mm, int first, int count,
                                                                          size_t x_row_bytes, const int tq1) {
    ciot_tl16_dot_gemm_loop(mm, first, count, x_row_bytes, tq1, 2, ciot_slice_block_avx2);
}

#endif
