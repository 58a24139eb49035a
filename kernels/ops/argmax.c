/* argmax: checks, sizes, the scalar reference and the combine every version shares. */
#include "ops_impl.h"
#include "ops_math.h"

ciot_status ciot_argmax_check(const ciot_argmax_args *a, char *why, size_t len) {
    if (!a->x || !a->index || !a->value || !a->scratch)
        return ciot_error(CIOT_E_ARG, why, len, "argmax: a NULL pointer (scratch included)");
    if (a->n < 1) return ciot_error(CIOT_E_SHAPE, why, len, "argmax: n %d (must be >= 1)", a->n);
    return CIOT_OK;
}

int ciot_argmax_phases(const ciot_argmax_args *a) { return 2; }
size_t ciot_argmax_scratch_bytes(const ciot_argmax_args *a) {
    return (size_t)ciot_argmax_chunks(a) * sizeof(ciot_argmax_best);
}

void ciot_argmax_traffic(const ciot_argmax_args *a, ciot_op_traffic *t) {
    *t = (ciot_op_traffic){.act_read = (size_t)a->n * sizeof(float), .act_written = sizeof(int) + sizeof(float)};
}
size_t ciot_argmax_bytes(const ciot_argmax_args *a) {
    ciot_op_traffic t;
    ciot_argmax_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

/* A record no value beats but a real one: -inf at index -1 loses to any non-NaN value. */
static int better(float v, int i, ciot_argmax_best b) { return v > b.value || (b.index < 0 && v == v); }

void ciot_argmax_combine(const ciot_argmax_args *a) {
    const ciot_argmax_best *c = a->scratch;
    ciot_argmax_best b = {-__builtin_inff(), -1};
    for (int i = 0; i < ciot_argmax_chunks(a); i++)
        if (c[i].index >= 0 && better(c[i].value, c[i].index, b)) b = c[i];
    if (b.index < 0) b = (ciot_argmax_best){a->x[0], 0}; /* all NaN */
    *a->index = b.index;
    *a->value = b.value;
}

ciot_argmax_best ciot_argmax_lanes(const float *bv, const int *bi, int lanes, const float *x, int i, int hi) {
    ciot_argmax_best b = {-__builtin_inff(), -1};
    for (int j = 0; j < lanes; j++)
        if (bi[j] >= 0 && (b.index < 0 || bv[j] > b.value || (bv[j] == b.value && bi[j] < b.index)))
            b = (ciot_argmax_best){bv[j], bi[j]};
    for (; i < hi; i++)
        if (better(x[i], i, b)) b = (ciot_argmax_best){x[i], i};
    return b;
}

void ciot_argmax_run(const ciot_argmax_args *a, int phase, int part, int parts, ciot_argmax_chunk_fn chunk_best) {
    if (phase == 1) {
        if (part == 0) ciot_argmax_combine(a);
        return;
    }
    long lo, hi;
    ciot_ops_share(ciot_argmax_chunks(a), part, parts, &lo, &hi);
    ciot_argmax_best *out = a->scratch;
    for (long c = lo; c < hi; c++) {
        long end = (c + 1) * CIOT_ARGMAX_CHUNK < a->n ? (c + 1) * CIOT_ARGMAX_CHUNK : a->n;
        out[c] = chunk_best(a->x, (int)(c * CIOT_ARGMAX_CHUNK), (int)end);
    }
}

static ciot_argmax_best chunk_best_ref(const float *x, int lo, int hi) {
    ciot_argmax_best b = {-__builtin_inff(), -1};
    for (int i = lo; i < hi; i++)
        if (better(x[i], i, b)) b = (ciot_argmax_best){x[i], i};
    return b;
}

void ciot_argmax_ref(const ciot_argmax_args *a, int phase, int part, int parts) {
    ciot_argmax_run(a, phase, part, parts, chunk_best_ref);
}
