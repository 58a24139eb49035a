/* TL3 as multiply-add operands (included by *_avx2.c), for the TL3 gemms of PTQ1_0 and TQ1_0 at larger
 * batches: slice v of a block (rows 32v .. 32v + 31 of its 256-row tile) decoded once, by tl3_sums_avx2.h's
 * compares, into the weights u - 1 (-1..1 as int8) in the slices of slices_gemm_loop_avx2.h, which every activation
 * row of the batch then multiplies through its loop (ciot_slices_gemm_loop). Below that batch the TL3 AVX2
 * gemms decode the same trits once per four activation rows (ciot_lut_gemm), which costs them as much at
 * batch 64 as at 4. */
#ifndef CIOT_X86_TL3_SLICES_AVX2_H
#define CIOT_X86_TL3_SLICES_AVX2_H

#include <immintrin.h>
#include "formats.h"
#include "slices_gemm_loop_avx2.h"
#include "tl3_sums_avx2.h"

/* Slice v: sub-block q's weights 5g .. 5g + 4 are the five trits of group code sb[q].qs[g] (g = 0..5), weights
 * 30 and 31 the pair code in nibble v >> 2 of sb[q].qn (formats.h), each trit u (0..2) the weight u - 1. */
static inline void ciot_tl3_decode_slice_avx2(const void *block, int v, ciot_slice_avx2 *out) {
    const block_tl3 *b = block;
    const __m256i one = _mm256_set1_epi8(1), c15 = _mm256_set1_epi8(15);
    const __m256i t0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)ciot_tl3_pair_trits_avx2[0]));
    const __m256i t1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)ciot_tl3_pair_trits_avx2[1]));
    _Pragma("clang loop unroll(disable)") for (int q = 0; q < 4; q++) {
        __m256i t[32]; /* t[k]: weight k of the sub-block, 32 rows */
        for (int g = 0; g < 6; g++) {
            __m256i u[5];
            ciot_tl3_decode5_avx2(_mm256_loadu_si256((const __m256i *)(b->sb[q].qs[g] + 32 * v)), u);
            for (int n = 0; n < 5; n++) t[5 * g + n] = _mm256_sub_epi8(u[n], one);
        }
        const __m256i nb = _mm256_loadu_si256((const __m256i *)(b->sb[q].qn + 32 * (v & 3)));
        const __m256i c = _mm256_and_si256(v < 4 ? nb : _mm256_srli_epi16(nb, 4), c15);
        t[30] = _mm256_sub_epi8(_mm256_shuffle_epi8(t0, c), one);
        t[31] = _mm256_sub_epi8(_mm256_shuffle_epi8(t1, c), one);
        ciot_slice_subblock_avx2(t, q, out);
    }
    ciot_slice_scales_avx2(b->d + 32 * v, out);
}

/* The TL3 AVX2 gemms take the slices from this batch on, the per-4-rows decoding below it, where that is
 * faster (results/kernel-bounds.md, "TL3"). */
enum { CIOT_TL3_SLICES_MIN_BATCH_AVX2 = 5 };

_Static_assert(sizeof(block_tl3) % 8 == 0, "the loop prefetches a TL3 block in eighths");
static const ciot_slice_layout ciot_slices_tl3 = {sizeof(block_tl3), CIOT_TL3_GROUP, ciot_tl3_decode_slice_avx2};

/* The TL3 gemm on slices in the float order `order` (CIOT_DOT_PER32 on Q8_0 rows for PTQ1_0, CIOT_DOT_PER256
 * on Q8_K rows for TQ1_0), two activation rows per vpmaddubsw step, as tl16_gemm_avx2's. */
static inline __attribute__((always_inline)) void ciot_tl3_slices_gemm_avx2(const ciot_mm *mm, int first, int count,
                                                                            const ciot_act_format *act, const int order) {
    ciot_slices_gemm_loop(mm, first, count, ciot_slices_tl3, ciot_act_bytes(act, 1, mm->K), order, 2,
                          ciot_slice_block_avx2);
}

#endif
