#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_tq2_gemv_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* t2p_tq2_gemv_neondot: T2P made from TQ2_0 (blocks 2q, 2q + 1 = 256-block q, its scale in both), 4 weight
 * rows x one Q8_K row per tile. Reads T2P as t2p_gemv_neondot does, with the same block dot
 * (t2p_blocks_neondot.h); per row the two halves' exact integer sums are added, then
 * acc = fmaf((float) isum_q, fp32(d[2q]) * d_y, acc), one step per 256-block.
 * Preconditions: K % 256 == 0, rows % 4 == 0, batch 1. */
#include "kernel.h"
#include "t2p_blocks_neondot.h"

static void t2p_tq2_gemv_neondot(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    for (int t = first; t < first + count; t++) {
        const block_t2p *w = (const block_t2p *)mm->w + (size_t)t * nb;
        CIOT_MCA_BEGIN("t2p_tq2_gemv_neondot");
        const float32x4_t acc = ciot_t2p_blocks_neondot(w, mm->x, nb / 2, vdupq_n_f32(0.0f), mm->prefetch, 2);
        CIOT_MCA_END();
        vst1q_f32(mm->y + 4 * t, acc);
    }
}

const ciot_kernel ciot_k_t2p_tq2_gemv_neondot = {
    "t2p_tq2_gemv_neondot", &ciot_layout_t2p_tq2, &ciot_act_q8_K, CIOT_OP_GEMV, CIOT_F_NEON | CIOT_F_DOTPROD,
    "t2p_tq2_gemv_ref", t2p_tq2_gemv_neondot,
};
