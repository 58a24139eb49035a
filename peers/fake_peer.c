/* A stand-in peer module for the tests, where no runtime's source is at hand: the peer ABI over ciot's own
 * scalar references (their symbols come from the ciot executable that loads it). It offers the three types
 * whose bytes ciot reads under the runtime's names. CIOT_FAKE_PEER_BREAK=dequant|mm|abi makes it wrong on
 * purpose, so the tests can see ciot check --peer and the loader catch a module that disagrees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "peer_abi.h"
#include "quant.h"
#include "registry.h"

typedef struct {
    ciot_format format;
    const char *gemv, *gemm;   /* the reference kernels that stand for the runtime's mul_mat */
} fake_type;

static const fake_type fake_types[] = {
    {CIOT_FMT_PQ2_0, "pq2_0_gemv_ref", "pq2_0_gemm_ref"},
    {CIOT_FMT_TQ1_0, "tq1_0_gemv_ref", "tq1_0_gemm_ref"},
    {CIOT_FMT_TQ2_0, "tq2_0_gemv_ref", "tq2_0_gemm_ref"},
};
static const ciot_peer_type listed[] = {
    {"q2_0", "q8_K", 128, 1},
    {"tq1_0", "q8_K", 256, 1},
    {"tq2_0", "q8_K", 256, 1},
};
enum { N_TYPES = sizeof fake_types / sizeof fake_types[0] };

struct ciot_peer_mm {
    const ciot_kernel *k;
    int rows, K, batch;
    unsigned char *acts;
};

static int broken(const char *what) {
    const char *b = getenv("CIOT_FAKE_PEER_BREAK");
    return b && strcmp(b, what) == 0;
}

static int refuse(char *err, size_t len, const char *why) {
    snprintf(err, len, "%s", why);
    return 1;
}

static size_t row_bytes(int type, int K) {
    if (type < 0 || type >= N_TYPES || K <= 0 || K % ciot_format_block_values(fake_types[type].format)) return 0;
    return ciot_source_bytes(fake_types[type].format, 1, K);
}

static int quantize(int type, const float *src, void *dst, int rows, int K, char *err, size_t len) {
    if (!row_bytes(type, K)) return refuse(err, len, "K is not a multiple of the type's block");
    for (int r = 0; r < rows; r++) {
        const float *x = src + (size_t)r * K;
        unsigned char *y = (unsigned char *)dst + (size_t)r * row_bytes(type, K);
        switch (fake_types[type].format) {
        case CIOT_FMT_PQ2_0: ciot_quantize_pq2_0(x, (block_pq2_0 *)y, K); break;
        case CIOT_FMT_TQ1_0: ciot_quantize_tq1_0(x, (block_tq1_0 *)y, K); break;
        default: ciot_quantize_tq2_0(x, (block_tq2_0 *)y, K); break;
        }
    }
    return 0;
}

static int dequantize_row(int type, const void *row, float *out, int K, char *err, size_t len) {
    if (!row_bytes(type, K)) return refuse(err, len, "K is not a multiple of the type's block");
    switch (fake_types[type].format) {
    case CIOT_FMT_PQ2_0: ciot_dequantize_pq2_0(row, out, K); break;
    case CIOT_FMT_TQ1_0: ciot_dequantize_tq1_0(row, out, K); break;
    default: ciot_dequantize_tq2_0(row, out, K); break;
    }
    if (broken("dequant")) out[K / 2] = -out[K / 2] + 1.0f;
    return 0;
}

static ciot_peer_mm *mm_new(int type, int rows, int K, int batch, int threads, char *err, size_t len) {
    if (!row_bytes(type, K) || rows < 1 || batch < 1 || threads < 1) {
        refuse(err, len, "the fake takes K a multiple of the type's block, and rows, batch and threads from 1");
        return NULL;
    }
    ciot_peer_mm *mm = calloc(1, sizeof *mm);
    if (!mm) return NULL;
    mm->k = ciot_kernel_find(batch == 1 ? fake_types[type].gemv : fake_types[type].gemm);
    mm->rows = rows, mm->K = K, mm->batch = batch;
    mm->acts = malloc(ciot_act_bytes(mm->k->act, batch, K));
    if (!mm->acts) {
        free(mm);
        return NULL;
    }
    return mm;
}

static int mm_run(ciot_peer_mm *mm, const void *w, const float *x, float *y, char *err, size_t len) {
    mm->k->act->quantize(x, mm->acts, mm->batch, mm->K);
    const ciot_mm m = {w, mm->acts, y, mm->rows, mm->K, mm->batch, mm->rows, 0};
    mm->k->compute(&m, 0, ciot_kernel_tiles(mm->k, mm->rows));
    if (broken("mm")) y[0] += 1.0f;
    return 0;
}

static void mm_free(ciot_peer_mm *mm) {
    if (!mm) return;
    free(mm->acts);
    free(mm);
}

/* Of the token ops, the test module runs the state copy alone (a memcpy per instance). */
struct ciot_peer_op {
    size_t bytes;
    int instances;
    unsigned char *src, *dst;
};

static ciot_peer_op *op_new(const ciot_peer_op_shape *s, int threads, char *err, size_t len) {
    if (s->op != CIOT_PEER_OP_STATE_COPY || s->instances < 1 || !s->bytes) {
        refuse(err, len, "the test module runs only the state copy");
        return NULL;
    }
    ciot_peer_op *op = calloc(1, sizeof *op);
    if (!op) return NULL;
    op->bytes = s->bytes, op->instances = s->instances;
    op->src = calloc((size_t)s->instances, s->bytes), op->dst = calloc((size_t)s->instances, s->bytes);
    if (!op->src || !op->dst) {
        free(op->src), free(op->dst), free(op);
        return NULL;
    }
    return op;
}

static int op_run(ciot_peer_op *op, int instance, char *err, size_t len) {
    if (instance < 0 || instance >= op->instances) return refuse(err, len, "no such instance");
    memcpy(op->dst + (size_t)instance * op->bytes, op->src + (size_t)instance * op->bytes, op->bytes);
    return 0;
}

static void op_free(ciot_peer_op *op) {
    if (!op) return;
    free(op->src), free(op->dst), free(op);
}

static const ciot_peer_api api = {CIOT_PEER_ABI, sizeof(ciot_peer_api), "fake", "ciot's scalar references (a test module)",
                                  N_TYPES, listed, row_bytes, quantize, dequantize_row, mm_new, mm_run, mm_free,
                                  op_new, op_run, op_free};
static ciot_peer_api other_abi;

__attribute__((visibility("default"))) const ciot_peer_api *ciot_peer_entry(void) {
    if (!broken("abi")) return &api;
    other_abi = api;
    other_abi.abi = CIOT_PEER_ABI + 1;
    return &other_abi;
}
