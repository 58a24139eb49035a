#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemm_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* t2p_gemm_neondot: the T2P gemm for cores with SDOT but no SMMLA (Cortex-A76, Neoverse N1): each real
 * activation row of a Q8_Kx4 group prepared for the T2P block loop, a chunk of K at a time, and the loop of
 * t2p_gemv_neondot run per tile and row (t2p_blocks_neondot.h). Reads T2P like t2p_gemv_neondot.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups. */
#include "kernel.h"
#include "t2p_blocks_neondot.h"

/* kept out of line: the neon-cost markers then bound exactly this loop */
__attribute__((noinline)) static float32x4_t loop(const block_t2p *w, const ciot_t2p_act2_neon *a, int n,
                                                  float32x4_t acc, size_t prefetch) {
    CIOT_MCA_BEGIN("t2p_gemm_neondot");
    acc = ciot_t2p_blocks_neondot(w, a, n, acc, prefetch);
    CIOT_MCA_END();
    return acc;
}

static void t2p_gemm_neondot(const ciot_mm *mm, int first, int count) { ciot_t2p_gemm_neondot_run(mm, first, count, loop); }

const ciot_kernel ciot_k_t2p_gemm_neondot = {
    "t2p_gemm_neondot", &ciot_layout_t2p, &ciot_act_q8_Kx4, CIOT_OP_GEMM, CIOT_F_NEON | CIOT_F_DOTPROD,
    "t2p_gemm_ref", t2p_gemm_neondot, CIOT_MAC_NEONDOT,
};
