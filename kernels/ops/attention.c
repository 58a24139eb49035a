/* attention: checks, sizes, the pieces every version shares, and the scalar reference (kernels/ops.md). */
#include "fp16.h"
#include "ops_impl.h"
#include "ops_math.h"

ciot_status ciot_attention_check(const ciot_attention_args *a, char *why, size_t len) {
    if (!a->q || !a->gate || !a->k || !a->v || !a->k_cache || !a->v_cache || !a->out || !a->scratch)
        return ciot_error(CIOT_E_ARG, why, len, "attention: a NULL pointer (scratch included)");
    if (a->kv_heads < 1 || a->q_heads < 1 || a->q_heads % a->kv_heads ||
        a->q_heads / a->kv_heads > CIOT_ATTN_MAX_GROUP)
        return ciot_error(CIOT_E_SHAPE, why, len,
                          "attention: %d query heads over %d KV heads (a whole multiple, at most %d per KV head)",
                          a->q_heads, a->kv_heads, CIOT_ATTN_MAX_GROUP);
    if (a->head_dim < 16 || a->head_dim % 16 || a->head_dim > 1024)
        return ciot_error(CIOT_E_SHAPE, why, len, "attention: head dim %d (a multiple of 16, at most 1024)",
                          a->head_dim);
    if (a->q_stride < a->head_dim)
        return ciot_error(CIOT_E_SHAPE, why, len, "attention: q stride %d below the head dim %d", a->q_stride,
                          a->head_dim);
    if (a->L < 0 || a->capacity < a->L + 1)
        return ciot_error(CIOT_E_SHAPE, why, len, "attention: %d positions in a cache of %d (room for L + 1)",
                          a->L, a->capacity);
    return CIOT_OK;
}

int ciot_attention_phases(const ciot_attention_args *a) { return 2; }
size_t ciot_attention_scratch_bytes(const ciot_attention_args *a) {
    return (size_t)a->q_heads * ciot_attention_chunks(a) * ciot_attention_record(a) * sizeof(float);
}

void ciot_attention_traffic(const ciot_attention_args *a, ciot_op_traffic *t) {
    size_t row = (size_t)a->kv_heads * a->head_dim, qd = (size_t)a->q_heads * a->head_dim;
    *t = (ciot_op_traffic){
        .kv_read = 2 * row * sizeof(uint16_t) * (size_t)(a->L + 1), /* K and V, the new position too */
        .kv_written = 2 * row * sizeof(uint16_t),
        .act_read = (2 * qd + 2 * row) * sizeof(float), /* q, gate, k, v */
        .act_written = qd * sizeof(float),
        /* q . k and e v at every position, for every query head; each K and V value widened once per KV head */
        .fmas = 2 * qd * (size_t)(a->L + 1),
        .widened = 2 * row * (size_t)(a->L + 1),
    };
}
size_t ciot_attention_bytes(const ciot_attention_args *a) {
    ciot_op_traffic t;
    ciot_attention_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

void ciot_attention_append(const ciot_attention_args *a, int g) {
    size_t at = ((size_t)g * a->capacity + a->L) * a->head_dim;
    for (int d = 0; d < a->head_dim; d++) {
        a->k_cache[at + d] = ciot_fp32_to_fp16(a->k[(size_t)g * a->head_dim + d]);
        a->v_cache[at + d] = ciot_fp32_to_fp16(a->v[(size_t)g * a->head_dim + d]);
    }
}

/* Phase 0, unit (KV head g, chunk c), for every query head of the group. */
static void chunk_unit(const ciot_attention_args *a, int g, int c) {
    int D = a->head_dim, G = a->q_heads / a->kv_heads, p0 = c * CIOT_ATTN_CHUNK;
    int n = a->L + 1 - p0 < CIOT_ATTN_CHUNK ? a->L + 1 - p0 : CIOT_ATTN_CHUNK;
    if (c == ciot_attention_chunks(a) - 1) ciot_attention_append(a, g);
    const uint16_t *K = a->k_cache + ((size_t)g * a->capacity + p0) * D;
    const uint16_t *V = a->v_cache + ((size_t)g * a->capacity + p0) * D;
    float kf[1024], e[CIOT_ATTN_CHUNK];
    for (int j = 0; j < G; j++) {
        int qh = g * G + j;
        const float *q = a->q + (size_t)qh * a->q_stride;
        float m = 0;
        for (int p = 0; p < n; p++) {
            for (int d = 0; d < D; d++) kf[d] = ciot_fp16_to_fp32(K[(size_t)p * D + d]);
            e[p] = ciot_ops_dot(q, kf, D) * a->scale;
            m = p == 0 || e[p] > m ? e[p] : m;
        }
        float l[CIOT_OPS_LANES] = {0};
        for (int p = 0; p < n; p++) {
            e[p] = ciot_ops_expf(e[p] - m);
            l[p & 15] = l[p & 15] + e[p];
        }
        float *rec = ciot_attention_rec(a, qh, c);
        for (int d = 0; d < D; d++) {
            float o = 0.0f;
            for (int p = 0; p < n; p++) o = fmaf(e[p], ciot_fp16_to_fp32(V[(size_t)p * D + d]), o);
            rec[d] = o;
        }
        rec[D] = m;
        rec[D + 1] = ciot_ops_fold16(l);
    }
}

/* Phase 1, query head qh: the chunks rescaled to the common max, in chunk order. */
static void combine(const ciot_attention_args *a, int qh) {
    int D = a->head_dim, nc = ciot_attention_chunks(a);
    float M = ciot_attention_max(a, qh);
    float sum = 0.0f;
    float *out = a->out + (size_t)qh * D;
    for (int d = 0; d < D; d++) out[d] = 0.0f;
    for (int c = 0; c < nc; c++) {
        const float *rec = ciot_attention_rec(a, qh, c);
        float fc = ciot_ops_expf(rec[D] - M);
        sum = fmaf(rec[D + 1], fc, sum);
        for (int d = 0; d < D; d++) out[d] = fmaf(rec[d], fc, out[d]);
    }
    const float *gate = a->gate + (size_t)qh * a->q_stride;
    for (int d = 0; d < D; d++) out[d] = out[d] / sum * ciot_ops_sigmoidf(gate[d]);
}

void ciot_attention_ref(const ciot_attention_args *a, int phase, int part, int parts) {
    long lo, hi;
    if (phase == 0) {
        int nc = ciot_attention_chunks(a);
        ciot_ops_share((long)a->kv_heads * nc, part, parts, &lo, &hi);
        for (long u = lo; u < hi; u++) chunk_unit(a, (int)(u / nc), (int)(u % nc));
    } else {
        ciot_ops_share(a->q_heads, part, parts, &lo, &hi);
        for (long qh = lo; qh < hi; qh++) combine(a, (int)qh);
    }
}
