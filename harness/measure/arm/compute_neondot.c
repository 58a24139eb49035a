/* Peak int8 MAC rate with SDOT (armv8.2 dotprod): vdotq_s32 on 128-bit registers (s8 x s8, 4 products
 * summed into each s32 lane), 12 independent accumulator chains to hide its latency. 16 MACs each. */
#if !defined(__ARM_FEATURE_DOTPROD)
#error "compute_neondot.c must be compiled with +dotprod (cmake/isa.cmake gives *_neondot.c files these flags)"
#endif
#include <arm_neon.h>
#include "compute_loops.h"

const int ciot_compute_macs_neondot = CIOT_REG_CHAINS * 16;

uint64_t ciot_compute_loop_neondot(uint64_t iters) {
    int8x16_t x = vdupq_n_s8(1), w = vdupq_n_s8(1);
#define ZERO(k) int32x4_t a##k = vdupq_n_s32(0);
#define STEP(k) a##k = vdotq_s32(a##k, x, w);
#define SUM(k) s = vaddq_s32(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+w"(x), "+w"(w));
        CIOT_REG_CHAINS_EACH(STEP)
    }
    int32x4_t s = vdupq_n_s32(0);
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)(uint32_t)vaddvq_s32(s);
}
