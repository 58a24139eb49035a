/* The unit loop every SIMD version of attention shares: it includes this after defining, for its ISA,
 * scores(a, K, n, b, nb), softmax_part(e, n, rec, D), weighted_v(a, V, n, b, nb) (nb a constant 1 .. CIOT_ATTN_BATCH,
 * so each case compiles with its accumulators in registers) and combine(a, qh), and gets
 * CIOT_ATTENTION_ENTRY(isa): ciot_attention_<isa>. */
#ifndef CIOT_ATTENTION_LOOP_H
#define CIOT_ATTENTION_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include "ops_impl.h"

/* What the including version defines (before it includes this). */
static inline void scores(const ciot_attention_args *a, const uint16_t *K, int n, const ciot_attn_batch *b, const int nb);
static inline void weighted_v(const ciot_attention_args *a, const uint16_t *V, int n, const ciot_attn_batch *b,
                              const int nb);
static void softmax_part(float *e, int n, float *rec, int D);
static void combine(const ciot_attention_args *a, int qh);

#define CIOT_ATTN_BY_BATCH(fn, a, X, n, b, nb) \
    switch (nb) {                              \
    case 6: fn(a, X, n, b, 6); break;          \
    case 5: fn(a, X, n, b, 5); break;          \
    case 4: fn(a, X, n, b, 4); break;          \
    case 3: fn(a, X, n, b, 3); break;          \
    case 2: fn(a, X, n, b, 2); break;          \
    default: fn(a, X, n, b, 1); break;         \
    }

static void chunk_unit(const ciot_attention_args *a, int g, int c) {
    int D = a->head_dim, G = a->q_heads / a->kv_heads, p0 = c * CIOT_ATTN_CHUNK;
    int n = a->L + 1 - p0 < CIOT_ATTN_CHUNK ? a->L + 1 - p0 : CIOT_ATTN_CHUNK;
    int nc = ciot_attention_chunks(a);
    if (c == nc - 1) ciot_attention_append(a, g);
    const uint16_t *K = a->k_cache + ((size_t)g * a->capacity + p0) * D;
    const uint16_t *V = a->v_cache + ((size_t)g * a->capacity + p0) * D;
    /* the next unit of the order below: the next chunk of this KV head, else the next head's first; after
     * the last, this unit's own V rows (cached already) */
    const uint16_t *next_k = c + 1 < nc ? K + (size_t)CIOT_ATTN_CHUNK * D
                             : g + 1 < a->kv_heads ? a->k_cache + (size_t)(g + 1) * a->capacity * D : V;
    float e[CIOT_ATTN_BATCH][CIOT_ATTN_CHUNK] __attribute__((aligned(32)));
    for (int j0 = 0; j0 < G; j0 += CIOT_ATTN_BATCH) {
        int nb = G - j0 < CIOT_ATTN_BATCH ? G - j0 : CIOT_ATTN_BATCH;
        ciot_attn_batch b;
        for (int j = 0; j < nb; j++) {
            b.q[j] = a->q + (size_t)(g * G + j0 + j) * a->q_stride;
            b.rec[j] = ciot_attention_rec(a, g * G + j0 + j, c);
        }
        b.e = e;
        b.next_k = next_k;
        CIOT_ATTN_BY_BATCH(scores, a, K, n, &b, nb)
        for (int j = 0; j < nb; j++) softmax_part(e[j], n, b.rec[j], D);
        CIOT_ATTN_BY_BATCH(weighted_v, a, V, n, &b, nb)
    }
}

#define CIOT_ATTENTION_ENTRY(isa)                                                                \
    void ciot_attention_##isa(const ciot_attention_args *a, int phase, int part, int parts) {       \
    long lo, hi;                                                                                    \
    if (phase == 0) {                                                                               \
        int nc = ciot_attention_chunks(a);                                                          \
        ciot_ops_share((long)a->kv_heads * nc, part, parts, &lo, &hi);                              \
        for (long u = lo; u < hi; u++) chunk_unit(a, (int)(u / nc), (int)(u % nc));                 \
    } else {                                                                                        \
        ciot_ops_share(a->q_heads, part, parts, &lo, &hi);                                          \
        for (long qh = lo; qh < hi; qh++) combine(a, (int)qh);                                      \
    }                                                                                               \
    }

#endif
