/* Peak int8 MAC rate with SMMLA (armv8.6 i8mm): vmmlaq_s32 multiplies a 2x8 by an 8x2 int8 matrix into
 * a 2x2 int32 tile, 32 MACs per instruction; 12 independent accumulator chains hide its latency. */
#if !defined(__ARM_FEATURE_MATMUL_INT8)
#error "compute_i8mm.c must be compiled with +i8mm (cmake/isa.cmake gives *_i8mm.c files these flags)"
#endif
#include <arm_neon.h>
#include "compute_loops.h"

enum { CHAINS = 12 };
const int ciot_compute_macs_i8mm = CHAINS * 32;

uint64_t ciot_compute_loop_i8mm(uint64_t iters) {
    int8x16_t x = vdupq_n_s8(1), w = vdupq_n_s8(1);
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    int32x4_t a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+w"(x), "+w"(w));
        a0 = vmmlaq_s32(a0, x, w);
        a1 = vmmlaq_s32(a1, x, w);
        a2 = vmmlaq_s32(a2, x, w);
        a3 = vmmlaq_s32(a3, x, w);
        a4 = vmmlaq_s32(a4, x, w);
        a5 = vmmlaq_s32(a5, x, w);
        a6 = vmmlaq_s32(a6, x, w);
        a7 = vmmlaq_s32(a7, x, w);
        a8 = vmmlaq_s32(a8, x, w);
        a9 = vmmlaq_s32(a9, x, w);
        a10 = vmmlaq_s32(a10, x, w);
        a11 = vmmlaq_s32(a11, x, w);
    }
    int32x4_t s = vaddq_s32(vaddq_s32(vaddq_s32(a0, a1), vaddq_s32(a2, a3)), vaddq_s32(vaddq_s32(a4, a5), vaddq_s32(a6, a7)));
    s = vaddq_s32(s, vaddq_s32(vaddq_s32(a8, a9), vaddq_s32(a10, a11)));
    return (uint64_t)(uint32_t)vaddvq_s32(s);
}
