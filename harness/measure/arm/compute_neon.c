/* Peak fp32 multiply-add rates with NEON, the sequences the token ops' NEON loops issue:
 * - fma32_neon: fmla on 128-bit registers into 12 independent chains, 4 fp32 multiply-adds each;
 * - f16fma_neon: the same with each multiply-add's operand widened from 4 fp16 values read from L1
 *   (fcvtl), as attention reads its K and V rows. */
#include <arm_neon.h>
#include "compute_loops.h"

const int ciot_compute_macs_fma32_neon = CIOT_REG_CHAINS * 4;

uint64_t ciot_compute_loop_fma32_neon(uint64_t iters) {
    float32x4_t x = vdupq_n_f32(1.0f), w = vdupq_n_f32(1.0f);
#define ZERO(k) float32x4_t a##k = vdupq_n_f32(0.0f);
#define STEP(k) a##k = vfmaq_f32(a##k, x, w);
#define SUM(k) s = vaddq_f32(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : "+w"(x), "+w"(w)); /* opaque operands: no chain can be folded */
        CIOT_REG_CHAINS_EACH(STEP)
    }
    float32x4_t s = vdupq_n_f32(0.0f);
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)vaddvq_f32(s);
}

const int ciot_compute_macs_f16fma_neon = CIOT_REG_CHAINS * 4;

uint64_t ciot_compute_loop_f16fma_neon(uint64_t iters) {
    _Alignas(16) uint16_t h[CIOT_REG_CHAINS][4];
    for (int k = 0; k < CIOT_REG_CHAINS; k++)
        for (int i = 0; i < 4; i++) h[k][i] = 0x3c00; /* fp16 1.0: each multiply-add adds 1 */
    float32x4_t x = vdupq_n_f32(1.0f);
#define ZERO(k) float32x4_t a##k = vdupq_n_f32(0.0f);
#define STEP(k) a##k = vfmaq_f32(a##k, x, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h[k]))));
#define SUM(k) s = vaddq_f32(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : "+w"(x) : "r"(h) : "memory"); /* the fp16 rows are read again each time */
        CIOT_REG_CHAINS_EACH(STEP)
    }
    float32x4_t s = vdupq_n_f32(0.0f);
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)vaddvq_f32(s);
}
