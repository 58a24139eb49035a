/* glu and the residual add, NEON: the reference per element (kernels/ops.md). */
#include "ops_impl.h"
#include "ops_neon.h"

void ciot_glu_neon(const ciot_glu_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->n, part, parts, &lo, &hi);
    long i = lo;
    if (a->mode == CIOT_GLU_ADD) {
        for (; i + 4 <= hi; i += 4) vst1q_f32(a->y + i, vaddq_f32(vld1q_f32(a->y + i), vld1q_f32(a->up + i)));
        for (; i < hi; i++) a->y[i] = a->y[i] + a->up[i];
    } else {
        for (; i + 4 <= hi; i += 4) vst1q_f32(a->y + i, vmulq_f32(ciot_silu4(vld1q_f32(a->gate + i)), vld1q_f32(a->up + i)));
        for (; i < hi; i++) a->y[i] = ciot_ops_siluf(a->gate[i]) * a->up[i];
    }
}
