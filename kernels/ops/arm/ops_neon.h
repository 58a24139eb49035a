/* The canonical steps of ops_math.h, four lanes at a time (NEON, AArch64). */
#ifndef CIOT_OPS_NEON_H
#define CIOT_OPS_NEON_H

#include <arm_neon.h>
#include "ops_math.h"

/* ciot_ops_expf per lane (vminq / vmaxq pass NaN through, as the scalar clamps do). */
static inline float32x4_t ciot_exp4(float32x4_t x0) {
    float32x4_t x = vminq_f32(vdupq_n_f32(CIOT_EXP_HI), x0);
    x = vmaxq_f32(vdupq_n_f32(CIOT_EXP_LO), x);
    const float32x4_t magic = vdupq_n_f32(CIOT_EXP_MAGIC);
    float32x4_t t = vfmaq_f32(magic, x, vdupq_n_f32(CIOT_EXP_LOG2E));
    float32x4_t n = vsubq_f32(t, magic);
    float32x4_t r = vfmaq_f32(x, n, vdupq_n_f32(-CIOT_EXP_LN2_HI));
    r = vfmaq_f32(r, n, vdupq_n_f32(-CIOT_EXP_LN2_LO));
    float32x4_t p = vdupq_n_f32(CIOT_EXP_P0);
    p = vfmaq_f32(vdupq_n_f32(CIOT_EXP_P1), p, r);
    p = vfmaq_f32(vdupq_n_f32(CIOT_EXP_P2), p, r);
    p = vfmaq_f32(vdupq_n_f32(CIOT_EXP_P3), p, r);
    p = vfmaq_f32(vdupq_n_f32(CIOT_EXP_P4), p, r);
    p = vfmaq_f32(vdupq_n_f32(CIOT_EXP_P5), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    uint32x4_t e = vsubq_u32(vreinterpretq_u32_f32(t), vreinterpretq_u32_f32(magic));
    uint32x4_t scale = vshlq_n_u32(vaddq_u32(e, vdupq_n_u32(127)), 23);
    float32x4_t y = vmulq_f32(p, vreinterpretq_f32_u32(scale));
    uint32x4_t below = vcltq_f32(x0, vdupq_n_f32(CIOT_EXP_LO));
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(y), below));
}

static inline float32x4_t ciot_sigmoid4(float32x4_t x) {
    const float32x4_t one = vdupq_n_f32(1.0f);
    return vdivq_f32(one, vaddq_f32(one, ciot_exp4(vnegq_f32(x))));
}
static inline float32x4_t ciot_silu4(float32x4_t x) {
    return vdivq_f32(x, vaddq_f32(vdupq_n_f32(1.0f), ciot_exp4(vnegq_f32(x))));
}

/* The 16 canonical lanes as four registers (lanes 0-3, 4-7, 8-11, 12-15), folded j + 8, j + 4, j + 2, j + 1. */
static inline float ciot_fold16_neon(float32x4_t a0, float32x4_t a1, float32x4_t a2, float32x4_t a3) {
    float32x4_t t = vaddq_f32(vaddq_f32(a0, a2), vaddq_f32(a1, a3));
    return vpadds_f32(vadd_f32(vget_low_f32(t), vget_high_f32(t)));
}

/* ciot_ops_dot, n a multiple of 16. */
static inline float ciot_dot_neon(const float *a, const float *b, int n) {
    float32x4_t s0 = vdupq_n_f32(0), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < n; i += 16) {
        s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
        s1 = vfmaq_f32(s1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
        s2 = vfmaq_f32(s2, vld1q_f32(a + i + 8), vld1q_f32(b + i + 8));
        s3 = vfmaq_f32(s3, vld1q_f32(a + i + 12), vld1q_f32(b + i + 12));
    }
    return ciot_fold16_neon(s0, s1, s2, s3);
}

/* Four fp16 values widened exactly. */
static inline float32x4_t ciot_fp16x4_neon(const uint16_t *h) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h)));
}

#endif
