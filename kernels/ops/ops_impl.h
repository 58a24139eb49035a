/* Each version's loop of each kind (token_ops.h), and the shared pieces they call. */
#ifndef CIOT_OPS_IMPL_H
#define CIOT_OPS_IMPL_H

#include "token_ops.h"
#include "ops_math.h"

#define CIOT_OPS_DECLARE(isa)                                                                      \
    void ciot_rmsnorm_##isa(const ciot_rmsnorm_args *a, int phase, int part, int parts);          \
    void ciot_deltanet_##isa(const ciot_deltanet_args *a, int phase, int part, int parts);        \
    void ciot_attention_##isa(const ciot_attention_args *a, int phase, int part, int parts);      \
    void ciot_rope_##isa(const ciot_rope_args *a, int phase, int part, int parts);                \
    void ciot_glu_##isa(const ciot_glu_args *a, int phase, int part, int parts);                  \
    void ciot_state_copy_##isa(const ciot_state_copy_args *a, int phase, int part, int parts);    \
    void ciot_embed_##isa(const ciot_embed_args *a, int phase, int part, int parts);              \
    void ciot_argmax_##isa(const ciot_argmax_args *a, int phase, int part, int parts);
CIOT_OPS_DECLARE(ref)
CIOT_OPS_DECLARE(avx2)
CIOT_OPS_DECLARE(neon)
#undef CIOT_OPS_DECLARE
/* The AVX-512 F version has attention and DeltaNet's state pass (its other kinds are AVX2's). */
void ciot_attention_avx512f(const ciot_attention_args *a, int phase, int part, int parts);
void ciot_deltanet_avx512f(const ciot_deltanet_args *a, int phase, int part, int parts);
/* How far ahead (floats) DeltaNet's x86 loops fetch state rows into L1, groups of `group` rows
 * (x86/deltanet_avx2.c: measured per vendor). */
long ciot_deltanet_fetch_ahead(const ciot_deltanet_args *a, int group);

/* rmsnorm's stride, resolved. */
static inline int ciot_rmsnorm_stride(const ciot_rmsnorm_args *a) { return a->stride ? a->stride : a->n; }

/* argmax: the chunks of phase 0, and the (value, index) record each leaves in scratch. */
typedef struct {
    float value;
    int index;
} ciot_argmax_best;
static inline int ciot_argmax_chunks(const ciot_argmax_args *a) {
    return (a->n + CIOT_ARGMAX_CHUNK - 1) / CIOT_ARGMAX_CHUNK;
}
/* Phase 1, shared by every version: the first best of the chunks' bests, in chunk order. */
void ciot_argmax_combine(const ciot_argmax_args *a);
/* Both phases, every version: phase 0 runs chunk_best on the part's chunks into scratch, phase 1 combines. */
typedef ciot_argmax_best (*ciot_argmax_chunk_fn)(const float *x, int lo, int hi);
void ciot_argmax_run(const ciot_argmax_args *a, int phase, int part, int parts, ciot_argmax_chunk_fn chunk_best);
/* A SIMD chunk's end: the lanes' bests (index -1: none) folded to the largest value at the smallest index,
 * then the elements x[i .. hi) its vector loop left, in order. */
ciot_argmax_best ciot_argmax_lanes(const float *bv, const int *bi, int lanes, const float *x, int i, int hi);

/* state_copy: the part's byte range, in whole 64-byte lines but the last. */
void ciot_state_copy_share(const ciot_state_copy_args *a, int part, int parts, size_t *lo, size_t *hi);

/* deltanet's scratch: the conv's outputs (q and k normalized, q scaled; v as is) and the gates per value head. */
typedef struct {
    float *q, *k, *v, *decay, *beta;
} ciot_deltanet_scratch;
static inline ciot_deltanet_scratch ciot_deltanet_scratch_of(const ciot_deltanet_args *a) {
    float *f = a->scratch;
    size_t kd = (size_t)a->k_heads * a->head_dim, vd = (size_t)a->v_heads * a->head_dim;
    return (ciot_deltanet_scratch){f, f + kd, f + 2 * kd, f + 2 * kd + vd, f + 2 * kd + vd + a->v_heads};
}
static inline int ciot_deltanet_channels(const ciot_deltanet_args *a) {
    return (2 * a->k_heads + a->v_heads) * a->head_dim;
}
/* What rows r .. of one head read: the first row, the head's key-head k and q, its gates. */
typedef struct {
    float *S;
    const float *k, *q;
    float decay, beta;
} ciot_deltanet_head_rows;
static inline ciot_deltanet_head_rows ciot_deltanet_rows_at(const ciot_deltanet_args *a, ciot_deltanet_scratch s,
                                                            long r) {
    int D = a->head_dim, h = (int)(r / D), kh = h / (a->v_heads / a->k_heads);
    return (ciot_deltanet_head_rows){a->state + r * D, s.k + (size_t)kh * D, s.q + (size_t)kh * D, s.decay[h],
                                     s.beta[h]};
}
/* Phase 1's state rows of one part. */
static inline void ciot_deltanet_share_rows(const ciot_deltanet_args *a, int part, int parts, long *lo, long *hi) {
    ciot_ops_share((long)a->v_heads * a->head_dim, part, parts, lo, hi);
}
/* Phase 1 in the SIMD versions: the part's state rows lo .. hi - 1 in groups of `group` rows that stay in
 * one head (they share k, q and the gates), the rows left over one at a time; run(a, s, r, R, ahead) updates
 * rows r .. r + R - 1 (kernels/ops.md: why groups). Inlined, so run is too, with R a constant. */
typedef void ciot_deltanet_rows_fn(const ciot_deltanet_args *a, ciot_deltanet_scratch s, long r, int R, long ahead);
static inline __attribute__((always_inline)) void ciot_deltanet_groups(const ciot_deltanet_args *a, long lo, long hi,
                                                                      int group, long ahead,
                                                                      ciot_deltanet_rows_fn *run) {
    const long D = a->head_dim;
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    long r = lo;
    while (r < hi) {
        long head_end = (r / D + 1) * D, end = hi < head_end ? hi : head_end;
        for (; r + group <= end; r += group) run(a, s, r, group, ahead);
        for (; r < end; r++) run(a, s, r, 1, ahead);
    }
}

/* attention: chunks per KV head, and the record each (query head, chunk) leaves in scratch: o[head_dim]
 * (the chunk's sum of e V), then its max m and its sum l of e. */
static inline int ciot_attention_chunks(const ciot_attention_args *a) {
    return (a->L + 1 + CIOT_ATTN_CHUNK - 1) / CIOT_ATTN_CHUNK;
}
static inline int ciot_attention_record(const ciot_attention_args *a) { return a->head_dim + 16; }
static inline float *ciot_attention_rec(const ciot_attention_args *a, int qh, int chunk) {
    return (float *)a->scratch + ((size_t)qh * ciot_attention_chunks(a) + chunk) * ciot_attention_record(a);
}
/* Phase 1's first step, every version: the largest of query head qh's chunk maxima, in chunk order. */
static inline float ciot_attention_max(const ciot_attention_args *a, int qh) {
    int D = a->head_dim, nc = ciot_attention_chunks(a);
    float M = ciot_attention_rec(a, qh, 0)[D];
    for (int c = 1; c < nc; c++) {
        float m = ciot_attention_rec(a, qh, c)[D];
        M = m > M ? m : M;
    }
    return M;
}
/* Phase 0's first step for a unit holding position L: this token's k and v of KV head g into the caches. */
void ciot_attention_append(const ciot_attention_args *a, int g);
/* The SIMD versions' batch: up to CIOT_ATTN_BATCH query heads of a group share each widened K and V row. */
#define CIOT_ATTN_BATCH 6
typedef struct {
    const float *q[CIOT_ATTN_BATCH];
    float *rec[CIOT_ATTN_BATCH];
    float (*e)[CIOT_ATTN_CHUNK];    /* e[j][p]: one array, so a version reaches every head's from one base */
    const uint16_t *next_k;         /* the K rows of the phase's next unit, for a version to fetch ahead */
} ciot_attn_batch;
/* The most query heads per KV head a version handles (its stack buffers). */
#define CIOT_ATTN_MAX_GROUP 16

#endif
