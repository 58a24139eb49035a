/* glu and the residual add: checks, sizes and the scalar reference (kernels/ops.md). */
#include "ops_impl.h"
#include "ops_math.h"

ciot_status ciot_glu_check(const ciot_glu_args *a, char *why, size_t len) {
    if (a->mode != CIOT_GLU_SILU && a->mode != CIOT_GLU_ADD)
        return ciot_error(CIOT_E_ARG, why, len, "glu: unknown mode %d", (int)a->mode);
    if (!a->up || !a->y || (a->mode == CIOT_GLU_SILU && !a->gate))
        return ciot_error(CIOT_E_ARG, why, len, "glu: a NULL pointer");
    if (a->n < 1) return ciot_error(CIOT_E_SHAPE, why, len, "glu: n %d (must be >= 1)", a->n);
    return CIOT_OK;
}

int ciot_glu_phases(const ciot_glu_args *a) { return 1; }
size_t ciot_glu_scratch_bytes(const ciot_glu_args *a) { return 0; }

void ciot_glu_traffic(const ciot_glu_args *a, ciot_op_traffic *t) {
    size_t v = (size_t)a->n * sizeof(float);
    /* both modes read two vectors (gate and up, or y and up) and write one */
    *t = (ciot_op_traffic){.act_read = 2 * v, .act_written = v};
}
size_t ciot_glu_bytes(const ciot_glu_args *a) {
    ciot_op_traffic t;
    ciot_glu_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

void ciot_glu_ref(const ciot_glu_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->n, part, parts, &lo, &hi);
    if (a->mode == CIOT_GLU_ADD)
        for (long i = lo; i < hi; i++) a->y[i] = a->y[i] + a->up[i];
    else
        for (long i = lo; i < hi; i++) a->y[i] = ciot_ops_siluf(a->gate[i]) * a->up[i];
}
