/* The activation side of the gemms on decoded weights (slices_gemm_loop_avx2.h, tl16_dot_avx512vnni.h,
 * tl3_dot_avx512vbmi.h; included by *_avx2.c and above): a pass's rows of one 128-block biased for the
 * unsigned operand, and a pass's rows split into the groups one weight load serves. */
#ifndef CIOT_X86_DOT_ROWS_AVX2_H
#define CIOT_X86_DOT_ROWS_AVX2_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include "formats.h"
#include "kernel.h"

/* Block i (128 weights) of activation rows c0 .. c0 + nc - 1 (x_row_bytes each: Q8_0 rows, or for TQ1_0 (tq1)
 * Q8_K rows, whose 256-block i >> 1 holds it as half i & 1): their values biased by 128 (x ^ 0x80: the
 * unsigned operand of vpmaddubsw and vpdpbusd) into xb[c], their scales into dy[c] (Q8_0: the four blocks'
 * d; Q8_K: its d in dy[c][0]). */
static inline __attribute__((always_inline)) void ciot_dot_bias_rows_avx2(const ciot_mm *mm, size_t x_row_bytes, int c0,
                                                                          int nc, int i, const int tq1,
                                                                          uint8_t (*xb)[128], float (*dy)[4]) {
    const __m256i bias = _mm256_set1_epi8((char)0x80);
    for (int c = 0; c < nc; c++) {
        const unsigned char *x = (const unsigned char *)mm->x + (size_t)(c0 + c) * x_row_bytes;
        for (int q = 0; q < 4; q++) {
            const int8_t *a;
            if (tq1) a = ((const block_q8_K *)x + (i >> 1))->qs + 128 * (i & 1) + 32 * q;
            else a = ((const block_q8_0 *)x + 4 * i + q)->qs, dy[c][q] = _cvtsh_ss(((const block_q8_0 *)x + 4 * i + q)->d);
            _mm256_storeu_si256((__m256i *)(xb[c] + 32 * q), _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)a), bias));
        }
        if (tq1) dy[c][0] = ((const block_q8_K *)x + (i >> 1))->d;
    }
}

/* CALL(n) for the pass's nc activation rows taken rows (a constant) at a time, then the rest by halves (4, 2,
 * 1), with c the group's first row. */
#define CIOT_DOT_ROW_GROUPS(nc, rows, c, CALL)                                                                     \
    do {                                                                                                           \
        int c = 0;                                                                                                 \
        for (; c + (rows) <= (nc); c += (rows)) CALL(rows);                                                        \
        if ((rows) > 4 && (nc) - c >= 4) {                                                                         \
            CALL(4);                                                                                               \
            c += 4;                                                                                                \
        }                                                                                                          \
        if ((rows) > 2 && (nc) - c >= 2) {                                                                         \
            CALL(2);                                                                                               \
            c += 2;                                                                                                \
        }                                                                                                          \
        if ((nc) - c == 1) CALL(1);                                                                                \
    } while (0)

#endif
