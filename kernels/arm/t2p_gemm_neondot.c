#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemm_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* The gemm: the T2P gemm for cores with SDOT but no SMMLA (Cortex-A76, Neoverse N1): each real
 * activation row of a Q8_Kx4 group prepared for the T2P block loop, a chunk of K at a time, and the loop of
 * t2p_gemv_neondot run per tile and row (t2p_dot_neondot.h). Reads T2P like t2p_gemv_neondot.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups. */
#include "kernel.h"
#include "t2p_dot_neondot.h"

/* kept out of line: the arm-cost markers then bound exactly this loop */
__attribute__((noinline)) static float32x4_t loop(const block_t2p *w, const ciot_t2p_act2_neon *a, int n,
                                                  float32x4_t acc, size_t prefetch) {
    CIOT_MCA_BEGIN("t2p_gemm_neondot");
    acc = ciot_t2p_blocks_neondot(w, a, n, acc, prefetch);
    CIOT_MCA_END();
    return acc;
}

static void gemm(const ciot_mm *mm, int first, int count) { ciot_t2p_gemm_loop_neondot(mm, first, count, loop); }

CIOT_KERNEL(t2p_gemm_neondot, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_NEON | CIOT_F_DOTPROD, .compute = gemm, .mac = CIOT_MAC_NEONDOT);
