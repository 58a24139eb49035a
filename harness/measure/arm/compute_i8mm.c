/* Peak int8 MAC rate with SMMLA (armv8.6 i8mm): vmmlaq_s32 multiplies a 2x8 by an 8x2 int8 matrix into
 * a 2x2 int32 tile, 32 MACs per instruction; 12 independent accumulator chains hide its latency. */
#if !defined(__ARM_FEATURE_MATMUL_INT8)
#error "compute_i8mm.c must be compiled with +i8mm (cmake/isa.cmake gives *_i8mm.c files these flags)"
#endif
#include <arm_neon.h>
#include "compute_loops.h"

const int ciot_compute_macs_i8mm = CIOT_REG_CHAINS * 32;

uint64_t ciot_compute_loop_i8mm(uint64_t iters) {
    int8x16_t x = vdupq_n_s8(1), w = vdupq_n_s8(1);
#define ZERO(k) int32x4_t a##k = vdupq_n_s32(0);
#define STEP(k) a##k = vmmlaq_s32(a##k, x, w);
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
