/* The TL2 references. The gemv: TL2 tiles against Q8_K activations, reading the layout "the other way
 * round": byte qs[j][r] holds row r's weights 4j + n in bits 2n .. 2n + 1 (code - 1 = weight; code 3 is +2);
 * tile t's block i is block ciot_lut_block_index(t, i, ...) of the matrix (group order, formats.h). The PQ2_0
 * float order of kernels/formats.md: one fmaf per row and 128-block. K % 256 == 0, rows % 256 == 0. The gemm:
 * the gemv per activation row (ciot_gemm_by_rows_ref). */
#include "common.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, tiles = mm->rows / CIOT_LUT_TILE;
    const block_q8_K *x = mm->x;
    for (int t = first; t < first + count; t++) {
        float acc[CIOT_LUT_TILE] = {0};
        for (int i = 0; i < nb; i++) {
            const block_tl2 *w = (const block_tl2 *)mm->w + ciot_lut_block_index(t, i, tiles, nb, CIOT_TL2_GROUP);
            ciot_prefetch(w, sizeof *w, mm->prefetch);
            const int8_t *a = x[i >> 1].qs + 128 * (i & 1);
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                int32_t isum = 0;
                for (int j = 0; j < 32; j++)
                    for (int n = 0; n < 4; n++) isum += (((w->qs[j][r] >> (2 * n)) & 3) - 1) * a[4 * j + n];
                acc[r] = ciot_acc_q8_K_ref(acc[r], isum, w->d[r], x[i >> 1].d);
            }
        }
        for (int r = 0; r < CIOT_LUT_TILE; r++) mm->y[(size_t)CIOT_LUT_TILE * t + r] = acc[r];
    }
}

CIOT_REFERENCE(tl2_gemv_ref, .layout = &ciot_layout_tl2, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV, .compute = gemv,
               .mac = CIOT_MAC_SCALAR);

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows_ref(mm, first, count, gemv, &ciot_act_q8_K);
}

CIOT_REFERENCE(tl2_gemm_ref, .layout = &ciot_layout_tl2, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMM, .compute = gemm,
               .mac = CIOT_MAC_SCALAR);
