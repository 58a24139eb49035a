/* The non-matvec ops of a decode step (kernels/ops.md): one args struct per kind, run as one or more phases
 * of pool jobs. Phase p of a kind runs as one job on all threads (part = thread index, parts = thread count);
 * the barrier between jobs orders the phases. Every version (scalar reference, AVX2, NEON) writes the same
 * bits for the same inputs, whatever the part count: the float order is the one kernels/ops.md fixes.
 *
 * A caller fills the sizes and pointers, checks them once (ciot_<kind>_check), allocates
 * ciot_<kind>_scratch_bytes of 64-byte aligned scratch where the kind has it, then runs phases
 * 0 .. ciot_<kind>_phases - 1 with ciot_token_run(&ciot_kind_KIND, ops, args, phase, part, parts)
 * (token_kind.h). Inputs are never written unless the args say in place; an output may not overlap an input
 * unless the args say so. */
#ifndef CIOT_TOKEN_OPS_H
#define CIOT_TOKEN_OPS_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

/* Bytes an op reads and writes in memory, by what they are (the replay's report columns), and the fp32 work
 * it does on them. Scratch is not counted: it is the op's own and stays in cache. */
typedef struct {
    size_t weights;                     /* norm and conv weights, the embedding row */
    size_t state_read, state_written;   /* DeltaNet and conv states; a state copy's source and destination */
    size_t kv_read, kv_written;         /* attention's K and V caches */
    size_t act_read, act_written;       /* activations: op inputs and outputs */
    /* Not bytes: the fp32 work of the op's main loops, its compute roof beside the ruler (kernels/ops.md,
     * "Compute"). fmas: multiply-adds, a lone multiply counted as one; widened: values of their operands
     * widened from fp16 (attention's K and V), each once. */
    size_t fmas, widened;
} ciot_op_traffic;
static inline size_t ciot_op_traffic_total(const ciot_op_traffic *t) {
    return t->weights + t->state_read + t->state_written + t->kv_read + t->kv_written + t->act_read +
           t->act_written;
}

/* rmsnorm: y[r] = x[r] / sqrt(mean(x[r]^2) + eps) * w, for rows vectors of n (the hidden state: rows 1,
 * n 5120; the per-head q/k norms: rows = heads, n = head dim). stride: floats from one row to the next in x
 * and y (0: n), so the q heads of an interleaved q|gate projection are normed in place. y may equal x.
 * n a multiple of 16. One phase; rows are split over the parts. */
typedef struct {
    const float *x;
    const float *w;
    float *y;
    int rows, n, stride;
    float eps;
} ciot_rmsnorm_args;

/* deltanet: the gated delta rule for one token (kernels/ops.md has every step and its float order).
 * qkv: this token's attn_qkv output, channels = (2 k_heads + v_heads) x head_dim: q (k_heads x head_dim),
 *   then k, then v (v_heads x head_dim).
 * conv_state: (conv - 1) x channels, oldest position first, updated in place (shifted by one).
 * conv_w: conv x channels, tap t of channel c at t * channels + c (tap conv - 1 meets this token).
 * alpha, beta_in: the decay and beta gate inputs, v_heads each (the ssm_alpha / ssm_beta outputs);
 *   a_log, dt_bias: per value head parameters. Decay a = exp(-exp(a_log) * softplus(alpha + dt_bias)),
 *   beta = sigmoid(beta_in).
 * state: v_heads x head_dim x head_dim fp32, [head][value row][key column], updated in place.
 * out: v_heads x head_dim, o = S q per value head. Value head h reads key head h / (v_heads / k_heads).
 * eps: of the q and k L2 norms; q is also scaled by 1 / sqrt(head_dim).
 * prefetch: software prefetch of the state rows, bytes ahead (0: none; kernels/prefetch.h's policy, which
 *   the SIMD versions follow as the matvecs do; it changes no bit). The AVX2 version takes only its on / off:
 *   it fetches the row after next into L1 (x86/deltanet_avx2.c: why).
 * Two phases: 0 the conv, norms and gates (by head); 1 the state update (by state row). */
typedef struct {
    const float *qkv;
    float *conv_state;
    const float *conv_w;
    const float *alpha, *beta_in, *a_log, *dt_bias;
    float *state;
    float *out;
    void *scratch;
    int k_heads, v_heads, head_dim, conv;
    float eps;
    size_t prefetch;
} ciot_deltanet_args;

/* attention: one query token against a KV cache of L positions, grouped queries (query head h reads KV head
 * h / (q_heads / kv_heads)).
 * q, gate: query head h at q + h * q_stride (head_dim floats) and its output gate at gate + h * q_stride
 *   (an interleaved attn_q output: q_stride 2 head_dim, gate = q + head_dim).
 * k, v: this token's kv_heads x head_dim, appended at position L (as fp16, round to nearest even).
 * k_cache, v_cache: fp16 (uint16 bits), [kv head][position][dim], capacity positions per head (>= L + 1).
 * out: q_heads x head_dim: softmax(scale q K^T) V over the L + 1 positions, times sigmoid(gate).
 * Two phases: 0 fixed chunks of CIOT_ATTN_CHUNK positions per KV head (K and V read once for all the group's
 * query heads); 1 the combine per query head. */
#define CIOT_ATTN_CHUNK 256
typedef struct {
    const float *q, *gate;
    const float *k, *v;
    uint16_t *k_cache, *v_cache;
    float *out;
    void *scratch;
    int q_heads, kv_heads, head_dim, q_stride;
    int L, capacity;
    float scale;
} ciot_attention_args;

/* rope: rotary embedding (NeoX halves: dim i rotates with i + rot_dims / 2) of the first rot_dims dims of
 * every q and k head, in place. q head h at q + h * q_stride, k head h at k + h * k_stride (0: head_dim).
 * table: cos and sin for this token's position, rot_dims / 2 pairs (cos, sin) (ciot_rope_table).
 * One phase; heads are split over the parts. */
typedef struct {
    float *q, *k;
    int q_heads, k_heads, q_stride, k_stride;
    int head_dim, rot_dims;
    const float *table;
} ciot_rope_args;
/* The table of positions 0 .. positions - 1: positions x rot_dims / 2 pairs (cos, sin) of
 * pos * theta^(-2i / rot_dims), computed in double and rounded once. */
void ciot_rope_table(float *table, int positions, int rot_dims, double theta);

/* glu: CIOT_GLU_SILU: y = silu(gate) * up (the FFN); CIOT_GLU_ADD: y = y + up (a residual add, gate unused).
 * y may equal up (and gate, for CIOT_GLU_SILU). One phase; n is split over the parts. */
typedef enum { CIOT_GLU_SILU, CIOT_GLU_ADD } ciot_glu_mode;
typedef struct {
    const float *gate, *up;
    float *y;
    int n;
    ciot_glu_mode mode;
} ciot_glu_args;

/* state_copy: bytes from src to dst (the recurrent-state snapshot: into or out of a cache, or a rollback
 * ring slot); non-overlapping. One phase; split over the parts in 64-byte lines. */
typedef struct {
    const void *src;
    void *dst;
    size_t bytes;
} ciot_state_copy_args;

/* embed: one row of token_embd, n values in its type, dequantized into out (n floats). row: the row's bytes
 * (ciot_embed_row_bytes(type, n) of them). One phase; blocks are split over the parts. */
typedef enum {
    CIOT_EMBED_F32,
    CIOT_EMBED_F16,
    CIOT_EMBED_BF16,
    CIOT_EMBED_Q8_0,
    CIOT_EMBED_PQ2_0,
    CIOT_EMBED_PTQ1_0,
    CIOT_EMBED_TQ1_0,
    CIOT_EMBED_TQ2_0
} ciot_embed_type;
typedef struct {
    const void *row;
    float *out;
    int n;
    ciot_embed_type type;
} ciot_embed_args;
/* Values per block of the type (1 for the float types), bytes of a row of n values (0 when n is not a
 * multiple of the block), and the type's name ("f32", "f16", "bf16", "q8_0", "pq2_0", ...). */
int ciot_embed_block_values(ciot_embed_type t);
size_t ciot_embed_row_bytes(ciot_embed_type t, int n);
const char *ciot_embed_type_name(ciot_embed_type t);

/* argmax: the index of the largest of x[0 .. n) (the first one on a tie; NaN never wins; all NaN: 0) into
 * *index, its value into *value. Two phases: 0 fixed chunks of CIOT_ARGMAX_CHUNK values, 1 their combine
 * (part 0). */
#define CIOT_ARGMAX_CHUNK 16384
typedef struct {
    const float *x;
    int n;
    int *index;
    float *value;
    void *scratch;
} ciot_argmax_args;

/* Per kind: the checks (CIOT_E_ARG / CIOT_E_SHAPE with one line in why), the phase count, the scratch bytes
 * (0: none), and the bytes moved (ciot_<kind>_traffic by column, ciot_<kind>_bytes their total). */
#define CIOT_TOKEN_KIND_FNS(kind)                                                          \
    ciot_status ciot_##kind##_check(const ciot_##kind##_args *a, char *why, size_t len);   \
    int ciot_##kind##_phases(const ciot_##kind##_args *a);                                 \
    size_t ciot_##kind##_scratch_bytes(const ciot_##kind##_args *a);                       \
    void ciot_##kind##_traffic(const ciot_##kind##_args *a, ciot_op_traffic *t);           \
    size_t ciot_##kind##_bytes(const ciot_##kind##_args *a);
CIOT_TOKEN_KIND_FNS(rmsnorm)
CIOT_TOKEN_KIND_FNS(deltanet)
CIOT_TOKEN_KIND_FNS(attention)
CIOT_TOKEN_KIND_FNS(rope)
CIOT_TOKEN_KIND_FNS(glu)
CIOT_TOKEN_KIND_FNS(state_copy)
CIOT_TOKEN_KIND_FNS(embed)
CIOT_TOKEN_KIND_FNS(argmax)
#undef CIOT_TOKEN_KIND_FNS

/* A version of the token ops: the ISA its loops need. Each kind's descriptor (token_kind.h) holds its loop
 * in every version, or none where the version runs the reference's. */
typedef struct ciot_token_ops {
    const char *name;   /* "ref", "avx2", "avx512f", "neon" */
    int id;             /* its ciot_opv (token_kind.h): the index of its loop in a kind's run[] */
    unsigned features;  /* CIOT_F_* bits it needs (kernel.h) */
    int copy_streams;   /* 1: its state_copy stores non-temporally (no write-allocate); 0: plain stores or
                         * libc's memcpy. The replay pairs the copy with the probe of the same stores. */
} ciot_token_ops;

extern const ciot_token_ops ciot_token_ops_ref;
/* Every version built for this architecture, the reference first (the tests and the oracle run them all). */
int ciot_token_ops_count(void);
const ciot_token_ops *ciot_token_ops_at(int i);
/* The version of that name, or NULL. */
const ciot_token_ops *ciot_token_ops_find(const char *name);
/* The last version in the list whose features ciot_cpu_features() has (CIOT_CPU masks apply): never NULL. */
const ciot_token_ops *ciot_token_ops_best(void);

#endif
