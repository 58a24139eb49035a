/* pq2_0_gemv_ref: the stock method in C. One row at a time (tile = 1 row), every 128-block decoded
 * directly (code - 1) and dotted with its half of a Q8_K block; no activation sums. K % 256 == 0.
 * pq2_0_gemm_ref: the same per activation row (ciot_gemm_by_rows), for shapes no repacked layout takes. */
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "ref_common.h"

static void pq2_0_gemv_ref(const ciot_mm *mm, int first, int count) {
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
            acc = ciot_acc_q8_K(acc, isum, w[i].d, x[i >> 1].d);
        }
        mm->y[r] = acc;
    }
}

const ciot_kernel ciot_k_pq2_0_gemv_ref = {
    "pq2_0_gemv_ref", &ciot_layout_pq2_0, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "pq2_0_gemv_ref", pq2_0_gemv_ref,
    CIOT_MAC_SCALAR,
};

static void pq2_0_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_gemm_by_rows(mm, first, count, pq2_0_gemv_ref, &ciot_act_q8_K); }

const ciot_kernel ciot_k_pq2_0_gemm_ref = {
    "pq2_0_gemm_ref", &ciot_layout_pq2_0, &ciot_act_q8_K, CIOT_OP_GEMM, 0, "pq2_0_gemm_ref", pq2_0_gemm_ref,
    CIOT_MAC_SCALAR,
};
