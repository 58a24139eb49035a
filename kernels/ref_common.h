/* Shared by the scalar references: the canonical float step of spec/formats.md. */
#ifndef CIOT_REF_COMMON_H
#define CIOT_REF_COMMON_H

#include <math.h>
#include <stdint.h>
#include "fp16.h"

/* PQ2_0 family, one 128-block: acc = fmaf((float) isum, fp32(d_w) * d_y, acc). */
static inline float ciot_acc_q8_K(float acc, int32_t isum, uint16_t d_w, float d_y) {
    return fmaf((float)isum, ciot_fp16_to_fp32(d_w) * d_y, acc);
}

#endif
