/* t2p_gemv_ref, t2p_gemm_ref: read T2P bytes the way the layout is defined "the other way round":
 * byte j of word w of pair p holds, in slot s, row 2p + (j >= 8), weight 8 * (4w + s) + (j & 7).
 * t2p_tq2_gemv_ref, t2p_tq2_gemm_ref: the same bytes repacked from TQ2_0; blocks 2q and 2q + 1 are one
 * 256-block, their integer sums added before one float step with block 2q's scales. */
#include "ref_tile4.h"

static void t2p_dot(const uint8_t qs[128], const int8_t *a, int32_t isum[4]) {
    for (int r = 0; r < 4; r++) isum[r] = 0;
    for (int p = 0; p < 2; p++)
        for (int w = 0; w < 4; w++)
            for (int j = 0; j < 16; j++) {
                const uint8_t byte = qs[64 * p + 16 * w + j];
                const int r = 2 * p + (j >= 8);
                for (int s = 0; s < 4; s++) isum[r] += (((byte >> (2 * s)) & 3) - 1) * a[8 * (4 * w + s) + (j & 7)];
            }
}

static void t2p_gemv_ref(const ciot_mm *mm, int first, int count) { ciot_ref_gemv4(mm, first, count, t2p_dot, 1); }
static void t2p_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_ref_gemm4(mm, first, count, t2p_dot, 1); }

static void t2p_tq2_gemv_ref(const ciot_mm *mm, int first, int count) { ciot_ref_gemv4(mm, first, count, t2p_dot, 2); }
static void t2p_tq2_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_ref_gemm4(mm, first, count, t2p_dot, 2); }

const ciot_kernel ciot_k_t2p_gemv_ref = {
    "t2p_gemv_ref", &ciot_layout_t2p, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "t2p_gemv_ref", t2p_gemv_ref, CIOT_MAC_SCALAR,
};
const ciot_kernel ciot_k_t2p_gemm_ref = {
    "t2p_gemm_ref", &ciot_layout_t2p, &ciot_act_q8_Kx4, CIOT_OP_GEMM, 0, "t2p_gemm_ref", t2p_gemm_ref, CIOT_MAC_SCALAR,
};
const ciot_kernel ciot_k_t2p_tq2_gemv_ref = {
    "t2p_tq2_gemv_ref", &ciot_layout_t2p_tq2, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "t2p_tq2_gemv_ref", t2p_tq2_gemv_ref,
    CIOT_MAC_SCALAR,
};
const ciot_kernel ciot_k_t2p_tq2_gemm_ref = {
    "t2p_tq2_gemm_ref", &ciot_layout_t2p_tq2, &ciot_act_q8_Kx4, CIOT_OP_GEMM, 0, "t2p_tq2_gemm_ref", t2p_tq2_gemm_ref,
    CIOT_MAC_SCALAR,
};
