/* ptq1_0_gemv_ref: PTQ1_0 rows against Q8_0 activations. Four float lanes, one per 32-weight
 * sub-block, combined as (acc0 + acc1) + (acc2 + acc3) (spec/formats.md). K % 128 == 0.
 * ptq1_0_gemm_ref: the same per activation row (ciot_gemm_by_rows), for shapes no repacked layout takes. */
#include <math.h>
#include "fp16.h"
#include "kernel.h"
#include "ref_common.h"
#include "prefetch.h"
#include "quant.h"

static void ptq1_0_gemv_ref(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_0 *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const block_ptq1_0 *w = (const block_ptq1_0 *)mm->w + (size_t)r * nb;
        float acc[4] = {0, 0, 0, 0};
        for (int i = 0; i < nb; i++) {
            ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
            const float dw = ciot_fp16_to_fp32(w[i].d);
            for (int q = 0; q < 4; q++) {
                const block_q8_0 *y = &x[4 * i + q];
                int32_t isum = 0;
                for (int e = 0; e < 32; e++) isum += (ciot_ptq1_code(&w[i], 32 * q + e) - 1) * y->qs[e];
                acc[q] = fmaf((float)isum, ciot_fp16_to_fp32(y->d) * dw, acc[q]);
            }
        }
        mm->y[r] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
}

const ciot_kernel ciot_k_ptq1_0_gemv_ref = {
    "ptq1_0_gemv_ref", &ciot_layout_ptq1_0, &ciot_act_q8_0, CIOT_OP_GEMV, 0, "ptq1_0_gemv_ref", ptq1_0_gemv_ref,
    CIOT_MAC_SCALAR,
};

static void ptq1_0_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_gemm_by_rows(mm, first, count, ptq1_0_gemv_ref, &ciot_act_q8_0); }

const ciot_kernel ciot_k_ptq1_0_gemm_ref = {
    "ptq1_0_gemm_ref", &ciot_layout_ptq1_0, &ciot_act_q8_0, CIOT_OP_GEMM, 0, "ptq1_0_gemm_ref", ptq1_0_gemm_ref,
    CIOT_MAC_SCALAR,
};
