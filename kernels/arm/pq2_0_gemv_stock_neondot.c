#if !defined(__ARM_FEATURE_DOTPROD)
#error "pq2_0_gemv_stock_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* The gemv: the stock ARM runtime path, ported as it is (the baseline the layouts beat).
 * Reads PQ2_0 rows as stored: row r, block i at r * nb + i; weight k's code is qs[k >> 2] >> 2(k & 3).
 * Per 32 weights: TBL copies each code byte into four lanes, USHL by 0/2/4/6, AND 3, SUB 1, SDOT with
 * 16 activations into one accumulator; per block one reduce and the canonical fmaf. No activation sums.
 * Preconditions: K % 256 == 0, batch 1, tile = 1 row. */
#include <math.h>
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "util_neon.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    /* lane l of quarter q takes byte 4q + l / 4 and shifts it right by 2 * (l % 4): weight 16q + l */
    static const uint8_t dup4[4][16] = {
        {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3},
        {4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7},
        {8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11},
        {12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15},
    };
    static const int8_t shifts[16] = {0, -2, -4, -6, 0, -2, -4, -6, 0, -2, -4, -6, 0, -2, -4, -6};
    const uint8x16_t idx0 = vld1q_u8(dup4[0]), idx1 = vld1q_u8(dup4[1]);
    const uint8x16_t idx2 = vld1q_u8(dup4[2]), idx3 = vld1q_u8(dup4[3]);
    const int8x16_t shr = vld1q_s8(shifts);
    const uint8x16_t three = vdupq_n_u8(3), one = vdupq_n_u8(1);

    for (int r = first; r < first + count; r++) {
        const block_pq2_0 *w = (const block_pq2_0 *)mm->w + (size_t)r * nb;
        float acc = 0.0f;
        CIOT_MCA_BEGIN("pq2_0_gemv_stock_neondot");
        for (int q = 0; q < nb / 2; q++) {
            const block_q8_K *y = &x[q];
            for (int h = 0; h < 2; h++, w++) {
                ciot_prefetch(w, sizeof *w, mm->prefetch);
                int32x4_t sum = vdupq_n_s32(0);
                /* int32 safe: 128 products of at most 2 * 127 (code 3 is +2) */
                for (int half = 0; half < 2; half++) {
                    const uint8x16_t c = vld1q_u8(w->qs + 16 * half);
                    const int8_t *a = y->qs + 128 * h + 64 * half;
                    const uint8x16_t u0 = vandq_u8(vshlq_u8(vqtbl1q_u8(c, idx0), shr), three);
                    const uint8x16_t u1 = vandq_u8(vshlq_u8(vqtbl1q_u8(c, idx1), shr), three);
                    const uint8x16_t u2 = vandq_u8(vshlq_u8(vqtbl1q_u8(c, idx2), shr), three);
                    const uint8x16_t u3 = vandq_u8(vshlq_u8(vqtbl1q_u8(c, idx3), shr), three);
                    sum = vdotq_s32(sum, vreinterpretq_s8_u8(vsubq_u8(u0, one)), vld1q_s8(a));
                    sum = vdotq_s32(sum, vreinterpretq_s8_u8(vsubq_u8(u1, one)), vld1q_s8(a + 16));
                    sum = vdotq_s32(sum, vreinterpretq_s8_u8(vsubq_u8(u2, one)), vld1q_s8(a + 32));
                    sum = vdotq_s32(sum, vreinterpretq_s8_u8(vsubq_u8(u3, one)), vld1q_s8(a + 48));
                }
                acc = fmaf((float)vaddvq_s32(sum), ciot_fp16_neon(&w->d) * y->d, acc);
            }
        }
        CIOT_MCA_END();
        mm->y[r] = acc;
    }
}

CIOT_KERNEL(pq2_0_gemv_stock_neondot, pq2_0_gemv_ref, .layout = &ciot_layout_pq2_0, .act = &ciot_act_q8_K,
            .op = CIOT_OP_GEMV, .features = CIOT_F_NEON | CIOT_F_DOTPROD, .compute = gemv, .mac = CIOT_MAC_NEONDOT);
