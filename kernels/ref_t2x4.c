/* t2x4_gemv_ref, t2x4_gemm_ref: read T2X4 bytes the way the layout is defined "the other way round":
 * byte j of group g of row r holds weights 64g + j + 16s in slots s = 0..3 (bits 2s..2s+1). */
#include "ref_tile4.h"

static void t2x4_dot(const uint8_t qs[128], const int8_t *a, int32_t isum[4]) {
    for (int r = 0; r < 4; r++) {
        int32_t s32 = 0;
        for (int g = 0; g < 2; g++)
            for (int j = 0; j < 16; j++) {
                const uint8_t byte = qs[64 * g + 16 * r + j];
                for (int s = 0; s < 4; s++) s32 += (((byte >> (2 * s)) & 3) - 1) * a[64 * g + 16 * s + j];
            }
        isum[r] = s32;
    }
}

static void t2x4_gemv_ref(const ciot_mm *mm, int first, int count) { ciot_ref_gemv4(mm, first, count, t2x4_dot, 1); }
static void t2x4_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_ref_gemm4(mm, first, count, t2x4_dot, 1); }

const ciot_kernel ciot_k_t2x4_gemv_ref = {
    "t2x4_gemv_ref", &ciot_layout_t2x4, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "t2x4_gemv_ref", t2x4_gemv_ref,
    CIOT_MAC_SCALAR,
};
const ciot_kernel ciot_k_t2x4_gemm_ref = {
    "t2x4_gemm_ref", &ciot_layout_t2x4, &ciot_act_q8_Kx4, CIOT_OP_GEMM, 0, "t2x4_gemm_ref", t2x4_gemm_ref,
    CIOT_MAC_SCALAR,
};
