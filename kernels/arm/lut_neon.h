#if !defined(__ARM_NEON)
#error "lut_neon.h needs NEON (include it from the aarch64 kernel files only)"
#endif
/* Shared by the NEON lookup-table kernels (tl2_gemv_neon; tl3_gemv_neon and tl3_tq1_gemv_neon through
 * tl3_sums_neon.h): activation-sum tables split into byte planes, T = 32 h + l with l = T & 31 (0..31) and
 * h = T >> 5 (kernels/README.md, "The lookup-table method"), and the step from per-row int16 sums to the
 * canonical fmaf of 16 rows. */
#ifndef CIOT_ARM_LUT_NEON_H
#define CIOT_ARM_LUT_NEON_H

#include <arm_neon.h>
#include <stdint.h>

/* The planes of 16 int16 values t0 (entries 0..7), t1 (8..15): l[c] = T & 31, h[c] = T >> 5, |T| < 4096. */
static inline void ciot_lut_planes_neon(int16x8_t t0, int16x8_t t1, uint8_t l[16], int8_t h[16]) {
    const int8x16_t low = vmovn_high_s16(vmovn_s16(t0), t1);
    vst1q_u8(l, vandq_u8(vreinterpretq_u8_s8(low), vdupq_n_u8(31)));
    /* SHRN keeps bits 5..12 of T: T >> 5 exactly, as it fits a signed byte */
    vst1q_s8(h, vshrn_high_n_s16(vshrn_n_s16(t0, 5), t1, 5));
}

/* The planes of a 16-entry table T[c] = ca[c] * a0 + cb[c] * a1 (coefficients -1 .. 2, |T| <= 4 * 127). */
static inline void ciot_lut_table16_neon(const int8_t ca[16], const int8_t cb[16], int8_t a0, int8_t a1, uint8_t l[16],
                                         int8_t h[16]) {
    const int8x16_t A = vld1q_s8(ca), B = vld1q_s8(cb);
    const int8x16_t x0 = vdupq_n_s8(a0), x1 = vdupq_n_s8(a1);
    const int16x8_t t0 = vmlal_s8(vmull_s8(vget_low_s8(A), vget_low_s8(x0)), vget_low_s8(B), vget_low_s8(x1));
    const int16x8_t t1 = vmlal_high_s8(vmull_high_s8(A, x0), B, x1);
    ciot_lut_planes_neon(t0, t1, l, h);
}

/* s[0] (rows 0..7) and s[1] (rows 8..15) += al + 32 ah per row, al unsigned and ah signed byte sums of 16
 * rows (UXTL / UADDW and SMLAL; the caller bounds the result). */
static inline void ciot_lut_widen_neon(uint8x16_t al, int8x16_t ah, int16x8_t s[2]) {
    const int8x16_t c32 = vdupq_n_s8(32);
    s[0] = vmlal_s8(vreinterpretq_s16_u16(vaddw_u8(vreinterpretq_u16_s16(s[0]), vget_low_u8(al))), vget_low_s8(ah),
                    vget_low_s8(c32));
    s[1] = vmlal_high_s8(vreinterpretq_s16_u16(vaddw_high_u8(vreinterpretq_u16_s16(s[1]), al)), ah, c32);
}

/* fp32 of 16 fp16 row scales: dw[k] = rows 4k .. 4k + 3. */
static inline void ciot_lut_scales_neon(const uint16_t d[16], float32x4_t dw[4]) {
    const float16x8_t h0 = vreinterpretq_f16_u16(vld1q_u16(d)), h1 = vreinterpretq_f16_u16(vld1q_u16(d + 8));
    dw[0] = vcvt_f32_f16(vget_low_f16(h0)), dw[1] = vcvt_high_f32_f16(h0);
    dw[2] = vcvt_f32_f16(vget_low_f16(h1)), dw[3] = vcvt_high_f32_f16(h1);
}

/* The canonical step of 16 rows: acc[k] = fmaf((float) isum, dw[k] * dy, acc[k]) for rows 4k .. 4k + 3, isum
 * the int16 sums s[0] (rows 0..7) and s[1] (rows 8..15); SCVTF is exact below 2^24. */
static inline void ciot_lut_fma16_neon(const int16x8_t s[2], const float32x4_t dw[4], float dy, float32x4_t acc[4]) {
    const int32x4_t isum[4] = {vmovl_s16(vget_low_s16(s[0])), vmovl_high_s16(s[0]), vmovl_s16(vget_low_s16(s[1])),
                               vmovl_high_s16(s[1])};
    for (int k = 0; k < 4; k++) acc[k] = vfmaq_f32(acc[k], vcvtq_f32_s32(isum[k]), vmulq_n_f32(dw[k], dy));
}

#endif
