/* A GGUF reader (versions 2 and 3, little-endian): the header, typed metadata and tensor infos, every
 * count, length, dimension and offset checked against the file size with overflow-safe arithmetic.
 * Library code: it returns a status and a one-line reason, and never prints or exits.
 *
 * Layout read: "GGUF", u32 version, u64 tensor count, u64 metadata count; metadata (string key, u32
 * value type, value; a string is u64 length + bytes, an array u32 element type + u64 count + elements);
 * tensor infos (string name, u32 n_dims, u64 ne[n_dims] with ne[0] the row length, u32 type, u64 offset
 * into the data section); the data section at the next multiple of general.alignment (default 32). */
#ifndef CIOT_GGUF_H
#define CIOT_GGUF_H

#include <stddef.h>
#include <stdint.h>
#include "kernel.h"
#include "status.h"

/* ggml type ids this reader knows the block shape of, and the Prism fork's ternary types. */
enum {
    CIOT_GGML_F32 = 0,
    CIOT_GGML_F16 = 1,
    CIOT_GGML_TQ1_0 = 34,
    CIOT_GGML_TQ2_0 = 35,
    CIOT_GGML_PQ2_0 = 142,  /* Prism fork: the 128-weight blocks of kernels/formats.md */
    CIOT_GGML_PTQ1_0 = 143,
};

/* Metadata value types. */
typedef enum {
    CIOT_GGUF_U8 = 0, CIOT_GGUF_I8 = 1, CIOT_GGUF_U16 = 2, CIOT_GGUF_I16 = 3, CIOT_GGUF_U32 = 4,
    CIOT_GGUF_I32 = 5, CIOT_GGUF_F32 = 6, CIOT_GGUF_BOOL = 7, CIOT_GGUF_STRING = 8, CIOT_GGUF_ARRAY = 9,
    CIOT_GGUF_U64 = 10, CIOT_GGUF_I64 = 11, CIOT_GGUF_F64 = 12,
} ciot_gguf_vtype;

typedef struct {
    const char *key;            /* NUL-terminated copy */
    ciot_gguf_vtype type;
    /* scalars: the value widened (integers and bools in i or u, floats in f); strings: str (a
     * NUL-terminated copy, str_len bytes, which may hold NUL); arrays: elem_type and count */
    int64_t i;
    uint64_t u;
    double f;
    const char *str;
    uint64_t str_len;
    ciot_gguf_vtype elem_type;
    uint64_t count;
} ciot_gguf_kv;

typedef struct {
    const char *name;           /* NUL-terminated copy; non-empty, no NUL inside */
    uint32_t type;              /* ggml type id */
    int n_dims;                 /* 1..4 */
    uint64_t ne[4];             /* ne[0] is the row length; dims past n_dims are 1 */
    uint64_t elements;          /* product of ne */
    uint64_t offset;            /* from the start of the data section (aligned) */
    uint64_t bytes;             /* from the type's block shape; 0 when the type is unknown */
    const void *data;           /* the tensor's bytes inside the file image; NULL when the type is unknown */
    int known;                  /* the reader knows the type's block shape (bytes and bounds checked) */
} ciot_gguf_tensor;

typedef struct ciot_gguf ciot_gguf;

/* Maps FILE read-only and parses it. On failure *out is NULL and why holds one line naming the problem
 * (CIOT_E_IO: cannot open or map; CIOT_E_FORMAT: malformed; CIOT_E_NOMEM). */
ciot_status ciot_gguf_open(const char *path, ciot_gguf **out, char *why, size_t why_len);
/* Parses a file image in memory (not copied: it must outlive the handle). The fuzzer's entry point. */
ciot_status ciot_gguf_parse(const void *data, size_t size, ciot_gguf **out, char *why, size_t why_len);
void ciot_gguf_close(ciot_gguf *g);

uint32_t ciot_gguf_version(const ciot_gguf *g);
uint64_t ciot_gguf_alignment(const ciot_gguf *g);
size_t ciot_gguf_size(const ciot_gguf *g);              /* bytes of the file image */
uint64_t ciot_gguf_data_offset(const ciot_gguf *g);     /* where the data section starts */

int ciot_gguf_kv_count(const ciot_gguf *g);
const ciot_gguf_kv *ciot_gguf_kv_at(const ciot_gguf *g, int i);
const ciot_gguf_kv *ciot_gguf_find_kv(const ciot_gguf *g, const char *key);   /* NULL when absent */
/* A string value: CIOT_E_UNKNOWN when the key is absent, CIOT_E_FORMAT when it is not a string. */
ciot_status ciot_gguf_get_str(const ciot_gguf *g, const char *key, const char **out);
/* An integer value of any integer type that fits int64: CIOT_E_UNKNOWN when absent, CIOT_E_FORMAT
 * when it is not an integer or does not fit. */
ciot_status ciot_gguf_get_int(const ciot_gguf *g, const char *key, int64_t *out);
/* "<general.architecture>.<suffix>" as an integer, e.g. suffix "block_count", "embedding_length",
 * "feed_forward_length", "attention.head_count". CIOT_E_UNKNOWN when the file names no architecture. */
ciot_status ciot_gguf_get_arch_int(const ciot_gguf *g, const char *suffix, int64_t *out);

/* Tensors in the order of the file's tensor infos. */
int ciot_gguf_tensor_count(const ciot_gguf *g);
const ciot_gguf_tensor *ciot_gguf_tensor_at(const ciot_gguf *g, int i);
const ciot_gguf_tensor *ciot_gguf_find_tensor(const ciot_gguf *g, const char *name);   /* NULL when absent */

/* "f32", "f16", "tq1_0", "tq2_0", "pq2_0", "ptq1_0", ... for known ids, NULL for unknown ones. */
const char *ciot_ggml_type_name(uint32_t type);
/* The ternary weight format of a ggml type: 1 and *f set for TQ1_0, TQ2_0, PQ2_0, PTQ1_0, else 0. */
int ciot_ggml_type_format(uint32_t type, ciot_format *f);
/* A 2-D ternary weight matrix a kernel can be offered: 1 with rows (ne[1]) and K (ne[0]) when the
 * tensor has a ternary type, ne[2] = ne[3] = 1 and both dims fit an int; else 0. */
int ciot_gguf_tensor_matrix(const ciot_gguf_tensor *t, ciot_format *f, int *rows, int *K);

#endif
