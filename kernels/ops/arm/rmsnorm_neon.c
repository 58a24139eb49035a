/* rmsnorm, NEON: the reference's order (kernels/ops.md), four lanes at a time. */
#include "ops_impl.h"
#include "ops_neon.h"

void ciot_rmsnorm_neon(const ciot_rmsnorm_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->rows, part, parts, &lo, &hi);
    int stride = ciot_rmsnorm_stride(a);
    for (long r = lo; r < hi; r++) {
        const float *x = a->x + r * stride;
        float *y = a->y + r * stride;
        float32x4_t inv = vdupq_n_f32(1.0f / sqrtf(ciot_dot_neon(x, x, a->n) / (float)a->n + a->eps));
        for (int i = 0; i < a->n; i += 4)
            vst1q_f32(y + i, vmulq_f32(vmulq_f32(vld1q_f32(x + i), inv), vld1q_f32(a->w + i)));
    }
}
