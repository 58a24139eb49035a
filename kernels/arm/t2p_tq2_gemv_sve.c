#if !defined(__ARM_FEATURE_SVE)
#error "t2p_tq2_gemv_sve.c needs -march=armv8.2-a+sve (cmake/isa.cmake gives it to *_sve.c)"
#endif
/* The gemv with SVE SDOT at any vector length: T2P made from TQ2_0 (blocks 2q, 2q + 1 = 256-block q, its
 * scale in both), 4 weight rows x one Q8_K row per tile, the loop of t2p_gemv_sve (t2p_dot_sve.h) with one
 * float step per 256-block: per row the two halves' exact integer sums joined, then acc = fmaf((float) isum_q,
 * fp32(d[2q]) * d_y, acc). Preconditions: K % 256 == 0, rows % 4 == 0, batch 1. */
#include "kernel.h"
#include "t2p_dot_sve.h"

static float32x4_t loop(const block_t2p *w, const ciot_t2p_act2_sve *a, int n, float32x4_t acc, size_t prefetch) {
    CIOT_MCA_BEGIN("t2p_tq2_gemv_sve");
    acc = ciot_t2p_tq2_blocks_sve(w, a, n, acc, prefetch);
    CIOT_MCA_END();
    return acc;
}

static void gemv(const ciot_mm *mm, int first, int count) { ciot_t2p_gemv_loop_sve(mm, first, count, loop); }

CIOT_KERNEL(t2p_tq2_gemv_sve, t2p_tq2_gemv_ref, .layout = &ciot_layout_t2p_tq2, .act = &ciot_act_q8_K,
            .op = CIOT_OP_GEMV, .features = CIOT_F_NEON | CIOT_F_SVE, .compute = gemv, .mac = CIOT_MAC_SVEDOT);
