/* tl3_gemv_ref: TL3 tiles against Q8_0 activations, reading the layout "the other way round": row r's
 * group code sb[q].qs[g][r] has the value V = ciot_tl3_value(code) whose trit n, (V / 3^(4 - n)) % 3, is
 * weight 32q + 5g + n; nibble (r >> 7) of sb[q].qn[r & 127] has the pair value P, weights 32q + 30, 32q + 31 are
 * P / 3 and P % 3. Tile t's block i is block ciot_lut_block_index(t, i, ...) of the matrix (group / chunk
 * order, formats.h). The PTQ1_0 float order of spec/formats.md: four lanes per row, one per 32-weight
 * sub-block, then (a0 + a1) + (a2 + a3). K % 128 == 0, rows % 256 == 0.
 * tl3_gemm_ref and tl3_tq1_gemm_ref: the gemv references per activation row (ciot_gemm_by_rows).
 * tl3_tq1_gemv_ref: TQ1_0 in TL3's bytes (layout tl3_tq1) against Q8_K, the same decoding; 128-blocks 2q and
 * 2q + 1 are the halves of 256-block q: their eight sub-block sums are added as integers, then one fmaf with
 * the scale of block 2q + 1 (both carry it), TQ1_0's order (kernels/README-tq.md). K % 256 == 0. */
#include <math.h>
#include "fp16.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "ref_common.h"

/* Exact dot of row r's sub-block q (32 weights, w = trit - 1) with a[0..31]. */
static int32_t subblock_dot(const block_tl3 *w, int r, int q, const int8_t *a) {
    static const int pow3[5] = {81, 27, 9, 3, 1};
    int32_t s = 0;
    for (int g = 0; g < 6; g++) {
        const int V = ciot_tl3_value(w->sb[q].qs[g][r]);
        for (int n = 0; n < 5; n++) s += (V / pow3[n] % 3 - 1) * a[5 * g + n];
    }
    const int P = ciot_tl3_pair_value((w->sb[q].qn[r & 127] >> (4 * (r >> 7))) & 15);
    return s + (P / 3 - 1) * a[30] + (P % 3 - 1) * a[31];
}

static void tl3_gemv_ref(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, tiles = mm->rows / CIOT_LUT_TILE;
    const block_q8_0 *x = mm->x;
    for (int t = first; t < first + count; t++) {
        float acc[CIOT_LUT_TILE][4] = {{0}};
        for (int i = 0; i < nb; i++) {
            const block_tl3 *w = (const block_tl3 *)mm->w + ciot_lut_block_index(t, i, tiles, nb, CIOT_TL3_GROUP);
            ciot_prefetch(w, sizeof *w, mm->prefetch);
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const float dw = ciot_fp16_to_fp32(w->d[r]);
                for (int q = 0; q < 4; q++) {
                    const block_q8_0 *y = &x[4 * i + q];
                    acc[r][q] = fmaf((float)subblock_dot(w, r, q, y->qs), ciot_fp16_to_fp32(y->d) * dw, acc[r][q]);
                }
            }
        }
        for (int r = 0; r < CIOT_LUT_TILE; r++)
            mm->y[(size_t)CIOT_LUT_TILE * t + r] = (acc[r][0] + acc[r][1]) + (acc[r][2] + acc[r][3]);
    }
}

const ciot_kernel ciot_k_tl3_gemv_ref = {
    "tl3_gemv_ref", &ciot_layout_tl3, &ciot_act_q8_0, CIOT_OP_GEMV, 0, "tl3_gemv_ref", tl3_gemv_ref, CIOT_MAC_SCALAR,
};

static void tl3_gemm_ref(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows(mm, first, count, tl3_gemv_ref, &ciot_act_q8_0);
}

const ciot_kernel ciot_k_tl3_gemm_ref = {
    "tl3_gemm_ref", &ciot_layout_tl3, &ciot_act_q8_0, CIOT_OP_GEMM, 0, "tl3_gemm_ref", tl3_gemm_ref, CIOT_MAC_SCALAR,
};

static void tl3_tq1_gemv_ref(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, tiles = mm->rows / CIOT_LUT_TILE;
    const block_q8_K *x = mm->x;
    for (int t = first; t < first + count; t++) {
        float acc[CIOT_LUT_TILE] = {0};
        for (int q = 0; q < nb / 2; q++) {
            const block_tl3 *w[2];
            for (int h = 0; h < 2; h++) {
                w[h] = (const block_tl3 *)mm->w + ciot_lut_block_index(t, 2 * q + h, tiles, nb, CIOT_TL3_GROUP);
                ciot_prefetch(w[h], sizeof *w[h], mm->prefetch);
            }
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                int32_t isum = 0;
                for (int h = 0; h < 2; h++)
                    for (int s = 0; s < 4; s++) isum += subblock_dot(w[h], r, s, x[q].qs + CIOT_QK * h + 32 * s);
                acc[r] = ciot_acc_q8_K(acc[r], isum, w[1]->d[r], x[q].d);
            }
        }
        for (int r = 0; r < CIOT_LUT_TILE; r++) mm->y[(size_t)CIOT_LUT_TILE * t + r] = acc[r];
    }
}

const ciot_kernel ciot_k_tl3_tq1_gemv_ref = {
    "tl3_tq1_gemv_ref", &ciot_layout_tl3_tq1, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "tl3_tq1_gemv_ref", tl3_tq1_gemv_ref,
    CIOT_MAC_SCALAR,
};

static void tl3_tq1_gemm_ref(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows(mm, first, count, tl3_tq1_gemv_ref, &ciot_act_q8_K);
}

const ciot_kernel ciot_k_tl3_tq1_gemm_ref = {
    "tl3_tq1_gemm_ref", &ciot_layout_tl3_tq1, &ciot_act_q8_K, CIOT_OP_GEMM, 0, "tl3_tq1_gemm_ref", tl3_tq1_gemm_ref,
    CIOT_MAC_SCALAR,
};
