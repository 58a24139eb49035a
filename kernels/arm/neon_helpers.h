/* Small NEON helpers the aarch64 kernels share: exact fp16 widening and unaligned loads that C allows
 * (memcpy, which clang turns into one load; Q8_K rows are only 4-byte aligned). */
#ifndef CIOT_ARM_NEON_HELPERS_H
#define CIOT_ARM_NEON_HELPERS_H

#include <arm_neon.h>
#include <string.h>

/* fp32(h): FCVT widens exactly, subnormals included (Linux leaves FPCR.FZ16 clear). */
static inline float ciot_neon_h2f(const uint16_t *h) {
    __fp16 v;
    memcpy(&v, h, 2);
    return (float)v;
}

/* fp32 of four consecutive fp16 scales. */
static inline float32x4_t ciot_neon_h2f4(const uint16_t h[4]) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))); }

/* The 8 bytes at p in both halves of a vector (LD1R). */
static inline int8x16_t ciot_neon_dup8(const int8_t *p) {
    int64_t v;
    memcpy(&v, p, 8);
    return vreinterpretq_s8_s64(vdupq_n_s64(v));
}

#endif
