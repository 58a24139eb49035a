#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2x4_gemv_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* The gemv: 4 weight rows x one Q8_K row per tile, slots masked in place.
 * Reads T2X4: byte j of group g of row r (offset 64g + 16r + j) holds weights 64g + j + 16s in bits 2s..2s+1.
 * Slot s of a 16-byte word meets activations 64g + 16s .. +15: SDOT v & 0x03 / 0x0C / 0x30 / v >> 6 into
 * sums of u, 4u, 16u, u; a1 + a4 / 4 + a16 / 16 = u . y, and u . y - sum(y) = w . y.
 * Preconditions: K % 256 == 0, rows % 4 == 0, batch 1. */
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "util_neon.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);

    for (int t = first; t < first + count; t++) {
        const block_t2x4 *w = (const block_t2x4 *)mm->w + (size_t)t * nb;
        float32x4_t acc = vdupq_n_f32(0.0f);
        CIOT_MCA_BEGIN("t2x4_gemv_neondot");
        for (int q = 0; q < nb / 2; q++) {
            const block_q8_K *y = &x[q];
            for (int h = 0; h < 2; h++, w++) {
                ciot_prefetch(w, sizeof *w, mm->prefetch);
                int8x16_t act[8];
                for (int j = 0; j < 8; j++) act[j] = vld1q_s8(y->qs + 128 * h + 16 * j);
                /* per row r: a1 (slots 0 and 3), a4 (slot 1, values 4u), a16 (slot 2, values 16u);
                 * int32 safe: a lane sums at most 16 products of at most 48 * 127 */
                int32x4_t a1[4], a4[4], a16[4];
                for (int r = 0; r < 4; r++) {
                    a1[r] = a4[r] = a16[r] = vdupq_n_s32(0);
                    for (int g = 0; g < 2; g++) {
                        const uint8x16_t v = vld1q_u8(w->qs + 64 * g + 16 * r);
                        a1[r] = vdotq_s32(a1[r], vreinterpretq_s8_u8(vandq_u8(v, m03)), act[4 * g]);
                        a4[r] = vdotq_s32(a4[r], vreinterpretq_s8_u8(vandq_u8(v, m0c)), act[4 * g + 1]);
                        a16[r] = vdotq_s32(a16[r], vreinterpretq_s8_u8(vandq_u8(v, m30)), act[4 * g + 2]);
                        a1[r] = vdotq_s32(a1[r], vreinterpretq_s8_u8(vshrq_n_u8(v, 6)), act[4 * g + 3]);
                    }
                }
                /* lanes -> [row 0, row 1, row 2, row 3] */
                const int32x4_t s1 = vpaddq_s32(vpaddq_s32(a1[0], a1[1]), vpaddq_s32(a1[2], a1[3]));
                const int32x4_t s4 = vpaddq_s32(vpaddq_s32(a4[0], a4[1]), vpaddq_s32(a4[2], a4[3]));
                const int32x4_t s16 = vpaddq_s32(vpaddq_s32(a16[0], a16[1]), vpaddq_s32(a16[2], a16[3]));
                /* u . y = s1 + s4 / 4 + s16 / 16, exact: each lane of s4 (s16) sums multiples of 4 (16), so the
                 * arithmetic shifts (SSRA) drop zero bits only; subtracting sum(y) turns u = w + 1 into w */
                const int32x4_t uy = vsraq_n_s32(vsraq_n_s32(s1, s4, 2), s16, 4);
                const int32_t ysum = vaddlvq_s16(vld1q_s16(y->bsums + 8 * h));
                const int32x4_t isum = vsubq_s32(uy, vdupq_n_s32(ysum));
                acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(ciot_fp16x4_neon(w->d), y->d));
            }
        }
        CIOT_MCA_END();
        vst1q_f32(mm->y + 4 * t, acc);
    }
}

CIOT_KERNEL(t2x4_gemv_neondot, t2x4_gemv_ref, .layout = &ciot_layout_t2x4, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_NEON | CIOT_F_DOTPROD, .compute = gemv, .mac = CIOT_MAC_NEONDOT);
