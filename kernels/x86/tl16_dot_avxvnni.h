/* The decoded slices of slices_gemm_loop_avx2.h multiplied with AVX-VNNI (included only by *_avxvnni.c):
 * vpdpbusd on ymm adds 32 products of a biased activation (x + 128, unsigned) and a weight into int32 lanes, where AVX2
 * spends a vpmaddubsw and a vpaddw on 16 and widens once per sub-block: no int16 bound, no widening. The
 * slices, their loops and the float steps are AVX2's (ciot_slice_block_with). */
#ifndef CIOT_X86_TL16_DOT_AVXVNNI_H
#define CIOT_X86_TL16_DOT_AVXVNNI_H

#include <immintrin.h>
#include "tl16_dot_avx2.h"

/* The gemms on slices with AVX-VNNI take them from these batches on, the other paths below, where those are
 * as fast or faster (results/kernel-bounds.md, "Gemm families"). T2P's: its own VNNI tiles (t2p_gemm_avxvnni)
 * or the AVX2 8 x 4 tile (t2p_tq2_gemm_avxvnni). TL16's: the AVX2 gemm's lookups. */
enum { CIOT_T2P_SLICES_MIN_BATCH_AVXVNNI = 16, CIOT_TL16_DOT_MIN_BATCH_AVXVNNI = 12 };

/* isum[c][g] of sub-block q for nc (1 or 2) activation rows, as ciot_slice_dot_avx2: each sum starts at -128 x
 * the row's weight sum, then sum (x + 128) w. Two rows per weight load: their eight int32 chains and the
 * weights fill the 16 ymm registers. */
static inline __attribute__((always_inline)) void ciot_slice_dot_avxvnni(const ciot_slice_avx2 *sl, int q,
                                                                        const uint8_t *const *xb, int nc,
                                                                        __m256i (*isum)[4]) {
    __m256i acc[2][4];
    for (int g = 0; g < 4; g++) {
        const __m256i start = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_load_si256(&sl->corr[q][g]));
        for (int c = 0; c < nc; c++) acc[c][g] = start;
    }
    _Pragma("clang loop unroll(full)") for (int s = 0; s < 8; s++) {
        __m256i x[2];
        ciot_slice_bcast_avx2(xb, nc, s, x);
        for (int g = 0; g < 4; g++) {
            const __m256i w = _mm256_load_si256(&sl->w[q][s][g]);
            for (int c = 0; c < nc; c++) acc[c][g] = _mm256_dpbusd_avx_epi32(acc[c][g], x[c], w);
        }
    }
    for (int c = 0; c < nc; c++)
        for (int g = 0; g < 4; g++) isum[c][g] = acc[c][g];
}

/* The AVX-VNNI block: ciot_slice_block_avx2 with vpdpbusd. */
static inline __attribute__((always_inline)) void ciot_slice_block_avxvnni(const ciot_slice_avx2 *sl, int i,
                                                                              const uint8_t *const *xb,
                                                                              const float *const *dy,
                                                                              ciot_slice_state *const *st, int nc,
                                                                              const int order) {
    ciot_slice_block_with(sl, i, xb, dy, st, nc, order, ciot_slice_dot_avxvnni);
}

#endif
