/* Shared by the scalar references: the canonical float step of spec/formats.md, and a gemm as its gemv per
 * activation row. */
#ifndef CIOT_REF_COMMON_H
#define CIOT_REF_COMMON_H

#include <math.h>
#include <stdint.h>
#include "fp16.h"
#include "kernel.h"

/* PQ2_0 family, one 128-block: acc = fmaf((float) isum, fp32(d_w) * d_y, acc). */
static inline float ciot_acc_q8_K(float acc, int32_t isum, uint16_t d_w, float d_y) {
    return fmaf((float)isum, ciot_fp16_to_fp32(d_w) * d_y, acc);
}

/* A gemm reference: the gemv reference run once per activation row (format `act`, rows one after another),
 * row b into y + b * ldy, so every row gets the gemv's float order. */
static inline void ciot_gemm_by_rows(const ciot_mm *mm, int first, int count, ciot_compute_fn gemv,
                                     const ciot_act_format *act) {
    const size_t row_bytes = ciot_act_bytes(act, 1, mm->K);
    for (int b = 0; b < mm->batch; b++) {
        ciot_mm row = *mm;
        row.x = (const unsigned char *)mm->x + (size_t)b * row_bytes;
        row.y = mm->y + (size_t)b * mm->ldy;
        row.batch = 1;
        gemv(&row, first, count);
    }
}

#endif
