#if !defined(__ARM_FEATURE_MATMUL_INT8) || !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_tq2_gemm_i8mm.c needs -march=armv8.2-a+dotprod+i8mm (cmake/isa.cmake gives it to *_i8mm.c)"
#endif
/* The gemm: T2P made from TQ2_0 (blocks 2q, 2q + 1 = 256-block q, its scale in both), 4 weight
 * rows x 4 activation rows (one Q8_Kx4 group) per SMMLA tile. Reads T2P and Q8_Kx4 as t2p_gemm_i8mm does
 * (t2p_dot_i8mm.h); per (weight row, activation row) the two halves' exact integer sums are added,
 * then one fmaf per 256-block with block 2q's scales.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups, the last zero-padded. */
#include "t2p_dot_i8mm.h"

/* Weight tile `wt` (nb blocks) x one Q8_Kx4 group `x`: out[c] = [row 0..3] of activation row c. */
static void tile(const void *wt, const block_q8_Kx4 *x, int nb, float32x4_t out[4]) {
    float32x4_t acc[2][2];
    for (int p = 0; p < 2; p++) acc[p][0] = acc[p][1] = vdupq_n_f32(0.0f);
    CIOT_MCA_BEGIN("t2p_tq2_gemm_i8mm");
    ciot_t2p_blocks_i8mm(wt, x, nb, acc, 2);
    CIOT_MCA_END();
    ciot_tile4x4_columns_i8mm(acc, out);
}

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemm_i8mm(mm, first, count, sizeof(block_t2p), tile);
}

CIOT_KERNEL(t2p_tq2_gemm_i8mm, t2p_tq2_gemm_ref, .layout = &ciot_layout_t2p_tq2, .act = &ciot_act_q8_Kx4,
            .op = CIOT_OP_GEMM, .features = CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_I8MM, .compute = gemm,
            .mac = CIOT_MAC_I8MM);
