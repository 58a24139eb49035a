/* rope: checks, sizes, the table and the scalar reference (kernels/ops.md). */
#include <math.h>
#include "ops_impl.h"
#include "ops_math.h"

ciot_status ciot_rope_check(const ciot_rope_args *a, char *why, size_t len) {
    if (!a->table || (a->q_heads && !a->q) || (a->k_heads && !a->k))
        return ciot_error(CIOT_E_ARG, why, len, "rope: a NULL pointer");
    if (a->q_heads < 0 || a->k_heads < 0 || a->q_heads + a->k_heads < 1)
        return ciot_error(CIOT_E_SHAPE, why, len, "rope: %d q heads and %d k heads", a->q_heads, a->k_heads);
    if (a->rot_dims < 2 || a->rot_dims % 2 || a->rot_dims > a->head_dim)
        return ciot_error(CIOT_E_SHAPE, why, len, "rope: %d rotated dims of %d (even, 2 .. head dim)", a->rot_dims,
                          a->head_dim);
    if ((a->q_stride && a->q_stride < a->head_dim) || (a->k_stride && a->k_stride < a->head_dim))
        return ciot_error(CIOT_E_SHAPE, why, len, "rope: a stride below the head dim %d", a->head_dim);
    return CIOT_OK;
}

int ciot_rope_phases(const ciot_rope_args *a) { return 1; }
size_t ciot_rope_scratch_bytes(const ciot_rope_args *a) { return 0; }

void ciot_rope_traffic(const ciot_rope_args *a, ciot_op_traffic *t) {
    /* the rotated dims of every head are read and written; the table row is read */
    size_t v = (size_t)(a->q_heads + a->k_heads) * a->rot_dims * sizeof(float);
    *t = (ciot_op_traffic){.weights = (size_t)a->rot_dims * sizeof(float), .act_read = v, .act_written = v};
}
size_t ciot_rope_bytes(const ciot_rope_args *a) {
    ciot_op_traffic t;
    ciot_rope_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

void ciot_rope_table(float *table, int positions, int rot_dims, double theta) {
    int half = rot_dims / 2;
    for (int p = 0; p < positions; p++)
        for (int i = 0; i < half; i++) {
            double angle = p * pow(theta, -2.0 * i / rot_dims);
            table[(size_t)p * rot_dims + 2 * i] = (float)cos(angle);
            table[(size_t)p * rot_dims + 2 * i + 1] = (float)sin(angle);
        }
}

static void rotate(float *x, const float *table, int half) {
    for (int i = 0; i < half; i++) {
        float c = table[2 * i], s = table[2 * i + 1], x0 = x[i], x1 = x[i + half];
        x[i] = fmaf(x0, c, -(x1 * s));
        x[i + half] = fmaf(x1, c, x0 * s);
    }
}

void ciot_rope_ref(const ciot_rope_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->q_heads + a->k_heads, part, parts, &lo, &hi);
    int qs = a->q_stride ? a->q_stride : a->head_dim, ks = a->k_stride ? a->k_stride : a->head_dim;
    for (long h = lo; h < hi; h++) {
        float *x = h < a->q_heads ? a->q + h * qs : a->k + (h - a->q_heads) * ks;
        rotate(x, a->table, a->rot_dims / 2);
    }
}
