/* The references of T2P made from TQ2_0 (layout t2p_tq2), gemv and gemm: T2P's block dot (ciot_t2p_dot_ref,
 * common.h); blocks 2q and 2q + 1 are one 256-block, their integer sums added before one float step with
 * block 2q's scales (kernels/README-tq.md). */
#include "common.h"
#include "tile4x4.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemv_ref(mm, first, count, ciot_t2p_dot_ref, 2);
}
static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemm_ref(mm, first, count, ciot_t2p_dot_ref, 2);
}

CIOT_REFERENCE(t2p_tq2_gemv_ref, .layout = &ciot_layout_t2p_tq2, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
               .compute = gemv, .mac = CIOT_MAC_SCALAR);
CIOT_REFERENCE(t2p_tq2_gemm_ref, .layout = &ciot_layout_t2p_tq2, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
               .compute = gemm, .mac = CIOT_MAC_SCALAR);
