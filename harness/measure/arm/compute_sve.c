/* Peak int8 MAC rate with SVE SDOT: svdot_s32 on whole SVE vectors (s8 x s8, 4 products summed into each s32
 * lane), 12 independent accumulator chains. The vector length is the process's, so an iteration is counted
 * in 128-bit granules: 12 SDOTs on one granule each, 16 MACs apiece; the loop runs ceil(iters / granules)
 * whole-vector iterations (at most granules - 1 granule-iterations more than counted). */
#if !defined(__ARM_FEATURE_SVE)
#error "compute_sve.c must be compiled with +sve (cmake/isa.cmake gives *_sve.c files these flags)"
#endif
#include <arm_sve.h>
#include "compute_loops.h"

enum { CHAINS = 12 };
const int ciot_compute_macs_sve = CHAINS * 16;

uint64_t ciot_compute_loop_sve(uint64_t iters) {
    const uint64_t granules = svcntb() / 16, n = (iters + granules - 1) / granules;
    svint8_t x = svdup_n_s8(1), w = svdup_n_s8(1);
    svint32_t a0 = svdup_n_s32(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    svint32_t a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    for (uint64_t i = 0; i < n; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+w"(x), "+w"(w));
        a0 = svdot_s32(a0, x, w);
        a1 = svdot_s32(a1, x, w);
        a2 = svdot_s32(a2, x, w);
        a3 = svdot_s32(a3, x, w);
        a4 = svdot_s32(a4, x, w);
        a5 = svdot_s32(a5, x, w);
        a6 = svdot_s32(a6, x, w);
        a7 = svdot_s32(a7, x, w);
        a8 = svdot_s32(a8, x, w);
        a9 = svdot_s32(a9, x, w);
        a10 = svdot_s32(a10, x, w);
        a11 = svdot_s32(a11, x, w);
    }
    svint32_t s = svadd_s32_x(svptrue_b32(), svadd_s32_x(svptrue_b32(), a0, a1), svadd_s32_x(svptrue_b32(), a2, a3));
    s = svadd_s32_x(svptrue_b32(), s, svadd_s32_x(svptrue_b32(), svadd_s32_x(svptrue_b32(), a4, a5), svadd_s32_x(svptrue_b32(), a6, a7)));
    s = svadd_s32_x(svptrue_b32(), s, svadd_s32_x(svptrue_b32(), svadd_s32_x(svptrue_b32(), a8, a9), svadd_s32_x(svptrue_b32(), a10, a11)));
    return (uint64_t)(uint32_t)svaddv_s32(svptrue_b32(), s);
}
