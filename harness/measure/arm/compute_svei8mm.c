/* Peak int8 MAC rate with SVE SMMLA (FEAT_I8MM on SVE): svmmla_s32 multiplies a 2x8 by an 8x2 int8 matrix
 * into a 2x2 int32 tile in every 128-bit granule of the vector, 12 independent accumulator chains.
 * The vector length is the process's, so an iteration is counted in 128-bit granules: 12 SMMLAs on one granule each, 32 MACs apiece; the loop runs ceil(iters / granules)
 * whole-vector iterations (at most granules - 1 granule-iterations more than counted). */
#if !defined(__ARM_FEATURE_SVE_MATMUL_INT8)
#error "compute_svei8mm.c must be compiled with +sve+i8mm (cmake/isa.cmake gives *_svei8mm.c files these flags)"
#endif
#include <arm_sve.h>
#include "compute_loops.h"

const int ciot_compute_macs_svei8mm = CIOT_REG_CHAINS * 32;

uint64_t ciot_compute_loop_svei8mm(uint64_t iters) {
    const uint64_t granules = svcntb() / 16, n = (iters + granules - 1) / granules;
    svint8_t x = svdup_n_s8(1), w = svdup_n_s8(1);
#define ZERO(k) svint32_t a##k = svdup_n_s32(0);
#define STEP(k) a##k = svmmla_s32(a##k, x, w);
#define SUM(k) s = svadd_s32_x(svptrue_b32(), s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < n; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+w"(x), "+w"(w));
        CIOT_REG_CHAINS_EACH(STEP)
    }
    svint32_t s = svdup_n_s32(0);
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)(uint32_t)svaddv_s32(svptrue_b32(), s);
}
