/* The row loop of the x86 PTQ1_0 gemv kernels around their block dot (included by *_avx2.c and
 * *_avx512vnni.c: F16C converts the scales). Per row, four float lanes, one per Q8_0 sub-block:
 * acc_q = fmaf((float) isum_q, fp32(d_y[q]) * fp32(d_w), acc_q) block by block, then (acc0 + acc1) +
 * (acc2 + acc3), the float order of kernels/formats.md. K % 128 == 0. */
#ifndef CIOT_X86_PTQ1_0_GEMV_LOOP_AVX2_H
#define CIOT_X86_PTQ1_0_GEMV_LOOP_AVX2_H

#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

/* Exact dots of one block with its four Q8_0 sub-blocks y[0..3]: [s0 s1 s2 s3]. */
typedef __m128i (*ciot_ptq1_0_isum4_avx2_fn)(const block_ptq1_0 *w, const block_q8_0 *y);

/* [s0 s1 s2 s3] from each sub-block's eight int32 partial sums s[q]. */
static inline __m128i ciot_ptq1_0_sums4_avx2(const __m256i s[4]) {
    const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

/* Rows [first, first + count) of mm; inlined into each kernel so `isum4` is a constant. */
static inline __attribute__((always_inline)) void ciot_ptq1_0_gemv_loop_avx2(const ciot_mm *mm, int first, int count,
                                                                             ciot_ptq1_0_isum4_avx2_fn isum4) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_0 *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const block_ptq1_0 *w = (const block_ptq1_0 *)mm->w + (size_t)r * nb;
        __m128 acc = _mm_setzero_ps();
        for (int i = 0; i < nb; i++) {
            ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
            const block_q8_0 *y = &x[4 * i];
            const __m128 dy = _mm_cvtph_ps(_mm_setr_epi16((short)y[0].d, (short)y[1].d, (short)y[2].d, (short)y[3].d, 0, 0, 0, 0));
            const __m128 scale = _mm_mul_ps(dy, _mm_set1_ps(_cvtsh_ss(w[i].d)));
            acc = _mm_fmadd_ps(_mm_cvtepi32_ps(isum4(&w[i], y)), scale, acc);
        }
        /* (acc0 + acc1) + (acc2 + acc3) */
        const __m128 pair = _mm_add_ps(acc, _mm_movehdup_ps(acc));
        mm->y[r] = _mm_cvtss_f32(_mm_add_ss(pair, _mm_movehl_ps(pair, pair)));
    }
}

#endif
