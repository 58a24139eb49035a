/* rmsnorm: checks, sizes and the scalar reference (kernels/ops.md). */
#include "ops_impl.h"
#include "ops_math.h"

ciot_status ciot_rmsnorm_check(const ciot_rmsnorm_args *a, char *why, size_t len) {
    if (!a->x || !a->w || !a->y) return ciot_error(CIOT_E_ARG, why, len, "rmsnorm: a NULL pointer");
    if (a->rows < 1 || a->n < 16 || a->n % 16)
        return ciot_error(CIOT_E_SHAPE, why, len, "rmsnorm: rows %d x n %d (rows >= 1, n a multiple of 16)",
                          a->rows, a->n);
    if (a->stride && a->stride < a->n)
        return ciot_error(CIOT_E_SHAPE, why, len, "rmsnorm: stride %d below n %d", a->stride, a->n);
    if (!(a->eps >= 0)) return ciot_error(CIOT_E_ARG, why, len, "rmsnorm: eps must be >= 0");
    return CIOT_OK;
}

int ciot_rmsnorm_phases(const ciot_rmsnorm_args *a) { return 1; }
size_t ciot_rmsnorm_scratch_bytes(const ciot_rmsnorm_args *a) { return 0; }

void ciot_rmsnorm_traffic(const ciot_rmsnorm_args *a, ciot_op_traffic *t) {
    size_t v = (size_t)a->rows * a->n * sizeof(float);
    *t = (ciot_op_traffic){.weights = (size_t)a->n * sizeof(float), .act_read = v, .act_written = v};
}
size_t ciot_rmsnorm_bytes(const ciot_rmsnorm_args *a) {
    ciot_op_traffic t;
    ciot_rmsnorm_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

void ciot_rmsnorm_ref(const ciot_rmsnorm_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->rows, part, parts, &lo, &hi);
    int stride = ciot_rmsnorm_stride(a);
    for (long r = lo; r < hi; r++) {
        const float *x = a->x + r * stride;
        float *y = a->y + r * stride;
        float inv = 1.0f / sqrtf(ciot_ops_dot(x, x, a->n) / (float)a->n + a->eps);
        for (int i = 0; i < a->n; i++) y[i] = x[i] * inv * a->w[i];
    }
}
