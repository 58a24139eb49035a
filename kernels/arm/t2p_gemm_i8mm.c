#if !defined(__ARM_FEATURE_MATMUL_INT8) || !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemm_i8mm.c needs -march=armv8.2-a+dotprod+i8mm (cmake/isa.cmake gives it to *_i8mm.c)"
#endif
/* The gemm: 4 weight rows x 4 activation rows (one Q8_Kx4 group) per SMMLA tile.
 * Reads T2P: slot s of word w of pair p is [row 2p: weights 8c .. 8c+7 | row 2p+1: same], c = 4w + s, the
 * 2x8 left operand as stored; Q8_Kx4 bytes 32c .. 32c+15 (rows 0-1) and 32c+16 .. 32c+31 (rows 2-3) of
 * chunk c are the right operands. Every decoded slot and every activation load feeds two SMMLA; no zips.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups, the last zero-padded. */
#include "t2p_dot_i8mm.h"

/* Weight tile `wt` (nb blocks) x one Q8_Kx4 group `x`: out[c] = [row 0..3] of activation row c. */
static void tile(const void *wt, const block_q8_Kx4 *x, int nb, float32x4_t out[4]) {
    float32x4_t acc[2][2];
    for (int p = 0; p < 2; p++) acc[p][0] = acc[p][1] = vdupq_n_f32(0.0f);
    CIOT_MCA_BEGIN("t2p_gemm_i8mm");
    ciot_t2p_blocks_i8mm(wt, x, nb, acc, 1);
    CIOT_MCA_END();
    ciot_tile4x4_columns_i8mm(acc, out);
}

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemm_i8mm(mm, first, count, sizeof(block_t2p), tile);
}

CIOT_KERNEL(t2p_gemm_i8mm, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_I8MM, .compute = gemm, .mac = CIOT_MAC_I8MM);
