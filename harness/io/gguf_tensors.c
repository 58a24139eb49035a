/* The GGUF tensor table: the ggml types' block shapes, each tensor info read and sized by its type, every
 * tensor's data placed inside the file, no two names alike and no two tensors' data overlapping. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gguf.h"
#include "gguf_cursor.h"

/* The block shapes of the ggml types: values per block and bytes per block. */
typedef struct {
    uint32_t id;
    const char *name;
    uint32_t block, bytes;
} type_info;

static const type_info types[] = {
    {0, "f32", 1, 4},         {1, "f16", 1, 2},          {2, "q4_0", 32, 18},      {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},       {8, "q8_0", 32, 34},      {9, "q8_1", 32, 36},
    {10, "q2_k", 256, 84},    {11, "q3_k", 256, 110},    {12, "q4_k", 256, 144},   {13, "q5_k", 256, 176},
    {14, "q6_k", 256, 210},   {15, "q8_k", 256, 292},    {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},    {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136},  {24, "i8", 1, 1},         {25, "i16", 1, 2},
    {26, "i32", 1, 4},        {27, "i64", 1, 8},         {28, "f64", 1, 8},        {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},    {35, "tq2_0", 256, 66},   {39, "mxfp4", 32, 17},
    {142, "pq2_0", 128, 34},  {143, "ptq1_0", 128, 28},
};

static const type_info *type_find(uint32_t id) {
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].id == id) return &types[i];
    return NULL;
}

const char *ciot_ggml_type_name(uint32_t type) {
    const type_info *t = type_find(type);
    return t ? t->name : NULL;
}

int ciot_ggml_type_format(uint32_t type, ciot_format *f) {
    switch (type) {
    case CIOT_GGML_TQ1_0: *f = CIOT_FMT_TQ1_0; return 1;
    case CIOT_GGML_TQ2_0: *f = CIOT_FMT_TQ2_0; return 1;
    case CIOT_GGML_PQ2_0: *f = CIOT_FMT_PQ2_0; return 1;
    case CIOT_GGML_PTQ1_0: *f = CIOT_FMT_PTQ1_0; return 1;
    }
    return 0;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static int add_ok(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }

ciot_status ciot_gguf_read_tensor_info(cursor *c, ciot_gguf *g, int idx) {
    char what[NAME_SHOWN + 48], nb[NAME_SHOWN + 4];
    snprintf(what, sizeof what, "tensor info %d", idx);
    void *entry;
    const char *name;
    ciot_status s = ciot_gguf_read_name(c, what, (void **)&g->tensors, &g->cap_tensors, &g->n_tensors, sizeof *g->tensors,
                                        &entry, &name);
    if (s != CIOT_OK) return s;
    ciot_gguf_tensor *t = entry;
    t->name = name;
    snprintf(what, sizeof what, "tensor '%s'", shown(t->name, nb));
    uint32_t n_dims;
    if ((s = rd32(c, &n_dims, what)) != CIOT_OK) return s;
    if (n_dims < 1 || n_dims > 4) return failf(c, CIOT_E_FORMAT, "%s: n_dims %u (1..4 allowed)", what, n_dims);
    t->n_dims = (int)n_dims;
    t->elements = 1;
    for (int d = 0; d < 4; d++) {
        t->ne[d] = 1;
        if (d >= t->n_dims) continue;
        if ((s = rd64(c, &t->ne[d], what)) != CIOT_OK) return s;
        if (t->ne[d] == 0) return failf(c, CIOT_E_FORMAT, "%s: dimension %d is 0", what, d);
        if (!mul_ok(t->elements, t->ne[d], &t->elements) || t->elements > (uint64_t)INT64_MAX)
            return failf(c, CIOT_E_FORMAT, "%s: the element count overflows (dimension %d is %llu)", what, d,
                         (unsigned long long)t->ne[d]);
    }
    if ((s = rd32(c, &t->type, what)) != CIOT_OK || (s = rd64(c, &t->offset, what)) != CIOT_OK) return s;
    const type_info *ti = type_find(t->type);
    if (!ti) return CIOT_OK; /* unknown types are listed as unsupported: their size cannot be checked */
    t->known = 1;
    if (t->ne[0] % ti->block)
        return failf(c, CIOT_E_FORMAT, "%s: row length %llu is not a multiple of %s's %u-value block", what,
                     (unsigned long long)t->ne[0], ti->name, ti->block);
    uint64_t bytes = t->ne[0] / ti->block * ti->bytes;
    for (int d = 1; d < 4; d++)
        if (!mul_ok(bytes, t->ne[d], &bytes))
            return failf(c, CIOT_E_FORMAT, "%s: its byte size overflows", what);
    t->bytes = bytes;
    return CIOT_OK;
}

/* Offsets aligned, data inside the file; data pointers set. */
ciot_status ciot_gguf_place_tensors(cursor *c, ciot_gguf *g) {
    char nb[NAME_SHOWN + 4];
    for (int i = 0; i < g->n_tensors; i++) {
        ciot_gguf_tensor *t = &g->tensors[i];
        uint64_t start, end;
        if (t->offset % g->alignment)
            return failf(c, CIOT_E_FORMAT, "tensor '%s': data offset %llu is not a multiple of the alignment %llu",
                         shown(t->name, nb), (unsigned long long)t->offset, (unsigned long long)g->alignment);
        if (!add_ok(g->data_offset, t->offset, &start) || !add_ok(start, t->bytes, &end) || end > g->size)
            return failf(c, CIOT_E_FORMAT,
                         "tensor '%s': data at offset %llu (+%llu bytes, from the data section at byte %llu) runs past the "
                         "end of the file (%zu bytes)",
                         shown(t->name, nb), (unsigned long long)t->offset, (unsigned long long)t->bytes,
                         (unsigned long long)g->data_offset, g->size);
        if (t->known) t->data = g->base + start;
    }
    return CIOT_OK;
}

static int by_name(const void *a, const void *b) {
    return strcmp((*(const ciot_gguf_tensor *const *)a)->name, (*(const ciot_gguf_tensor *const *)b)->name);
}
static int by_offset(const void *a, const void *b) {
    const ciot_gguf_tensor *x = *(const ciot_gguf_tensor *const *)a, *y = *(const ciot_gguf_tensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Duplicate names, and tensors whose data overlap (sorted copies of pointers). */
ciot_status ciot_gguf_check_tensors(cursor *c, ciot_gguf *g) {
    const ciot_gguf_tensor **v = malloc(sizeof *v * (size_t)(g->n_tensors ? g->n_tensors : 1));
    if (!v) return failf(c, CIOT_E_NOMEM, "out of memory checking names");
    char nb[NAME_SHOWN + 4], nb2[NAME_SHOWN + 4];
    ciot_status s = CIOT_OK;
    for (int i = 0; i < g->n_tensors; i++) v[i] = &g->tensors[i];
    qsort(v, (size_t)g->n_tensors, sizeof *v, by_name);
    for (int i = 1; i < g->n_tensors && s == CIOT_OK; i++)
        if (!by_name(&v[i - 1], &v[i]))
            s = failf(c, CIOT_E_FORMAT, "duplicate tensor name '%s'", shown(v[i]->name, nb));
    qsort(v, (size_t)g->n_tensors, sizeof *v, by_offset);
    for (int i = 1; i < g->n_tensors && s == CIOT_OK; i++) {
        const ciot_gguf_tensor *a = v[i - 1], *b = v[i];
        if (a->offset + a->bytes > b->offset) /* no overflow: ciot_gguf_place_tensors bounded both by the file size */
            s = failf(c, CIOT_E_FORMAT, "tensors '%s' and '%s' overlap in the data section", shown(a->name, nb),
                      shown(b->name, nb2));
    }
    free(v);
    return s;
}

int ciot_gguf_tensor_count(const ciot_gguf *g) { return g->n_tensors; }
const ciot_gguf_tensor *ciot_gguf_tensor_at(const ciot_gguf *g, int i) {
    return i >= 0 && i < g->n_tensors ? &g->tensors[i] : NULL;
}

const ciot_gguf_tensor *ciot_gguf_find_tensor(const ciot_gguf *g, const char *name) {
    for (int i = 0; i < g->n_tensors; i++)
        if (!strcmp(g->tensors[i].name, name)) return &g->tensors[i];
    return NULL;
}

int ciot_gguf_tensor_matrix(const ciot_gguf_tensor *t, ciot_format *f, int *rows, int *K) {
    if (!t->known || !ciot_ggml_type_format(t->type, f) || t->ne[2] != 1 || t->ne[3] != 1) return 0;
    if (t->ne[0] > INT32_MAX || t->ne[1] > INT32_MAX) return 0;
    *K = (int)t->ne[0], *rows = (int)t->ne[1];
    return 1;
}
