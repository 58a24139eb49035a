/* The TL16 references. The gemv: TL16 tiles against Q8_0 activations, the bytes read "the other way round"
 * (ciot_tl16_subblock_dot_ref, common.h). Tile t's block i is block ciot_lut_block_index(t, i, ...) of the
 * matrix (group / chunk order, formats.h). The PTQ1_0 float order of kernels/formats.md: four lanes per row, one
 * per 32-weight sub-block, then (a0 + a1) + (a2 + a3). K % 128 == 0, rows % 256 == 0. The gemm: the gemv per
 * activation row (ciot_gemm_by_rows_ref). */
#include "common.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, tiles = mm->rows / CIOT_LUT_TILE;
    const block_q8_0 *x = mm->x;
    for (int t = first; t < first + count; t++) {
        float acc[CIOT_LUT_TILE][4] = {{0}};
        for (int i = 0; i < nb; i++) {
            const block_tl16 *w = (const block_tl16 *)mm->w + ciot_lut_block_index(t, i, tiles, nb, CIOT_TL16_GROUP);
            ciot_prefetch(w, sizeof *w, mm->prefetch);
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const float dw = ciot_fp16_to_fp32(w->v[r >> 5].d[r & 31]);
                for (int q = 0; q < 4; q++) {
                    const block_q8_0 *y = &x[4 * i + q];
                    acc[r][q] = fmaf((float)ciot_tl16_subblock_dot_ref(w, r, q, y->qs), ciot_fp16_to_fp32(y->d) * dw,
                                     acc[r][q]);
                }
            }
        }
        for (int r = 0; r < CIOT_LUT_TILE; r++)
            mm->y[(size_t)CIOT_LUT_TILE * t + r] = (acc[r][0] + acc[r][1]) + (acc[r][2] + acc[r][3]);
    }
}

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows_ref(mm, first, count, gemv, &ciot_act_q8_0);
}

CIOT_REFERENCE(tl16_gemv_ref, .layout = &ciot_layout_tl16, .act = &ciot_act_q8_0, .op = CIOT_OP_GEMV, .compute = gemv,
               .mac = CIOT_MAC_SCALAR);
CIOT_REFERENCE(tl16_gemm_ref, .layout = &ciot_layout_tl16, .act = &ciot_act_q8_0, .op = CIOT_OP_GEMM, .compute = gemm,
               .mac = CIOT_MAC_SCALAR);
