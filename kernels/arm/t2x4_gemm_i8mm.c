#if !defined(__ARM_FEATURE_MATMUL_INT8) || !defined(__ARM_FEATURE_DOTPROD)
#error "t2x4_gemm_i8mm.c needs -march=armv8.2-a+dotprod+i8mm (cmake/isa.cmake gives it to *_i8mm.c)"
#endif
/* The gemm: 4 weight rows x 4 activation rows (one Q8_Kx4 group) per SMMLA tile.
 * Reads T2X4: byte j of group g of row r (offset 64g + 16r + j) holds weights 64g + j + 16s in bits 2s..2s+1.
 * Each slot is decoded fully to u = w + 1 per row, then the 2x8 operands [row 2p | row 2p+1] are built by
 * zipping 64-bit halves of two rows: 8 SMMLA per slot against Q8_Kx4 chunks (rows 0-1, rows 2-3).
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups, the last zero-padded. */
#include "tile4x4_i8mm.h"

/* One 128-block of the tile: m[p][cp] = u . y for weight rows 2p, 2p+1 x activation rows 2cp, 2cp+1 as
 * [r0 c0, r0 c1, r1 c0, r1 c1]; `a` = the block's 16 chunks of 32 bytes.
 * int32 safe: a lane sums 128 products of at most 3 * 127. */
static inline void block_u(const block_t2x4 *w, const int8_t *a, int32x4_t m[2][2]) {
    const uint8x16_t m03 = vdupq_n_u8(0x03);
    for (int p = 0; p < 2; p++) m[p][0] = m[p][1] = vdupq_n_s32(0);
    for (int g = 0; g < 2; g++) {
        uint8x16_t v[4];
        for (int r = 0; r < 4; r++) v[r] = vld1q_u8(w->qs + 64 * g + 16 * r);
        for (int s = 0; s < 4; s++) {
            uint8x16_t u[4];
            for (int r = 0; r < 4; r++)
                u[r] = s == 0   ? vandq_u8(v[r], m03)
                       : s == 1 ? vandq_u8(vshrq_n_u8(v[r], 2), m03)
                       : s == 2 ? vandq_u8(vshrq_n_u8(v[r], 4), m03)
                                : vshrq_n_u8(v[r], 6);
            for (int half = 0; half < 2; half++) {
                /* chunk 8g + 2s + half: weights 64g + 16s + 8 half .. +7 */
                const int8_t *c = a + 32 * (8 * g + 2 * s + half);
                const int8x16_t y[2] = {vld1q_s8(c), vld1q_s8(c + 16)};
                for (int p = 0; p < 2; p++) {
                    const uint64x2_t r0 = vreinterpretq_u64_u8(u[2 * p]), r1 = vreinterpretq_u64_u8(u[2 * p + 1]);
                    const int8x16_t d = vreinterpretq_s8_u64(half ? vzip2q_u64(r0, r1) : vzip1q_u64(r0, r1));
                    for (int cp = 0; cp < 2; cp++) m[p][cp] = vmmlaq_s32(m[p][cp], d, y[cp]);
                }
            }
        }
    }
}

/* Weight tile `wt` (nb blocks) x one Q8_Kx4 group `x`: out[c] = [row 0..3] of activation row c. */
static void tile(const void *wt, const block_q8_Kx4 *x, int nb, float32x4_t out[4]) {
    const block_t2x4 *w = wt;
    float32x4_t acc[2][2];
    for (int p = 0; p < 2; p++) acc[p][0] = acc[p][1] = vdupq_n_f32(0.0f);
    CIOT_MCA_BEGIN("t2x4_gemm_i8mm");
    for (int q = 0; q < nb / 2; q++, x++) {
        float32x4_t dyc[2];
        ciot_tile4x4_cols_i8mm(vld1q_f32(x->d), dyc);
        for (int h = 0; h < 2; h++, w++) {
            int32x4_t u[2][2], isum[2][2], cs[2];
            block_u(w, x->qs + 512 * h, u);
            ciot_tile4x4_colsums_i8mm(x, h, cs);
            /* u = w + 1: the column sum turns u . y back into w . y */
            for (int p = 0; p < 2; p++)
                for (int cp = 0; cp < 2; cp++) isum[p][cp] = vsubq_s32(u[p][cp], cs[cp]);
            ciot_tile4x4_fma_i8mm(acc, isum, w->d, dyc);
        }
    }
    CIOT_MCA_END();
    ciot_tile4x4_columns_i8mm(acc, out);
}

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemm_i8mm(mm, first, count, sizeof(block_t2x4), tile);
}

CIOT_KERNEL(t2x4_gemm_i8mm, t2x4_gemm_ref, .layout = &ciot_layout_t2x4, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_I8MM, .compute = gemm, .mac = CIOT_MAC_I8MM);
