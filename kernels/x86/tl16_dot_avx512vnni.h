/* TL16 on decoded slices with AVX-512 VNNI (included only by *_avx512vnni.c), shared by the TL16 gemms of
 * PTQ1_0 and TQ1_0: the slices of tl16_dot_avx2.h (its decoding; slices_gemm_loop_avx2.h's loop and float
 * order), multiplied by vpdpbusd on zmm. Two of a slice's lane groups sit side by side in memory, so one zmm load takes 16 rows' four weights
 * each, and one vpdpbusd adds 64 products into int32 lanes: no int16 bound, no widening. */
#ifndef CIOT_X86_TL16_DOT_AVX512VNNI_H
#define CIOT_X86_TL16_DOT_AVX512VNNI_H

#include <immintrin.h>
#include "tl16_dot_avx2.h"

/* Below this many activation rows the AVX2 gemm's lookups (one decoding of the nibbles per 4 rows) are as fast
 * as decoding each slice for so few rows, or faster (results/kernel-bounds.md, "TL16"): the VNNI gemms run
 * them there. */
enum { CIOT_TL16_DOT_MIN_BATCH_AVX512 = 5 };

/* Activation rows per weight load: eight int32 chains of 8 dependent vpdpbusd each at 4. */
enum { CIOT_TL16_DOT_ROWS_AVX512 = 4 };

/* Block i of slice sl for nc (1 .. 4, a constant once inlined) activation rows, as ciot_slice_block_avx2:
 * zmm h holds the lanes of w's groups 2h and 2h + 1 (rows 8h .. 8h + 3, 8h + 16 .. 8h + 19 and the next four
 * of each), and so do the states (st[c][q][2h], [2h + 1]). Each sum starts at -128 x the row's weight sum. */
static inline __attribute__((always_inline)) void ciot_slice_block_avx512vnni(const ciot_slice_avx2 *sl, int i,
                                                                                 const uint8_t *const *xb,
                                                                                 const float *const *dy,
                                                                                 ciot_slice_state *const *st, int nc,
                                                                                 const int order) {
    const __m512 dw[2] = {_mm512_load_ps((const float *)&sl->dw[0]), _mm512_load_ps((const float *)&sl->dw[2])};
    __m512i tsum[CIOT_TL16_DOT_ROWS_AVX512][2]; /* per 128- or 256-block: the int32 sums */
    for (int q = 0; q < 4; q++) {
        __m512i acc[CIOT_TL16_DOT_ROWS_AVX512][2];
        for (int h = 0; h < 2; h++) {
            const __m512i corr = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_load_si512(&sl->corr[q][2 * h]));
            for (int c = 0; c < nc; c++) acc[c][h] = corr;
        }
        _Pragma("clang loop unroll(full)") for (int s = 0; s < 8; s++) {
            const __m512i w0 = _mm512_load_si512(&sl->w[q][s][0]), w1 = _mm512_load_si512(&sl->w[q][s][2]);
            for (int c = 0; c < nc; c++) {
                int32_t four;
                __builtin_memcpy(&four, xb[c] + 32 * q + 4 * s, 4);
                const __m512i x = _mm512_set1_epi32(four);
                acc[c][0] = _mm512_dpbusd_epi32(acc[c][0], x, w0);
                acc[c][1] = _mm512_dpbusd_epi32(acc[c][1], x, w1);
            }
        }
        for (int c = 0; c < nc; c++) {
            float *f = (float *)*st[c];
            if (order) { /* |sum| <= 256 * 2 * 128: exact */
                for (int h = 0; h < 2; h++)
                    tsum[c][h] = q ? _mm512_add_epi32(tsum[c][h], acc[c][h])
                                   : order == CIOT_DOT_PER256 && (i & 1) ? _mm512_add_epi32(_mm512_load_si512(f + 32 + 16 * h), acc[c][h])
                                                                       : acc[c][h];
            } else {
                const __m512 d = _mm512_set1_ps(dy[c][q]);
                for (int h = 0; h < 2; h++) {
                    float *p = f + 32 * q + 16 * h;
                    _mm512_store_ps(p, _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[c][h]), _mm512_mul_ps(dw[h], d), _mm512_load_ps(p)));
                }
            }
        }
    }
    if (order)
        for (int c = 0; c < nc; c++) {
            float *f = (float *)*st[c];
            if (order == CIOT_DOT_PER128 || (i & 1)) {
                const __m512 d = _mm512_set1_ps(dy[c][0]);
                for (int h = 0; h < 2; h++)
                    _mm512_store_ps(f + 16 * h, _mm512_fmadd_ps(_mm512_cvtepi32_ps(tsum[c][h]), _mm512_mul_ps(dw[h], d),
                                                                _mm512_load_ps(f + 16 * h)));
            } else {
                for (int h = 0; h < 2; h++) _mm512_store_si512(f + 32 + 16 * h, tsum[c][h]);
            }
        }
}

static inline __attribute__((always_inline)) void ciot_tl16_dot_gemm_avx512vnni(const ciot_mm *mm, int first, int count,
                                                                                size_t x_row_bytes, const int tq1) {
    ciot_tl16_dot_gemm_loop(mm, first, count, x_row_bytes, tq1, CIOT_TL16_DOT_ROWS_AVX512, ciot_slice_block_avx512vnni);
}

#endif
