/* The references of TQ1_0 in TL16's bytes (layout tl16_tq1). The gemv: against Q8_K, TL16's decoding
 * (ciot_tl16_subblock_dot_ref, common.h); 128-blocks 2q and 2q + 1 are the halves of 256-block q: their eight
 * sub-block sums are added as integers, then one fmaf with the scale of block 2q + 1 (both carry it), TQ1_0's
 * order (kernels/README-tq.md). K % 256 == 0, rows % 256 == 0. The gemm: the gemv per activation row
 * (ciot_gemm_by_rows_ref). */
#include "common.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, tiles = mm->rows / CIOT_LUT_TILE;
    const block_q8_K *x = mm->x;
    for (int t = first; t < first + count; t++) {
        float acc[CIOT_LUT_TILE] = {0};
        for (int q = 0; q < nb / 2; q++) {
            const block_tl16 *w[2];
            for (int h = 0; h < 2; h++) {
                w[h] = (const block_tl16 *)mm->w + ciot_lut_block_index(t, 2 * q + h, tiles, nb, CIOT_TL16_GROUP);
                ciot_prefetch(w[h], sizeof *w[h], mm->prefetch);
            }
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                int32_t isum = 0;
                for (int h = 0; h < 2; h++)
                    for (int s = 0; s < 4; s++)
                        isum += ciot_tl16_subblock_dot_ref(w[h], r, s, x[q].qs + CIOT_QK * h + 32 * s);
                acc[r] = ciot_acc_q8_K_ref(acc[r], isum, w[1]->v[r >> 5].d[r & 31], x[q].d);
            }
        }
        for (int r = 0; r < CIOT_LUT_TILE; r++) mm->y[(size_t)CIOT_LUT_TILE * t + r] = acc[r];
    }
}

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows_ref(mm, first, count, gemv, &ciot_act_q8_K);
}

CIOT_REFERENCE(tl16_tq1_gemv_ref, .layout = &ciot_layout_tl16_tq1, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
               .compute = gemv, .mac = CIOT_MAC_SCALAR);
CIOT_REFERENCE(tl16_tq1_gemm_ref, .layout = &ciot_layout_tl16_tq1, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMM,
               .compute = gemm, .mac = CIOT_MAC_SCALAR);
