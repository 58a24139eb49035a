/* The PTQ1_0 references. The gemv: PTQ1_0 rows against Q8_0 activations. Four float lanes, one per 32-weight
 * sub-block, combined as (acc0 + acc1) + (acc2 + acc3) (kernels/formats.md). K % 128 == 0. The gemm: the same
 * per activation row (ciot_gemm_by_rows_ref), for shapes no repacked layout takes. */
#include "common.h"
#include "quant.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_0 *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const block_ptq1_0 *w = (const block_ptq1_0 *)mm->w + (size_t)r * nb;
        float acc[4] = {0, 0, 0, 0};
        for (int i = 0; i < nb; i++) {
            ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
            const float dw = ciot_fp16_to_fp32(w[i].d);
            uint8_t u[CIOT_QK];
            ciot_ptq1_codes(&w[i], u);
            for (int q = 0; q < 4; q++) {
                const block_q8_0 *y = &x[4 * i + q];
                int32_t isum = 0;
                for (int e = 0; e < 32; e++) isum += (u[32 * q + e] - 1) * y->qs[e];
                acc[q] = fmaf((float)isum, ciot_fp16_to_fp32(y->d) * dw, acc[q]);
            }
        }
        mm->y[r] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
}

CIOT_REFERENCE(ptq1_0_gemv_ref, .layout = &ciot_layout_ptq1_0, .act = &ciot_act_q8_0, .op = CIOT_OP_GEMV,
               .compute = gemv, .mac = CIOT_MAC_SCALAR);

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_gemm_by_rows_ref(mm, first, count, gemv, &ciot_act_q8_0);
}

CIOT_REFERENCE(ptq1_0_gemm_ref, .layout = &ciot_layout_ptq1_0, .act = &ciot_act_q8_0, .op = CIOT_OP_GEMM,
               .compute = gemm, .mac = CIOT_MAC_SCALAR);
