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
} ciot_peer_api;

typedef const ciot_peer_api *(*ciot_peer_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
