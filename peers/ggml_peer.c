/* The peer module of a ggml-family runtime (mainline llama.cpp, the prismml fork, ik_llama.cpp): the peer ABI
 * (peer_abi.h) over the fork's own type traits, quantizer, dequantizer and mul_mat graph, computed by the
 * fork's graph executor on its own threads, as the runtime computes a layer. scripts/peer-build compiles it
 * against a fork's headers and links it to that fork's built libraries; it contains none of the fork's code.
 *
 * Two API generations are met: forks with the split CPU backend (ggml-cpu.h: type traits in two tables, a
 * threadpool object) and ik_llama.cpp's (one traits table with per-row metadata, the plan takes a count). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml.h"
#if __has_include("ggml-cpu.h")
#include "ggml-cpu.h"
#define SPLIT_CPU_BACKEND 1
#else
#define SPLIT_CPU_BACKEND 0
#endif

#include "peer_abi.h"

#ifndef CIOT_PEER_BUILD
#define CIOT_PEER_BUILD "a ggml-family runtime"
#endif

enum { MAX_TYPES = 96 };
/* A type is listed when it is quantized, the CPU has its mul_mat, and it stores at most this many bits per
 * weight: the ternary and other low-bit types, the class ciot's layouts compete in. */
#define LOW_BIT_MAX 2.6
/* Types whose quantizer writes only -1, 0, +1 times a scale. */
static const char *const ternary_names[] = {"tq1_0", "tq2_0", "q2_0", "iq1_bn", "iq2_bn", "iq2_bn_r4"};

static ciot_peer_type types[MAX_TYPES];
static enum ggml_type ggml_of[MAX_TYPES];
static int n_types;

typedef struct {
    ggml_to_float_t to_float;
    int has_mul_mat;
    enum ggml_type act;
} traits;

static traits traits_of(enum ggml_type t) {
    traits r = {0};
#if SPLIT_CPU_BACKEND
    const struct ggml_type_traits *a = ggml_get_type_traits(t);
    const struct ggml_type_traits_cpu *c = ggml_get_type_traits_cpu(t);
    r.to_float = a->to_float;
    r.has_mul_mat = c->vec_dot != NULL;
    r.act = c->vec_dot_type;
#else
    const ggml_type_traits_t a = ggml_internal_get_type_traits(t);
    r.to_float = a.to_float;
    r.has_mul_mat = a.vec_dot != NULL;
    r.act = a.vec_dot_type;
#endif
    return r;
}

static int is_ternary(const char *name) {
    for (size_t i = 0; i < sizeof ternary_names / sizeof ternary_names[0]; i++)
        if (strcmp(name, ternary_names[i]) == 0) return 1;
    return 0;
}

/* Rows a repacked type interleaves ("_r4": 4), which its matrices' row counts must be a multiple of. */
static int interleave_rows(const char *name) {
    const char *r = strstr(name, "_r");
    return r && r[2] >= '1' && r[2] <= '9' ? atoi(r + 2) : 1;
}

static void list_types(void) {
#if SPLIT_CPU_BACKEND
    ggml_cpu_init();
#endif
    for (int t = 0; t < GGML_TYPE_COUNT && n_types < MAX_TYPES; t++) {
        const char *name = ggml_type_name((enum ggml_type)t);
        const int64_t block = ggml_blck_size((enum ggml_type)t);
        const size_t size = ggml_type_size((enum ggml_type)t);
        if (!name || block <= 0 || !size || !ggml_is_quantized((enum ggml_type)t)) continue;
        if (8.0 * (double)size / (double)block > LOW_BIT_MAX) continue;
        const traits tr = traits_of((enum ggml_type)t);
        if (!tr.has_mul_mat || !tr.to_float) continue;
        ciot_peer_type *o = &types[n_types];
        snprintf(o->name, sizeof o->name, "%s", name);
        snprintf(o->act, sizeof o->act, "%s", ggml_type_name(tr.act));
        o->block_values = (int)block;
        o->ternary = is_ternary(name);
        ggml_of[n_types++] = (enum ggml_type)t;
    }
}

__attribute__((format(printf, 3, 4))) static int refuse(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 1;
}

static const char *type_name(int type) { return type >= 0 && type < n_types ? types[type].name : "an unknown type"; }

static int fits(int type, int K) {
    return type >= 0 && type < n_types && K > 0 && K % types[type].block_values == 0;
}

static size_t row_bytes(int type, int K) { return fits(type, K) ? ggml_row_size(ggml_of[type], K) : 0; }

static int quantize(int type, const float *src, void *dst, int rows, int K, char *err, size_t len) {
    if (!fits(type, K)) return refuse(err, len, "%s takes K a multiple of its block, not %d", type_name(type), K);
    if (ggml_quantize_requires_imatrix(ggml_of[type]))
        return refuse(err, len, "%s's quantizer needs an importance matrix", types[type].name);
#if SPLIT_CPU_BACKEND
    ggml_quantize_chunk(ggml_of[type], src, dst, 0, rows, K, NULL);
#else
    ggml_quantize_chunk(ggml_of[type], src, dst, 0, rows, K, NULL, NULL);   /* its last argument: options, none */
#endif
    return 0;
}

static int dequantize_row(int type, const void *row, float *out, int K, char *err, size_t len) {
    if (!fits(type, K)) return refuse(err, len, "%s takes K a multiple of its block, not %d", type_name(type), K);
    traits_of(ggml_of[type]).to_float(row, out, K);
    return 0;
}

/* A graph ready for the runtime's executor: its plan, its threads and its work memory, as the runtime keeps
 * them across calls. Products and token ops alike run through one. */
typedef struct {
    struct ggml_cgraph *graph;
    struct ggml_cplan plan;
#if SPLIT_CPU_BACKEND
    struct ggml_threadpool *pool;
#endif
    void *work;
} prepared;

/* The graph computing out, planned for threads; nonzero when its work memory cannot be had. */
static int prepare(struct ggml_context *ctx, struct ggml_tensor *out, int threads, prepared *g) {
    g->graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(g->graph, out);
#if SPLIT_CPU_BACKEND
    struct ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
    g->pool = ggml_threadpool_new(&tp);
    g->plan = ggml_graph_plan(g->graph, threads, g->pool);
#else
    g->plan = ggml_graph_plan(g->graph, threads);
#endif
    if (g->plan.work_size && posix_memalign(&g->work, 64, g->plan.work_size) != 0) return 1;
    g->plan.work_data = g->work;
    return 0;
}

static void prepared_free(prepared *g) {
#if SPLIT_CPU_BACKEND
    if (g->pool) ggml_threadpool_free(g->pool);
#endif
    free(g->work);
}

static int prepared_run(prepared *g, char *err, size_t len) {
    if (ggml_graph_compute(g->graph, &g->plan) != GGML_STATUS_SUCCESS) return refuse(err, len, "the runtime's graph compute failed");
    return 0;
}

struct ciot_peer_mm {
    struct ggml_context *ctx;
    struct ggml_tensor *w, *x, *y;
    prepared g;
};

static void mm_free(ciot_peer_mm *mm) {
    if (!mm) return;
    prepared_free(&mm->g);
    if (mm->ctx) ggml_free(mm->ctx);
    free(mm);
}

/* The runtime's shape rules are asserts that end the process, so they are checked here first. */
static ciot_peer_mm *mm_new(int type, int rows, int K, int batch, int threads, char *err, size_t len) {
    if (!fits(type, K)) {
        refuse(err, len, "%s takes K a multiple of its block, not %d", type_name(type), K);
        return NULL;
    }
    const int rows_multiple = interleave_rows(types[type].name);
    if (rows < 1 || rows % rows_multiple) {
        refuse(err, len, "%s takes rows a multiple of %d, not %d", types[type].name, rows_multiple, rows);
        return NULL;
    }
    if (batch < 1 || threads < 1) {
        refuse(err, len, "%s: batch and threads start at 1", types[type].name);
        return NULL;
    }
    ciot_peer_mm *mm = calloc(1, sizeof *mm);
    if (!mm) return NULL;
    struct ggml_init_params ip = {ggml_tensor_overhead() * 4 + ggml_graph_overhead(), NULL, true};
    mm->ctx = ggml_init(ip);
    if (!mm->ctx) {
        mm_free(mm);
        return NULL;
    }
    mm->w = ggml_new_tensor_2d(mm->ctx, ggml_of[type], K, rows);
    mm->x = ggml_new_tensor_2d(mm->ctx, GGML_TYPE_F32, K, batch);
    mm->y = ggml_mul_mat(mm->ctx, mm->w, mm->x);
    if (prepare(mm->ctx, mm->y, threads, &mm->g)) {
        mm_free(mm);
        return NULL;
    }
    return mm;
}

static int mm_run(ciot_peer_mm *mm, const void *w, const float *x, float *y, char *err, size_t len) {
    mm->w->data = (void *)w;
    mm->x->data = (void *)x;
    mm->y->data = y;
    return prepared_run(&mm->g, err, len);
}


/* Token ops: one graph of the runtime's op, the tensors that differ per instance re-pointed before each call. */
enum { MAX_SLOTS = 4, MAX_BUFFERS = 4096 };

struct ciot_peer_op {
    struct ggml_context *ctx;
    prepared g;
    int instances, slots;
    struct ggml_tensor *slot[MAX_SLOTS];   /* re-pointed per instance */
    struct ggml_tensor *view;              /* a result that is a view of slot view_of (CPY's), re-pointed with it */
    int view_of;
    void **data;                           /* [instance * slots + slot] */
    void *buffers[MAX_BUFFERS];
    int n_buffers;
};

static void op_free(ciot_peer_op *op) {
    if (!op) return;
    prepared_free(&op->g);
    for (int i = 0; i < op->n_buffers; i++) free(op->buffers[i]);
    free(op->data);
    if (op->ctx) ggml_free(op->ctx);
    free(op);
}

/* Memory the op owns, filled with small values the runtime's op takes as it takes real ones. */
static void *op_buffer(ciot_peer_op *op, size_t bytes, enum ggml_type type, unsigned seed) {
    void *p = NULL;
    if (op->n_buffers == MAX_BUFFERS || posix_memalign(&p, 64, bytes ? bytes : 64) != 0) return NULL;
    op->buffers[op->n_buffers++] = p;
    /* a drawn pattern of up to 64 KiB, repeated: the fill of gigabytes of caches stays quick */
    float pattern[4096];
    unsigned x = seed * 2654435761u + 1;
    for (int i = 0; i < 4096; i++) {
        x = x * 1664525u + 1013904223u;
        pattern[i] = (float)((int)(x >> 9) - (1 << 22)) / (float)(1 << 22) * 0.05f;
    }
    const size_t width = type == GGML_TYPE_F16 ? 2 : 4, n = bytes / width, run = n < 4096 ? n : 4096;
    if (type == GGML_TYPE_F16) ggml_fp32_to_fp16_row(pattern, (ggml_fp16_t *)p, (int64_t)run);
    else memcpy(p, pattern, run * width);
    for (size_t done = run; done < n; done += run)
        memcpy((char *)p + done * width, p, (n - done < run ? n - done : run) * width);
    return p;
}

/* Every tensor's data: a slot's one buffer per instance, any other tensor one buffer shared by the calls. */
static int op_place(ciot_peer_op *op, struct ggml_tensor *const *shared, int n_shared) {
    op->data = calloc((size_t)op->instances * (size_t)op->slots, sizeof(void *));
    if (!op->data) return 1;
    for (int i = 0; i < n_shared; i++)
        if (!(shared[i]->data = op_buffer(op, ggml_nbytes(shared[i]), shared[i]->type, 7u + (unsigned)i))) return 1;
    for (int k = 0; k < op->instances; k++)
        for (int j = 0; j < op->slots; j++) {
            void *p = op_buffer(op, ggml_nbytes(op->slot[j]), op->slot[j]->type, 100u + (unsigned)(k * MAX_SLOTS + j));
            if (!p) return 1;
            op->data[k * op->slots + j] = p;
        }
    return 0;
}

/* The graph of the op at the shape: its result, the per-instance slots set, the shared inputs listed. */
static struct ggml_tensor *op_graph(ciot_peer_op *op, const ciot_peer_op_shape *s, struct ggml_tensor **shared,
                                    int *n_shared, char *err, size_t len) {
    struct ggml_context *c = op->ctx;
    switch (s->op) {
    case CIOT_PEER_OP_DELTANET: {
        const int D = s->head_dim;
#if SPLIT_CPU_BACKEND
        struct ggml_tensor *q = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, s->k_heads, 1, 1);
        struct ggml_tensor *k = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, s->k_heads, 1, 1);
        struct ggml_tensor *v = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, s->v_heads, 1, 1);
        struct ggml_tensor *g = ggml_new_tensor_4d(c, GGML_TYPE_F32, 1, s->v_heads, 1, 1);
        struct ggml_tensor *b = ggml_new_tensor_4d(c, GGML_TYPE_F32, 1, s->v_heads, 1, 1);
        struct ggml_tensor *st = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, D, s->v_heads, 1);
        struct ggml_tensor *out = ggml_gated_delta_net(c, q, k, v, g, b, st);
#else
        struct ggml_tensor *q = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, 1, s->k_heads, 1);
        struct ggml_tensor *k = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, 1, s->k_heads, 1);
        struct ggml_tensor *v = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, 1, s->v_heads, 1);
        struct ggml_tensor *g = ggml_new_tensor_4d(c, GGML_TYPE_F32, 1, 1, s->v_heads, 1);
        struct ggml_tensor *b = ggml_new_tensor_4d(c, GGML_TYPE_F32, 1, 1, s->v_heads, 1);
        struct ggml_tensor *st = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, D * s->v_heads, 1, 1);
        struct ggml_tensor *out = ggml_delta_net(c, q, k, v, g, b, st, NULL);
#endif
        /* the state is each instance's own, and so is the new state the op writes beside it */
        op->slot[0] = st, op->slot[1] = out, op->slots = 2;
        shared[0] = q, shared[1] = k, shared[2] = v, shared[3] = g, shared[4] = b, *n_shared = 5;
        return out;
    }
    case CIOT_PEER_OP_ATTENTION: {
        const int D = s->head_dim, P = s->L + 1;   /* the cached positions and the token's own */
        struct ggml_tensor *q = ggml_new_tensor_4d(c, GGML_TYPE_F32, D, 1, s->q_heads, 1);
        struct ggml_tensor *k = ggml_new_tensor_4d(c, GGML_TYPE_F16, D, P, s->kv_heads, 1);
        struct ggml_tensor *v = ggml_new_tensor_4d(c, GGML_TYPE_F16, D, P, s->kv_heads, 1);
        struct ggml_tensor *out = ggml_flash_attn_ext(c, q, k, v, NULL, 1.0f / sqrtf((float)D), 0.0f, 0.0f);
        op->slot[0] = k, op->slot[1] = v, op->slots = 2;
        shared[0] = q, shared[1] = out, *n_shared = 2;
        return out;
    }
    case CIOT_PEER_OP_RMS_NORM: {
        struct ggml_tensor *x = ggml_new_tensor_1d(c, GGML_TYPE_F32, s->n);
        struct ggml_tensor *out = ggml_rms_norm(c, x, 1e-6f);
        op->slot[0] = x, op->slots = 1;
        shared[0] = out, *n_shared = 1;
        return out;
    }
    case CIOT_PEER_OP_STATE_COPY: {
        struct ggml_tensor *src = ggml_new_tensor_1d(c, GGML_TYPE_F32, (int64_t)(s->bytes / 4));
        struct ggml_tensor *dst = ggml_new_tensor_1d(c, GGML_TYPE_F32, (int64_t)(s->bytes / 4));
        struct ggml_tensor *out = ggml_cpy(c, src, dst);
        op->slot[0] = src, op->slot[1] = dst, op->slots = 2;
        op->view = out, op->view_of = 1;
        *n_shared = 0;
        return out;
    }
    }
    refuse(err, len, "no such op (%d)", s->op);
    return NULL;
}

static int op_shape_ok(const ciot_peer_op_shape *s, char *err, size_t len) {
    if (s->instances < 1) return !refuse(err, len, "instances start at 1");
    if (s->op == CIOT_PEER_OP_DELTANET && (s->head_dim < 1 || s->k_heads < 1 || s->v_heads % s->k_heads))
        return !refuse(err, len, "the delta rule takes value heads a multiple of the key heads");
    if (s->op == CIOT_PEER_OP_ATTENTION && (s->head_dim < 1 || s->L < 0 || s->kv_heads < 1 || s->q_heads % s->kv_heads))
        return !refuse(err, len, "attention takes query heads a multiple of the KV heads");
    if (s->op == CIOT_PEER_OP_RMS_NORM && s->n < 1) return !refuse(err, len, "rms_norm takes a row of at least 1");
    if (s->op == CIOT_PEER_OP_STATE_COPY && (s->bytes < 4 || s->bytes % 4))
        return !refuse(err, len, "the state copy takes whole floats");
    return 1;
}

static ciot_peer_op *op_new(const ciot_peer_op_shape *s, int threads, char *err, size_t len) {
    if (!op_shape_ok(s, err, len)) return NULL;
    ciot_peer_op *op = calloc(1, sizeof *op);
    if (!op) return NULL;
    op->instances = s->instances;
    struct ggml_init_params ip = {ggml_tensor_overhead() * 16 + ggml_graph_overhead(), NULL, true};
    struct ggml_tensor *shared[8];
    int n_shared = 0;
    struct ggml_tensor *out = (op->ctx = ggml_init(ip)) ? op_graph(op, s, shared, &n_shared, err, len) : NULL;
    if (!out || op_place(op, shared, n_shared) || prepare(op->ctx, out, threads, &op->g)) {
        if (out) refuse(err, len, "out of memory for the op's %d instances", s->instances);
        op_free(op);
        return NULL;
    }
    return op;
}

static int op_run(ciot_peer_op *op, int instance, char *err, size_t len) {
    if (instance < 0 || instance >= op->instances) return refuse(err, len, "no instance %d", instance);
    for (int j = 0; j < op->slots; j++) op->slot[j]->data = op->data[instance * op->slots + j];
    if (op->view) op->view->data = op->slot[op->view_of]->data;
    return prepared_run(&op->g, err, len);
}

static ciot_peer_api api = {CIOT_PEER_ABI, sizeof(ciot_peer_api), "ggml", CIOT_PEER_BUILD, 0, types,
                            row_bytes, quantize, dequantize_row, mm_new, mm_run, mm_free,
                            op_new, op_run, op_free};

__attribute__((visibility("default"))) const ciot_peer_api *ciot_peer_entry(void) {
    if (!n_types) list_types();
    api.n_types = n_types;
    return &api;
}
