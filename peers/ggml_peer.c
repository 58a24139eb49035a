/* The peer module of a ggml-family runtime (mainline llama.cpp, the prismml fork, ik_llama.cpp): the peer ABI
 * (peer_abi.h) over the fork's own type traits, quantizer, dequantizer and mul_mat graph, computed by the
 * fork's graph executor on its own threads, as the runtime computes a layer. scripts/peer-build compiles it
 * against a fork's headers and links it to that fork's built libraries; it contains none of the fork's code.
 *
 * Two API generations are met: forks with the split CPU backend (ggml-cpu.h: type traits in two tables, a
 * threadpool object) and ik_llama.cpp's (one traits table with per-row metadata, the plan takes a count). */
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
    ggml_quantize_chunk(ggml_of[type], src, dst, 0, rows, K, NULL);
    return 0;
}

static int dequantize_row(int type, const void *row, float *out, int K, char *err, size_t len) {
    if (!fits(type, K)) return refuse(err, len, "%s takes K a multiple of its block, not %d", type_name(type), K);
    traits_of(ggml_of[type]).to_float(row, out, K);
    return 0;
}

struct ciot_peer_mm {
    struct ggml_context *ctx;
    struct ggml_tensor *w, *x, *y;
    struct ggml_cgraph *graph;
    struct ggml_cplan plan;
#if SPLIT_CPU_BACKEND
    struct ggml_threadpool *pool;
#endif
    void *work;
};

static void mm_free(ciot_peer_mm *mm) {
    if (!mm) return;
#if SPLIT_CPU_BACKEND
    if (mm->pool) ggml_threadpool_free(mm->pool);
#endif
    free(mm->work);
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
    mm->graph = ggml_new_graph(mm->ctx);
    ggml_build_forward_expand(mm->graph, mm->y);
#if SPLIT_CPU_BACKEND
    struct ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
    mm->pool = ggml_threadpool_new(&tp);
    mm->plan = ggml_graph_plan(mm->graph, threads, mm->pool);
#else
    mm->plan = ggml_graph_plan(mm->graph, threads);
#endif
    if (mm->plan.work_size && posix_memalign(&mm->work, 64, mm->plan.work_size) != 0) {
        mm_free(mm);
        return NULL;
    }
    mm->plan.work_data = mm->work;
    return mm;
}

static int mm_run(ciot_peer_mm *mm, const void *w, const float *x, float *y, char *err, size_t len) {
    mm->w->data = (void *)w;
    mm->x->data = (void *)x;
    mm->y->data = y;
    if (ggml_graph_compute(mm->graph, &mm->plan) != GGML_STATUS_SUCCESS)
        return refuse(err, len, "the runtime's graph compute failed");
    return 0;
}

static ciot_peer_api api = {CIOT_PEER_ABI, sizeof(ciot_peer_api), "ggml", CIOT_PEER_BUILD, 0, types,
                            row_bytes, quantize, dequantize_row, mm_new, mm_run, mm_free};

__attribute__((visibility("default"))) const ciot_peer_api *ciot_peer_entry(void) {
    if (!n_types) list_types();
    api.n_types = n_types;
    return &api;
}
