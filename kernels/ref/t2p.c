/* The T2P references, gemv and gemm: T2P bytes read "the other way round" (ciot_t2p_dot_ref, common.h), one
 * float step per 128-block with its own scales (PQ2_0's order, kernels/formats.md). */
#include "common.h"
#include "tile4x4.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemv_ref(mm, first, count, ciot_t2p_dot_ref, 1);
}
static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemm_ref(mm, first, count, ciot_t2p_dot_ref, 1);
}

CIOT_REFERENCE(t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV, .compute = gemv,
               .mac = CIOT_MAC_SCALAR);
CIOT_REFERENCE(t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM, .compute = gemm,
               .mac = CIOT_MAC_SCALAR);
