/* The loop of the x86 T2P gemv kernels around their block dot. Tiles are taken CIOT_T2P_ACT_TILES at a
 * time and share activation vectors prepared once per chunk of K (act_t2p_avx2.h), which the block dot
 * reads as memory operands; per row the integer sum is exact, then one fmaf per scale step:
 * halves = 1 (T2P from PQ2_0): acc = fmaf((float) isum_i, fp32(d[i]) * d_y, acc) per 128-block i;
 * halves = 2 (T2P from TQ2_0): blocks 2q and 2q + 1 are one 256-block whose scale both carry: their
 * integer sums are added first, then one step with block 2q's scales. K % 256 == 0, rows % 4 == 0. */
#ifndef CIOT_X86_T2P_GEMV_LOOP_AVX2_H
#define CIOT_X86_T2P_GEMV_LOOP_AVX2_H

#include "act_t2p_avx2.h"
#include "kernel.h"
#include "prefetch.h"

/* 4 * (u . y) of the four rows of one block, u the codes 0..3, as [r0 r1 r2 r3]. */
typedef __m128i (*ciot_t2p_dot4x_avx2_fn)(const uint8_t *qs, const ciot_t2p_act_avx2 *a);

/* Tiles [first, first + count) of mm; inlined into each kernel so `dot` and `halves` are constants. */
static inline __attribute__((always_inline)) void ciot_t2p_gemv_loop_avx2(const ciot_mm *mm, int first, int count,
                                                                          ciot_t2p_dot4x_avx2_fn dot, int halves) {
    const int nb = mm->K / CIOT_QK;
    ciot_t2p_act_avx2 act[CIOT_T2P_ACT_BLOCKS];
    __m128 acc[CIOT_T2P_ACT_TILES];
    for (int t0 = first; t0 < first + count; t0 += CIOT_T2P_ACT_TILES) {
        const int nt = first + count - t0 < CIOT_T2P_ACT_TILES ? first + count - t0 : CIOT_T2P_ACT_TILES;
        for (int t = 0; t < nt; t++) acc[t] = _mm_setzero_ps();
        for (int i0 = 0; i0 < nb; i0 += CIOT_T2P_ACT_BLOCKS) {
            const int n = nb - i0 < CIOT_T2P_ACT_BLOCKS ? nb - i0 : CIOT_T2P_ACT_BLOCKS; /* even: K % 256 == 0 */
            ciot_t2p_act_prepare_avx2(mm->x, i0, n, act);
            for (int t = 0; t < nt; t++) {
                const block_t2p *w = (const block_t2p *)mm->w + (size_t)(t0 + t) * nb + i0;
                for (int i = 0; i < n; i += halves) {
                    ciot_prefetch(&w[i], halves * sizeof w[i], mm->prefetch);
                    /* 4 * (u.y - sum y) = 4 * isum exactly (halves 2: |4 isum| <= 4 * 256 * 2 * 127); the shift
                     * divides it back */
                    __m128i s4 = _mm_sub_epi32(dot(w[i].qs, &act[i]), act[i].ysum4);
                    if (halves == 2) s4 = _mm_add_epi32(s4, _mm_sub_epi32(dot(w[i + 1].qs, &act[i + 1]), act[i + 1].ysum4));
                    const __m128i isum = _mm_srai_epi32(s4, 2);
                    const __m128 scale = _mm_mul_ps(ciot_fp16x4_avx2(w[i].d), _mm_set1_ps(act[i].d));
                    acc[t] = _mm_fmadd_ps(_mm_cvtepi32_ps(isum), scale, acc[t]);
                }
            }
        }
        for (int t = 0; t < nt; t++) _mm_storeu_ps(mm->y + 4 * (t0 + t), acc[t]);
    }
}

#endif
