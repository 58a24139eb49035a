/* Peak int8 MAC rate with SDOT (armv8.2 dotprod): vdotq_s32 on 128-bit registers (s8 x s8, 4 products
 * summed into each s32 lane), 12 independent accumulator chains to hide its latency. 16 MACs each. */
#if !defined(__ARM_FEATURE_DOTPROD)
#error "compute_neondot.c must be compiled with +dotprod (cmake/isa.cmake gives *_neondot.c files these flags)"
#endif
#include <arm_neon.h>
#include "compute_loops.h"

enum { CHAINS = 12 };
const int ciot_compute_macs_neondot = CHAINS * 16;

uint64_t ciot_compute_loop_neondot(uint64_t iters) {
    int8x16_t x = vdupq_n_s8(1), w = vdupq_n_s8(1);
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    int32x4_t a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+w"(x), "+w"(w));
        a0 = vdotq_s32(a0, x, w);
        a1 = vdotq_s32(a1, x, w);
        a2 = vdotq_s32(a2, x, w);
        a3 = vdotq_s32(a3, x, w);
        a4 = vdotq_s32(a4, x, w);
        a5 = vdotq_s32(a5, x, w);
        a6 = vdotq_s32(a6, x, w);
        a7 = vdotq_s32(a7, x, w);
        a8 = vdotq_s32(a8, x, w);
        a9 = vdotq_s32(a9, x, w);
        a10 = vdotq_s32(a10, x, w);
        a11 = vdotq_s32(a11, x, w);
    }
    int32x4_t s = vaddq_s32(vaddq_s32(vaddq_s32(a0, a1), vaddq_s32(a2, a3)), vaddq_s32(vaddq_s32(a4, a5), vaddq_s32(a6, a7)));
    s = vaddq_s32(s, vaddq_s32(vaddq_s32(a8, a9), vaddq_s32(a10, a11)));
    return (uint64_t)(uint32_t)vaddvq_s32(s);
}
