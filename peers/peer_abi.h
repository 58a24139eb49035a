/* The C interface a peer module implements: a shared library that runs a runtime's own kernels (a
 * ggml-family fork's quantizers, dequantizers and mul_mat on its own threads) for ciot to time and check.
 * ciot owns this header; a module is built against it and one runtime's headers (peers/README.md).
 *
 * A module exports one symbol, CIOT_PEER_ENTRY, returning its table. ciot refuses a table whose abi is not
 * CIOT_PEER_ABI or whose size is smaller than the table it reads. Every function returns 0 on success and
 * writes a reason into err (at most err_len bytes, NUL-terminated) when it refuses. Types are the module's
 * own indexes 0 .. n_types - 1. A matrix is rows x K weights, K per row; activations and outputs are fp32,
 * row-major: x[b * K + k], y[b * rows + n] for activation row b and weight row n. */
#ifndef CIOT_PEER_ABI_H
#define CIOT_PEER_ABI_H

#include <stddef.h>
#include <stdint.h>

#define CIOT_PEER_ABI 1
#define CIOT_PEER_ENTRY "ciot_peer_entry"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[32];       /* the runtime's own type name: "tq1_0", "q2_0", "iq2_bn" */
    char act[32];        /* the type its mul_mat quantizes the activations to: "q8_K", "q8_0", "f32" */
    int block_values;    /* weights per block of a row */
    int ternary;         /* 1: every weight is -1, 0 or +1 times a scale (the type's quantizer writes no other) */
} ciot_peer_type;

/* The token ops a module may run with the runtime's own op (0 in a shape's op: none). Each call is one decode
 * token's op for one layer, on instance (0 .. instances - 1) of the op's state, so that the calls rotate over
 * as many states as ciot's own op does and start cold:
 * - DELTANET: the gated delta rule's recurrent step (ggml's GATED_DELTA_NET) for k_heads key heads, v_heads value
 *   heads of head_dim, on an fp32 state of v_heads x head_dim x head_dim per instance;
 * - ATTENTION: one query position over L cached positions (ggml's FLASH_ATTN_EXT), q_heads query heads and
 *   kv_heads fp16 K and V heads of head_dim, one cache per instance;
 * - RMS_NORM: one row of n floats;
 * - STATE_COPY: bytes copied from an instance's source to its destination (the state snapshot, ggml's CPY). */
typedef enum { CIOT_PEER_OP_DELTANET = 1, CIOT_PEER_OP_ATTENTION, CIOT_PEER_OP_RMS_NORM, CIOT_PEER_OP_STATE_COPY } ciot_peer_op_kind;

typedef struct {
    int op;              /* ciot_peer_op_kind */
    int k_heads, v_heads, head_dim;   /* DELTANET; ATTENTION: head_dim */
    int q_heads, kv_heads, L;         /* ATTENTION */
    int n;                            /* RMS_NORM */
    size_t bytes;                     /* STATE_COPY */
    int instances;
} ciot_peer_op_shape;

typedef struct ciot_peer_op ciot_peer_op;

/* A prepared product: the runtime's graph (or what stands for it) for one type, shape, batch and thread
 * count, with its work memory and its threads. */
typedef struct ciot_peer_mm ciot_peer_mm;

typedef struct {
    uint32_t abi;        /* CIOT_PEER_ABI */
    uint32_t size;       /* sizeof this table as the module was built */
    const char *engine;  /* the runtime family: "ggml" */
    const char *build;   /* what the module was built from: the fork and its commit */
    int n_types;
    const ciot_peer_type *types;
    /* Bytes of one row of K weights of the type (its row metadata included); 0 when K does not fit it. */
    size_t (*row_bytes)(int type, int K);
    /* The runtime's own quantizer: rows x K floats into the type's bytes. */
    int (*quantize)(int type, const float *src, void *dst, int rows, int K, char *err, size_t err_len);
    /* The runtime's own dequantizer: one row of K weights into floats. */
    int (*dequantize_row)(int type, const void *row, float *out, int K, char *err, size_t err_len);
    /* The runtime's mul_mat for batch activation rows on threads threads: NULL when it refuses the shape. */
    ciot_peer_mm *(*mm_new)(int type, int rows, int K, int batch, int threads, char *err, size_t err_len);
    /* One product, y = x . w^T, activation quantization included; w holds rows x row_bytes(type, K) bytes. */
    int (*mm_run)(ciot_peer_mm *mm, const void *w, const float *x, float *y, char *err, size_t err_len);
    void (*mm_free)(ciot_peer_mm *mm);
    /* The runtime's own token op at a shape, its inputs and instances allocated and filled: NULL when the
     * runtime lacks the op or refuses the shape (err says which). */
    ciot_peer_op *(*op_new)(const ciot_peer_op_shape *shape, int threads, char *err, size_t err_len);
    int (*op_run)(ciot_peer_op *op, int instance, char *err, size_t err_len);
    void (*op_free)(ciot_peer_op *op);
} ciot_peer_api;

typedef const ciot_peer_api *(*ciot_peer_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
