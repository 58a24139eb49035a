#if !defined(__ARM_FEATURE_DOTPROD)
#error "ptq1_0_gemv_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* The gemv: PTQ1_0 rows against Q8_0 activations, one row at a time.
 * Reads PTQ1_0 blocks as stored (qs[24], qh[2], fp16 d last). Trit n of byte b is the top third of the
 * 8-bit product b * 3^n: w = -[v < 86] + [v >= 171] from two unsigned compares. Eight 16-lane trit vectors
 * give weights 0..127 in order; two SDOTs per Q8_0 block, then the four-lane float order of formats.md.
 * Preconditions: K % 128 == 0, batch 1, tile = 1 row. */
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "util_neon.h"

/* -1, 0, +1 from a byte already multiplied by 3^n: 0..85, 86..170, 171..255, as mask(v < 86) - mask(v >= 171).
 * SQSUB, not SUB: clang rewrites a plain difference of two compare masks into AND 1 + ADD, one instruction
 * more; the difference is -1, 0 or +1 and never saturates. */
static inline int8x16_t trit(uint8x16_t v) {
    return vqsubq_s8(vreinterpretq_s8_u8(vcltq_u8(v, vdupq_n_u8(86))), vreinterpretq_s8_u8(vcgeq_u8(v, vdupq_n_u8(171))));
}

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    /* bytes 12..27 of a block: lanes 4..11 = qs[16..23], lanes 12, 13 = qh[0], qh[1] */
    static const uint8_t idx_mid[16] = {4, 5, 6, 7, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11};
    static const uint8_t idx_last[16] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 12, 13, 12, 13, 12, 13};
    /* weights 80..95 (n = 0, 1), 96..111 (n = 2, 3), 112..119 (n = 4) with 120..127 (qh, t -> n = t >> 1) */
    static const uint8_t pow_01[16] = {1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3};
    static const uint8_t pow_23[16] = {9, 9, 9, 9, 9, 9, 9, 9, 27, 27, 27, 27, 27, 27, 27, 27};
    static const uint8_t pow_last[16] = {81, 81, 81, 81, 81, 81, 81, 81, 1, 1, 3, 3, 9, 9, 27, 27};
    const uint8x16_t i_mid = vld1q_u8(idx_mid), i_last = vld1q_u8(idx_last);
    const uint8x16_t p01 = vld1q_u8(pow_01), p23 = vld1q_u8(pow_23), plast = vld1q_u8(pow_last);

    for (int r = first; r < first + count; r++) {
        const block_ptq1_0 *w = (const block_ptq1_0 *)mm->w + (size_t)r * nb;
        const block_q8_0 *y = mm->x;
        float32x4_t acc = vdupq_n_f32(0.0f);
        CIOT_MCA_BEGIN("ptq1_0_gemv_neondot");
        for (int i = 0; i < nb; i++, w++, y += 4) {
            ciot_prefetch(w, sizeof *w, mm->prefetch);
            const uint8x16_t lo = vld1q_u8(w->qs), hi = vld1q_u8(w->qs + 12);
            const uint8x16_t mid = vqtbl1q_u8(hi, i_mid), last = vqtbl1q_u8(hi, i_last);
            const int8x16_t t[8] = {
                trit(lo), trit(vmulq_u8(lo, vdupq_n_u8(3))), trit(vmulq_u8(lo, vdupq_n_u8(9))),
                trit(vmulq_u8(lo, vdupq_n_u8(27))), trit(vmulq_u8(lo, vdupq_n_u8(81))),
                trit(vmulq_u8(mid, p01)), trit(vmulq_u8(mid, p23)), trit(vmulq_u8(last, plast)),
            };
            /* lane q of isum = dot of sub-block q (32 products of at most 127: int32 safe) */
            int32x4_t d[4];
            for (int q = 0; q < 4; q++) {
                d[q] = vdotq_s32(vdupq_n_s32(0), t[2 * q], vld1q_s8(y[q].qs));
                d[q] = vdotq_s32(d[q], t[2 * q + 1], vld1q_s8(y[q].qs + 16));
            }
            const int32x4_t isum = vpaddq_s32(vpaddq_s32(d[0], d[1]), vpaddq_s32(d[2], d[3]));
            uint16x4_t dy16 = vld1_dup_u16(&y[0].d);
            dy16 = vld1_lane_u16(&y[1].d, dy16, 1);
            dy16 = vld1_lane_u16(&y[2].d, dy16, 2);
            dy16 = vld1_lane_u16(&y[3].d, dy16, 3);
            const float32x4_t dy = vcvt_f32_f16(vreinterpret_f16_u16(dy16));
            acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(dy, ciot_fp16_neon(&w->d)));
        }
        CIOT_MCA_END();
        const float32x4_t pair = vpaddq_f32(acc, acc); /* [acc0 + acc1, acc2 + acc3, ...] */
        mm->y[r] = vgetq_lane_f32(pair, 0) + vgetq_lane_f32(pair, 1);
    }
}

CIOT_KERNEL(ptq1_0_gemv_neondot, ptq1_0_gemv_ref, .layout = &ciot_layout_ptq1_0, .act = &ciot_act_q8_0,
            .op = CIOT_OP_GEMV, .features = CIOT_F_NEON | CIOT_F_DOTPROD, .compute = gemv, .mac = CIOT_MAC_NEONDOT);
