/* The T2X4 references, gemv and gemm: T2X4 bytes read the way the layout is defined "the other way round":
 * byte j of group g of row r holds weights 64g + j + 16s in slots s = 0..3 (bits 2s..2s+1). */
#include "tile4x4.h"

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

static void gemv(const ciot_mm *mm, int first, int count) { ciot_tile4x4_gemv_ref(mm, first, count, t2x4_dot, 1); }
static void gemm(const ciot_mm *mm, int first, int count) { ciot_tile4x4_gemm_ref(mm, first, count, t2x4_dot, 1); }

CIOT_REFERENCE(t2x4_gemv_ref, .layout = &ciot_layout_t2x4, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV, .compute = gemv,
               .mac = CIOT_MAC_SCALAR);
CIOT_REFERENCE(t2x4_gemm_ref, .layout = &ciot_layout_t2x4, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM, .compute = gemm,
               .mac = CIOT_MAC_SCALAR);
