/* TL2 as multiply-add operands (included by *_avx2.c and above), for the TL2 gemms at larger batches: slice v
 * of a block (rows 32v .. 32v + 31 of its 256-row tile) decoded once into the weights u - 1 (-1..2 as int8) in
 * the slices of slices_gemm_loop_avx2.h, which every activation row of the batch then multiplies through its loop
 * (ciot_slices_gemm_loop). The lookups, and TL2's dot-product gemv, redo their work for every activation row. */
#ifndef CIOT_X86_TL2_SLICES_AVX2_H
#define CIOT_X86_TL2_SLICES_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include "formats.h"
#include "slices_gemm_loop_avx2.h"

/* Weight u - 1 of a nibble's bit pair 0 and bit pair 1 (code 3 is +2, as in PQ2_0). */
#define CIOT_TL2_PAIR0(n) ((int8_t)(((n) & 3) - 1))
#define CIOT_TL2_PAIR1(n) ((int8_t)(((n) >> 2) - 1))
static const int8_t ciot_tl2_pair_avx2[2][32] __attribute__((aligned(32))) = {
    {CIOT_L16(CIOT_TL2_PAIR0, 0), CIOT_L16(CIOT_TL2_PAIR0, 0)}, {CIOT_L16(CIOT_TL2_PAIR1, 0), CIOT_L16(CIOT_TL2_PAIR1, 0)}};
#undef CIOT_TL2_PAIR0
#undef CIOT_TL2_PAIR1

/* Slice v in slices_gemm_loop_avx2.h's lane order (w[q][s][g]: rows 4g .. 4g + 3 and 16 + 4g .. 16 + 4g + 3, each row's
 * weights 32q + 4s .. + 3 in one dword). Byte j = 8q + s of row r (plane j, README.md) holds exactly those four
 * weights in its bit pairs: each pair becomes a byte by a nibble lookup (vpshufb), and two rounds of unpacks
 * put a row's four bytes in one dword, rows in the lane order. */
static inline void ciot_tl2_decode_slice_avx2(const void *block, int v, ciot_slice_avx2 *out) {
    const block_tl2 *b = block;
    const __m256i c15 = _mm256_set1_epi8(15);
    const __m256i p0 = _mm256_load_si256((const __m256i *)ciot_tl2_pair_avx2[0]);
    const __m256i p1 = _mm256_load_si256((const __m256i *)ciot_tl2_pair_avx2[1]);
    for (int q = 0; q < 4; q++) {
        __m256i sum[4]; /* per byte within -8..16 */
        for (int s = 0; s < 8; s++) {
            const __m256i P = _mm256_loadu_si256((const __m256i *)(b->qs[8 * q + s] + 32 * v)); /* byte: row */
            const __m256i lo = _mm256_and_si256(P, c15), hi = _mm256_and_si256(_mm256_srli_epi16(P, 4), c15);
            /* weights 4j + n of every row, n = 0..3 */
            const __m256i t[4] = {_mm256_shuffle_epi8(p0, lo), _mm256_shuffle_epi8(p1, lo), _mm256_shuffle_epi8(p0, hi),
                                  _mm256_shuffle_epi8(p1, hi)};
            __m256i w[4];
            ciot_slice_lanes_avx2(t, w);
            for (int g = 0; g < 4; g++) {
                _mm256_store_si256(&out->w[q][s][g], w[g]);
                sum[g] = s ? _mm256_add_epi8(sum[g], w[g]) : w[g];
            }
        }
        for (int g = 0; g < 4; g++) out->corr[q][g] = ciot_slice_corr_avx2(sum[g]);
    }
    ciot_slice_scales_avx2(b->d + 32 * v, out);
}

_Static_assert(sizeof(block_tl2) % 8 == 0, "the loop prefetches a TL2 block in eighths");
static const ciot_slice_layout ciot_slices_tl2 = {sizeof(block_tl2), CIOT_TL2_GROUP, ciot_tl2_decode_slice_avx2};

/* The TL2 gemm on slices: PQ2_0's float order (one fmaf per 128-block) on Q8_K rows, rows activation rows per
 * weight load through block (AVX2's vpmaddubsw: 2; AVX-512 VNNI's vpdpbusd: 4). */
static inline __attribute__((always_inline)) void ciot_tl2_slices_gemm(const ciot_mm *mm, int first, int count,
                                                                       const int rows, ciot_slice_block_fn *block) {
    ciot_slices_gemm_loop(mm, first, count, ciot_slices_tl2, ciot_act_bytes(&ciot_act_q8_K, 1, mm->K), CIOT_DOT_PER128,
                          rows, block);
}

#endif
