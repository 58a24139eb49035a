/* The TQ2_0 references. The gemv: TQ2_0 rows as stored against one Q8_K row, each block decoded on its own
 * (formats.h positions, ciot_tq_gemv_ref in common.h). K % 256 == 0. The gemm: the gemv per activation row
 * (ciot_gemm_by_rows_ref), for shapes no repacked layout takes. */
#include "common.h"
#include "quant.h"

static void codes(const void *b, uint8_t u[CIOT_QK_TQ]) {
    for (int k = 0; k < CIOT_QK_TQ; k++) u[k] = (uint8_t)ciot_tq2_code(b, k);
}

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_tq_gemv_ref(mm, first, count, sizeof(block_tq2_0), codes);
}
static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows_ref(mm, first, count, gemv, &ciot_act_q8_K);
}

CIOT_REFERENCE(tq2_0_gemv_ref, .layout = &ciot_layout_tq2_0, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV, .compute = gemv,
               .mac = CIOT_MAC_SCALAR);
CIOT_REFERENCE(tq2_0_gemm_ref, .layout = &ciot_layout_tq2_0, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMM, .compute = gemm,
               .mac = CIOT_MAC_SCALAR);
