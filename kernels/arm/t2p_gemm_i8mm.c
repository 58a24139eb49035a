#if !defined(__ARM_FEATURE_MATMUL_INT8) || !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemm_i8mm.c needs -march=armv8.2-a+dotprod+i8mm (cmake/isa.cmake gives it to *_i8mm.c)"
#endif
/* t2p_gemm_i8mm: 4 weight rows x 4 activation rows (one Q8_Kx4 group) per SMMLA tile.
 * Reads T2P: slot s of word w of pair p is [row 2p: weights 8c .. 8c+7 | row 2p+1: same], c = 4w + s, the
 * 2x8 left operand as stored; Q8_Kx4 bytes 32c .. 32c+15 (rows 0-1) and 32c+16 .. 32c+31 (rows 2-3) of
 * chunk c are the right operands. Every decoded slot and every activation load feeds two SMMLA; no zips.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups, the last zero-padded. */
#include "gemm4_i8mm.h"

/* One 128-block of the tile: uy[p][cp] = u . y for weight rows 2p, 2p+1 x activation rows 2cp, 2cp+1
 * as [r0 c0, r0 c1, r1 c0, r1 c1]; `a` = the block's 16 chunks of 32 bytes. */
static inline void block_uy(const block_t2p *w, const int8_t *a, int32x4_t uy[2][2]) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    /* m1 (slots 0 and 3), m4 (slot 1, values 4u), m16 (slot 2, values 16u);
     * int32 safe: a lane of m1 sums 64 products of at most 3 * 127, of m4 and m16 32 of at most 48 * 127 */
    int32x4_t m1[2][2], m4[2][2], m16[2][2];
    for (int p = 0; p < 2; p++)
        for (int cp = 0; cp < 2; cp++) m1[p][cp] = m4[p][cp] = m16[p][cp] = vdupq_n_s32(0);
    for (int wd = 0; wd < 4; wd++) {
        const uint8x16_t v[2] = {vld1q_u8(w->qs + 16 * wd), vld1q_u8(w->qs + 64 + 16 * wd)};
        for (int s = 0; s < 4; s++) {
            const int8_t *c = a + 32 * (4 * wd + s);
            const int8x16_t y[2] = {vld1q_s8(c), vld1q_s8(c + 16)};
            for (int p = 0; p < 2; p++) {
                const uint8x16_t slot = s == 0   ? vandq_u8(v[p], m03)
                                        : s == 1 ? vandq_u8(v[p], m0c)
                                        : s == 2 ? vandq_u8(v[p], m30)
                                                 : vshrq_n_u8(v[p], 6);
                const int8x16_t d = vreinterpretq_s8_u8(slot);
                for (int cp = 0; cp < 2; cp++) {
                    int32x4_t *m = s == 1 ? &m4[p][cp] : s == 2 ? &m16[p][cp] : &m1[p][cp];
                    *m = vmmlaq_s32(*m, d, y[cp]);
                }
            }
        }
    }
    /* m1 + m4 / 4 + m16 / 16, exact: each lane of m4 (m16) sums multiples of 4 (16), so the arithmetic
     * shifts (SSRA) drop zero bits only */
    for (int p = 0; p < 2; p++)
        for (int cp = 0; cp < 2; cp++) uy[p][cp] = vsraq_n_s32(vsraq_n_s32(m1[p][cp], m4[p][cp], 2), m16[p][cp], 4);
}

/* Weight tile `wt` (nb blocks) x one Q8_Kx4 group `x`: out[c] = [row 0..3] of activation row c. */
static void tile(const void *wt, const block_q8_Kx4 *x, int nb, float32x4_t out[4]) {
    const block_t2p *w = wt;
    float32x4_t acc[2][2];
    for (int p = 0; p < 2; p++) acc[p][0] = acc[p][1] = vdupq_n_f32(0.0f);
    CIOT_MCA_BEGIN("t2p_gemm_i8mm");
    for (int q = 0; q < nb / 2; q++, x++) {
        float32x4_t dyc[2];
        ciot_gemm4_cols_f32(vld1q_f32(x->d), dyc);
        for (int h = 0; h < 2; h++, w++) {
            int32x4_t uy[2][2], isum[2][2], cs[2];
            block_uy(w, x->qs + 512 * h, uy);
            ciot_gemm4_colsums(x, h, cs);
            /* the column sum turns u = w + 1 back into w */
            for (int p = 0; p < 2; p++)
                for (int cp = 0; cp < 2; cp++) isum[p][cp] = vsubq_s32(uy[p][cp], cs[cp]);
            ciot_gemm4_fma(acc, isum, w->d, dyc);
        }
    }
    CIOT_MCA_END();
    ciot_gemm4_columns(acc, out);
}

static void t2p_gemm_i8mm(const ciot_mm *mm, int first, int count) {
    ciot_gemm4_run(mm, first, count, sizeof(block_t2p), tile);
}

const ciot_kernel ciot_k_t2p_gemm_i8mm = {
    "t2p_gemm_i8mm", &ciot_layout_t2p, &ciot_act_q8_Kx4, CIOT_OP_GEMM, CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_I8MM,
    "t2p_gemm_ref", t2p_gemm_i8mm,
};
