/* The PQ2_0 references. The gemv: the stock method in C. One row at a time (tile = 1 row), every 128-block
 * decoded directly (code - 1) and dotted with its half of a Q8_K block; no activation sums. K % 256 == 0.
 * The gemm: the same per activation row (ciot_gemm_by_rows_ref), for shapes no repacked layout takes. */
#include "common.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const block_pq2_0 *w = (const block_pq2_0 *)mm->w + (size_t)r * nb;
        float acc = 0.0f;
        for (int i = 0; i < nb; i++) {
            ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
            const int8_t *a = x[i >> 1].qs + 128 * (i & 1);
            int32_t isum = 0;
            for (int k = 0; k < CIOT_QK; k++) isum += (ciot_pq2_code(&w[i], k) - 1) * a[k];
            acc = ciot_acc_q8_K_ref(acc, isum, w[i].d, x[i >> 1].d);
        }
        mm->y[r] = acc;
    }
}

CIOT_REFERENCE(pq2_0_gemv_ref, .layout = &ciot_layout_pq2_0, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV, .compute = gemv,
               .mac = CIOT_MAC_SCALAR);

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows_ref(mm, first, count, gemv, &ciot_act_q8_K);
}

CIOT_REFERENCE(pq2_0_gemm_ref, .layout = &ciot_layout_pq2_0, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMM, .compute = gemm,
               .mac = CIOT_MAC_SCALAR);
