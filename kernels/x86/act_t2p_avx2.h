/* Q8_K activations laid out for the T2P gemv on x86: per 128-block, for W = 0, 1 and slot s = 0..3, the
 * ymm [chunk 8W + s twice | chunk 8W + 4 + s twice] (chunk = 8 values), which is exactly what slot s of
 * T2P bytes 64p + 32W .. + 31 multiplies; plus 4 * sum(y) and the Q8_K scale. Made once per slice and
 * chunk of K, then read by every 4-row tile as memory operands. */
#ifndef CIOT_X86_ACT_T2P_AVX2_H
#define CIOT_X86_ACT_T2P_AVX2_H

#include "util_avx2.h"
#include "formats.h"

enum {
    CIOT_T2P_ACT_BLOCKS = 64, /* 128-blocks prepared at a time: 8192 activations, 18 KiB of stack */
    CIOT_T2P_ACT_TILES = 32,  /* tiles that share one preparation (float accumulators kept meanwhile) */
};

typedef struct {
    __m256i y[4][2]; /* [slot s][W]: y[s][0], y[s][1] adjacent, one zmm for AVX-512 */
    __m128i ysum4; /* 4 * sum of the block's 128 activations, in every lane */
    float d;
} ciot_t2p_act_avx2;

/* Blocks i0 .. i0 + n - 1 (128-blocks; i0 even) of the Q8_K row x. */
static inline void ciot_t2p_act_prepare_avx2(const block_q8_K *x, int i0, int n, ciot_t2p_act_avx2 *out) {
    for (int k = 0; k < n; k++) {
        const int i = i0 + k;
        const block_q8_K *b = &x[i >> 1];
        const int8_t *q = b->qs + 128 * (i & 1);
        for (int W = 0; W < 2; W++) {
            const __m256i lo = ciot_load2x16_avx2(q + 64 * W, q + 64 * W + 32);      /* chunks 8W, +1 | 8W+4, +5 */
            const __m256i hi = ciot_load2x16_avx2(q + 64 * W + 16, q + 64 * W + 48); /* chunks 8W+2, +3 | 8W+6, +7 */
            out[k].y[0][W] = _mm256_unpacklo_epi64(lo, lo);
            out[k].y[1][W] = _mm256_unpackhi_epi64(lo, lo);
            out[k].y[2][W] = _mm256_unpacklo_epi64(hi, hi);
            out[k].y[3][W] = _mm256_unpackhi_epi64(hi, hi);
        }
        out[k].ysum4 = ciot_bsums8_x4_avx2(b->bsums + 8 * (i & 1));
        out[k].d = b->d;
    }
}

#endif
