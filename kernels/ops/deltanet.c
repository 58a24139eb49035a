/* deltanet: checks, sizes, the gates every version shares, and the scalar reference (kernels/ops.md). */
#include <math.h>
#include "ops_impl.h"
#include "ops_math.h"
#include "deltanet_phase0.h"

ciot_status ciot_deltanet_check(const ciot_deltanet_args *a, char *why, size_t len) {
    if (!a->qkv || !a->conv_state || !a->conv_w || !a->alpha || !a->beta_in || !a->a_log || !a->dt_bias ||
        !a->state || !a->out || !a->scratch)
        return ciot_error(CIOT_E_ARG, why, len, "deltanet: a NULL pointer (scratch included)");
    if (a->k_heads < 1 || a->v_heads < 1 || a->v_heads % a->k_heads)
        return ciot_error(CIOT_E_SHAPE, why, len, "deltanet: %d value heads over %d key heads (a whole multiple)",
                          a->v_heads, a->k_heads);
    if (a->head_dim < 16 || a->head_dim % 16 || a->head_dim > 1024)
        return ciot_error(CIOT_E_SHAPE, why, len, "deltanet: head dim %d (a multiple of 16, at most 1024)",
                          a->head_dim);
    if (a->conv < 2 || a->conv > 8)
        return ciot_error(CIOT_E_SHAPE, why, len, "deltanet: conv kernel %d (2 .. 8)", a->conv);
    if (!(a->eps >= 0)) return ciot_error(CIOT_E_ARG, why, len, "deltanet: eps must be >= 0");
    return CIOT_OK;
}

int ciot_deltanet_phases(const ciot_deltanet_args *a) { return 2; }
size_t ciot_deltanet_scratch_bytes(const ciot_deltanet_args *a) {
    return ((size_t)ciot_deltanet_channels(a) + 2 * (size_t)a->v_heads) * sizeof(float);
}

void ciot_deltanet_traffic(const ciot_deltanet_args *a, ciot_op_traffic *t) {
    size_t f = sizeof(float), ch = (size_t)ciot_deltanet_channels(a), vd = (size_t)a->v_heads * a->head_dim;
    size_t state = vd * a->head_dim * f, conv = (size_t)(a->conv - 1) * ch * f;
    *t = (ciot_op_traffic){
        .weights = (size_t)a->conv * ch * f + 2 * (size_t)a->v_heads * f, /* conv taps, a_log, dt_bias */
        .state_read = state + conv,
        .state_written = state + conv,
        .act_read = ch * f + 2 * (size_t)a->v_heads * f, /* qkv, alpha, beta */
        .act_written = vd * f,
        /* per state value S k, the decay, the update and S q; the conv's taps per channel */
        .fmas = 4 * vd * (size_t)a->head_dim + (size_t)a->conv * ch,
    };
}
size_t ciot_deltanet_bytes(const ciot_deltanet_args *a) {
    ciot_op_traffic t;
    ciot_deltanet_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

static void scale(float *x, int n, float mul) {
    for (int i = 0; i < n; i++) x[i] = x[i] * mul;
}

/* The conv and SiLU of n channels (deltanet_phase0.h: the arguments), in the reference's order. */
static inline __attribute__((always_inline)) void conv_channels(const float *qkv, float *st, const float *w,
                                                                float *dst, size_t C, int n, const int taps) {
    for (int i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int t = 0; t < taps - 1; t++) acc = fmaf(w[t * C + i], st[t * C + i], acc);
        acc = fmaf(w[(taps - 1) * C + i], qkv[i], acc);
        for (int t = 0; t < taps - 2; t++) st[t * C + i] = st[(t + 1) * C + i];
        st[(taps - 2) * C + i] = qkv[i];
        dst[i] = ciot_ops_siluf(acc);
    }
}

/* Phase 1, state row r (value head r / D, value dim r % D). */
static void state_row(const ciot_deltanet_args *a, long r) {
    int D = a->head_dim, h = (int)(r / D), kh = h / (a->v_heads / a->k_heads);
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    float *S = a->state + r * D;
    const float *k = s.k + (size_t)kh * D, *q = s.q + (size_t)kh * D;
    float decay = s.decay[h], sk = ciot_ops_dot(S, k, D);
    float u = (s.v[r] - decay * sk) * s.beta[h];
    for (int i = 0; i < D; i++) S[i] = fmaf(k[i], u, decay * S[i]);
    a->out[r] = ciot_ops_dot(S, q, D);
}

void ciot_deltanet_ref(const ciot_deltanet_args *a, int phase, int part, int parts) {
    if (phase == 0) {
        ciot_deltanet_phase0(a, part, parts, conv_channels, ciot_ops_dot, scale);
    } else {
        long lo, hi;
        ciot_deltanet_share_rows(a, part, parts, &lo, &hi);
        for (long r = lo; r < hi; r++) state_row(a, r);
    }
}
