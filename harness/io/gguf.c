/* The GGUF reader: a bounds-checked cursor over the file image. Every length is compared with the bytes
 * left before it is used, products and sums go through overflow-checked helpers, tables grow with what
 * was actually read (never with a count the file claims), and the first problem ends the parse with one
 * line saying what and where. */
#include "gguf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fileio.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gguf.c reads little-endian files by copying bytes: it needs a little-endian host"
#endif

enum {
    DEFAULT_ALIGNMENT = 32,
    MAX_ALIGNMENT = 1 << 30,
    MIN_KV_BYTES = 8 + 1 + 4 + 1,       /* key length, a one-byte key, value type, smallest value */
    MIN_TENSOR_BYTES = 8 + 1 + 4 + 8 + 4 + 8, /* name length, name, n_dims, one dim, type, offset */
    NAME_SHOWN = 64,                    /* bytes of a name quoted in a message */
};

struct ciot_gguf {
    const uint8_t *base;
    size_t size;
    int mapped;
    uint32_t version;
    uint64_t alignment, data_offset;
    ciot_gguf_kv *kv;
    ciot_gguf_tensor *tensors;
    int n_kv, n_tensors, cap_kv, cap_tensors;
};

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

/* ---- the cursor ---- */

typedef struct {
    const uint8_t *p;
    size_t size, pos;
    char *why;
    size_t why_len;
} cursor;

static ciot_status failf(cursor *c, ciot_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ciot_status failf(cursor *c, ciot_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ciot_verror(s, c->why, c->why_len, fmt, ap);
    va_end(ap);
    return s;
}

static size_t left(const cursor *c) { return c->size - c->pos; }

/* n more bytes for `what`, or a truncation error naming it. */
static ciot_status need(cursor *c, uint64_t n, const char *what) {
    if (n > left(c))
        return failf(c, CIOT_E_FORMAT, "truncated: %s at byte %zu needs %llu bytes, the file has %zu left", what, c->pos,
                     (unsigned long long)n, left(c));
    return CIOT_OK;
}

static ciot_status rd(cursor *c, void *out, size_t n, const char *what) {
    ciot_status s = need(c, n, what);
    if (s != CIOT_OK) return s;
    memcpy(out, c->p + c->pos, n);
    c->pos += n;
    return CIOT_OK;
}
static ciot_status rd32(cursor *c, uint32_t *v, const char *what) { return rd(c, v, 4, what); }
static ciot_status rd64(cursor *c, uint64_t *v, const char *what) { return rd(c, v, 8, what); }

/* A string: u64 length, then that many bytes (left in place). */
static ciot_status rdstr(cursor *c, const uint8_t **s, uint64_t *len, const char *what) {
    ciot_status st = rd64(c, len, what);
    if (st != CIOT_OK) return st;
    if (*len > left(c))
        return failf(c, CIOT_E_FORMAT, "%s: string length %llu at byte %zu runs past the end of the file (%zu bytes left)",
                     what, (unsigned long long)*len, c->pos - 8, left(c));
    *s = c->p + c->pos;
    c->pos += (size_t)*len;
    return CIOT_OK;
}

static char *copy_str(const uint8_t *s, uint64_t len) {
    char *out = malloc((size_t)len + 1);
    if (!out) return NULL;
    memcpy(out, s, (size_t)len);
    out[len] = 0;
    return out;
}

/* A name for messages: at most NAME_SHOWN bytes, printable. */
static const char *shown(const char *name, char buf[NAME_SHOWN + 4]) {
    size_t n = 0;
    for (; name[n] && n < NAME_SHOWN; n++) buf[n] = name[n] >= 0x20 && name[n] < 0x7f ? name[n] : '?';
    strcpy(buf + n, name[n] ? "..." : "");
    return buf;
}

/* Room for one more element in a table that grows with what was read (doubling); 0 when out of memory. */
static int grow(void **table, int *cap, int n, size_t elem) {
    if (n < *cap) return 1;
    const int c = *cap ? 2 * *cap : 16;
    void *t = realloc(*table, elem * (size_t)c);
    if (!t) return 0;
    *table = t, *cap = c;
    return 1;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static int add_ok(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }

/* ---- metadata ---- */

static size_t scalar_bytes(uint32_t t) {
    switch (t) {
    case CIOT_GGUF_U8: case CIOT_GGUF_I8: case CIOT_GGUF_BOOL: return 1;
    case CIOT_GGUF_U16: case CIOT_GGUF_I16: return 2;
    case CIOT_GGUF_U32: case CIOT_GGUF_I32: case CIOT_GGUF_F32: return 4;
    case CIOT_GGUF_U64: case CIOT_GGUF_I64: case CIOT_GGUF_F64: return 8;
    }
    return 0;
}

static void widen(ciot_gguf_kv *kv, const uint8_t *p) {
    union { uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32; int32_t i32; float f32;
            uint64_t u64; int64_t i64; double f64; } v;
    memcpy(&v, p, scalar_bytes(kv->type));
    switch (kv->type) {
    case CIOT_GGUF_U8: case CIOT_GGUF_BOOL: kv->u = v.u8; kv->i = v.u8; break;
    case CIOT_GGUF_I8: kv->i = v.i8; kv->u = (uint64_t)kv->i; break;
    case CIOT_GGUF_U16: kv->u = v.u16; kv->i = v.u16; break;
    case CIOT_GGUF_I16: kv->i = v.i16; kv->u = (uint64_t)kv->i; break;
    case CIOT_GGUF_U32: kv->u = v.u32; kv->i = v.u32; break;
    case CIOT_GGUF_I32: kv->i = v.i32; kv->u = (uint64_t)kv->i; break;
    case CIOT_GGUF_U64: kv->u = v.u64; kv->i = (int64_t)v.u64; break;
    case CIOT_GGUF_I64: kv->i = v.i64; kv->u = (uint64_t)v.i64; break;
    case CIOT_GGUF_F32: kv->f = v.f32; break;
    case CIOT_GGUF_F64: kv->f = v.f64; break;
    default: break;
    }
}

/* The value of kv (type already read): scalars widened, strings copied, arrays walked and checked. */
static ciot_status read_value(cursor *c, ciot_gguf_kv *kv, const char *key) {
    char kb[NAME_SHOWN + 4], what[NAME_SHOWN + 64];
    snprintf(what, sizeof what, "metadata '%s'", shown(key, kb));
    ciot_status s;
    if (kv->type == CIOT_GGUF_STRING) {
        const uint8_t *str;
        if ((s = rdstr(c, &str, &kv->str_len, what)) != CIOT_OK) return s;
        if (!(kv->str = copy_str(str, kv->str_len))) return failf(c, CIOT_E_NOMEM, "out of memory reading %s", what);
        return CIOT_OK;
    }
    if (kv->type != CIOT_GGUF_ARRAY) {
        if ((s = need(c, scalar_bytes(kv->type), what)) != CIOT_OK) return s;
        widen(kv, c->p + c->pos);
        c->pos += scalar_bytes(kv->type);
        return CIOT_OK;
    }
    uint32_t et;
    if ((s = rd32(c, &et, what)) != CIOT_OK || (s = rd64(c, &kv->count, what)) != CIOT_OK) return s;
    if (et == CIOT_GGUF_ARRAY) return failf(c, CIOT_E_FORMAT, "%s: nested arrays are not supported", what);
    if (et > CIOT_GGUF_F64) return failf(c, CIOT_E_FORMAT, "%s: unknown array element type %u", what, et);
    kv->elem_type = (ciot_gguf_vtype)et;
    const uint64_t each = et == CIOT_GGUF_STRING ? 8 : scalar_bytes(et); /* a string takes at least its length */
    if (kv->count > left(c) / each)
        return failf(c, CIOT_E_FORMAT, "%s: array count %llu at byte %zu is impossible: %zu bytes are left", what,
                     (unsigned long long)kv->count, c->pos - 8, left(c));
    if (et != CIOT_GGUF_STRING) {
        c->pos += (size_t)(kv->count * each);
        return CIOT_OK;
    }
    for (uint64_t i = 0; i < kv->count; i++) {
        const uint8_t *str;
        uint64_t len;
        if ((s = rdstr(c, &str, &len, what)) != CIOT_OK) return s;
    }
    return CIOT_OK;
}

/* A key or tensor name: non-empty, no NUL byte; a copy in *out, and a zeroed new entry of the table. */
static ciot_status read_name(cursor *c, const char *what, void **table, int *cap, int *n, size_t elem, void **entry,
                             const char **out) {
    const uint8_t *name;
    uint64_t len;
    ciot_status s = rdstr(c, &name, &len, what);
    if (s != CIOT_OK) return s;
    if (len == 0) return failf(c, CIOT_E_FORMAT, "%s: the name is empty", what);
    if (memchr(name, 0, (size_t)len)) return failf(c, CIOT_E_FORMAT, "%s: the name holds a NUL byte", what);
    if (!grow(table, cap, *n, elem)) return failf(c, CIOT_E_NOMEM, "out of memory reading %s", what);
    *entry = (char *)*table + elem * (size_t)*n;
    memset(*entry, 0, elem);
    if (!(*out = copy_str(name, len))) return failf(c, CIOT_E_NOMEM, "out of memory reading %s", what);
    (*n)++;
    return CIOT_OK;
}

static ciot_status read_kv(cursor *c, ciot_gguf *g, int idx) {
    char what[48];
    snprintf(what, sizeof what, "metadata key %d", idx);
    void *entry;
    const char *key;
    ciot_status s = read_name(c, what, (void **)&g->kv, &g->cap_kv, &g->n_kv, sizeof *g->kv, &entry, &key);
    if (s != CIOT_OK) return s;
    ciot_gguf_kv *kv = entry;
    kv->key = key;
    uint32_t type;
    if ((s = rd32(c, &type, what)) != CIOT_OK) return s;
    char kb[NAME_SHOWN + 4];
    if (type > CIOT_GGUF_F64)
        return failf(c, CIOT_E_FORMAT, "metadata '%s': unknown value type %u", shown(kv->key, kb), type);
    kv->type = (ciot_gguf_vtype)type;
    return read_value(c, kv, kv->key);
}

/* ---- tensor infos ---- */

static ciot_status read_tensor_info(cursor *c, ciot_gguf *g, int idx) {
    char what[NAME_SHOWN + 48], nb[NAME_SHOWN + 4];
    snprintf(what, sizeof what, "tensor info %d", idx);
    void *entry;
    const char *name;
    ciot_status s = read_name(c, what, (void **)&g->tensors, &g->cap_tensors, &g->n_tensors, sizeof *g->tensors, &entry,
                              &name);
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
static ciot_status place_tensors(cursor *c, ciot_gguf *g) {
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
static int by_key(const void *a, const void *b) {
    return strcmp((*(const ciot_gguf_kv *const *)a)->key, (*(const ciot_gguf_kv *const *)b)->key);
}
static int by_offset(const void *a, const void *b) {
    const ciot_gguf_tensor *x = *(const ciot_gguf_tensor *const *)a, *y = *(const ciot_gguf_tensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Duplicate names and keys, and tensors whose data overlap (sorted copies of pointers). */
static ciot_status check_unique(cursor *c, ciot_gguf *g) {
    const int n = g->n_tensors > g->n_kv ? g->n_tensors : g->n_kv;
    const void **v = malloc(sizeof *v * (size_t)(n ? n : 1));
    if (!v) return failf(c, CIOT_E_NOMEM, "out of memory checking names");
    char nb[NAME_SHOWN + 4], nb2[NAME_SHOWN + 4];
    ciot_status s = CIOT_OK;
    for (int i = 0; i < g->n_kv; i++) v[i] = &g->kv[i];
    qsort(v, (size_t)g->n_kv, sizeof *v, by_key);
    for (int i = 1; i < g->n_kv && s == CIOT_OK; i++)
        if (!by_key(&v[i - 1], &v[i]))
            s = failf(c, CIOT_E_FORMAT, "duplicate metadata key '%s'", shown(((const ciot_gguf_kv *)v[i])->key, nb));
    for (int i = 0; i < g->n_tensors; i++) v[i] = &g->tensors[i];
    qsort(v, (size_t)g->n_tensors, sizeof *v, by_name);
    for (int i = 1; i < g->n_tensors && s == CIOT_OK; i++)
        if (!by_name(&v[i - 1], &v[i]))
            s = failf(c, CIOT_E_FORMAT, "duplicate tensor name '%s'", shown(((const ciot_gguf_tensor *)v[i])->name, nb));
    qsort(v, (size_t)g->n_tensors, sizeof *v, by_offset);
    for (int i = 1; i < g->n_tensors && s == CIOT_OK; i++) {
        const ciot_gguf_tensor *a = v[i - 1], *b = v[i];
        if (a->offset + a->bytes > b->offset) /* no overflow: place_tensors bounded both by the file size */
            s = failf(c, CIOT_E_FORMAT, "tensors '%s' and '%s' overlap in the data section", shown(a->name, nb),
                      shown(b->name, nb2));
    }
    free(v);
    return s;
}

static ciot_status read_alignment(cursor *c, ciot_gguf *g) {
    g->alignment = DEFAULT_ALIGNMENT;
    int64_t a;
    ciot_status s = ciot_gguf_get_int(g, "general.alignment", &a);
    if (s == CIOT_E_UNKNOWN) return CIOT_OK;
    if (s != CIOT_OK) return failf(c, CIOT_E_FORMAT, "metadata 'general.alignment' is not an integer");
    if (a <= 0 || a > MAX_ALIGNMENT || (a & (a - 1)))
        return failf(c, CIOT_E_FORMAT, "metadata 'general.alignment' is %lld: not a power of two in 1..%d", (long long)a,
                     MAX_ALIGNMENT);
    g->alignment = (uint64_t)a;
    return CIOT_OK;
}

static ciot_status parse(cursor *c, ciot_gguf *g) {
    static const uint8_t magic[4] = {'G', 'G', 'U', 'F'};
    if (c->size < 4 || memcmp(c->p, magic, 4)) {
        char m[5] = {0};
        for (size_t i = 0; i < 4 && i < c->size; i++) m[i] = c->p[i] >= 0x20 && c->p[i] < 0x7f ? (char)c->p[i] : '?';
        return failf(c, CIOT_E_FORMAT, "not a GGUF file: it starts with '%s', not 'GGUF' (%zu bytes)", m, c->size);
    }
    c->pos = 4;
    ciot_status s;
    uint64_t n_tensors, n_kv;
    if ((s = rd32(c, &g->version, "the version")) != CIOT_OK) return s;
    if (g->version == 0x03000000u || g->version == 0x02000000u)
        return failf(c, CIOT_E_FORMAT, "version 0x%08x reads as byte-swapped: big-endian GGUF is not supported", g->version);
    if (g->version != 2 && g->version != 3)
        return failf(c, CIOT_E_FORMAT, "GGUF version %u is not supported (2 and 3 are)", g->version);
    if ((s = rd64(c, &n_tensors, "the tensor count")) != CIOT_OK || (s = rd64(c, &n_kv, "the metadata count")) != CIOT_OK)
        return s;
    if (n_kv > left(c) / MIN_KV_BYTES || n_kv > INT32_MAX)
        return failf(c, CIOT_E_FORMAT,
                     "metadata count %llu is impossible: the %zu bytes after the header hold at most %zu entries "
                     "(truncated or corrupt file)",
                     (unsigned long long)n_kv, left(c), left(c) / MIN_KV_BYTES);
    if (n_tensors > left(c) / MIN_TENSOR_BYTES || n_tensors > INT32_MAX)
        return failf(c, CIOT_E_FORMAT,
                     "tensor count %llu is impossible: the %zu bytes after the header hold at most %zu tensor infos "
                     "(truncated or corrupt file)",
                     (unsigned long long)n_tensors, left(c), left(c) / MIN_TENSOR_BYTES);
    for (uint64_t i = 0; i < n_kv; i++)
        if ((s = read_kv(c, g, (int)i)) != CIOT_OK) return s;
    if ((s = read_alignment(c, g)) != CIOT_OK) return s;
    for (uint64_t i = 0; i < n_tensors; i++)
        if ((s = read_tensor_info(c, g, (int)i)) != CIOT_OK) return s;
    g->data_offset = (c->pos + g->alignment - 1) / g->alignment * g->alignment; /* pos < size: no overflow */
    if (n_tensors && g->data_offset > c->size)
        return failf(c, CIOT_E_FORMAT, "the data section would start at byte %llu, past the end of the file (%zu bytes)",
                     (unsigned long long)g->data_offset, c->size);
    if ((s = place_tensors(c, g)) != CIOT_OK) return s;
    return check_unique(c, g);
}

ciot_status ciot_gguf_parse(const void *data, size_t size, ciot_gguf **out, char *why, size_t why_len) {
    *out = NULL;
    if (why && why_len) why[0] = 0;
    cursor c = {data, size, 0, why, why_len};
    if (!data && size) return failf(&c, CIOT_E_ARG, "no data");
    ciot_gguf *g = calloc(1, sizeof *g);
    if (!g) return failf(&c, CIOT_E_NOMEM, "out of memory");
    g->base = data, g->size = size;
    const ciot_status s = parse(&c, g);
    if (s != CIOT_OK) {
        ciot_gguf_close(g);
        return s;
    }
    *out = g;
    return CIOT_OK;
}

ciot_status ciot_gguf_open(const char *path, ciot_gguf **out, char *why, size_t why_len) {
    *out = NULL;
    cursor c = {NULL, 0, 0, why, why_len};
    struct stat st;
    const int fd = ciot_open_regular(path, &st);
    if (fd < 0 && errno) return failf(&c, CIOT_E_IO, "cannot open: %s", strerror(errno));
    if (fd < 0) return failf(&c, CIOT_E_IO, "%s, not a GGUF file", ciot_file_kind(st.st_mode));
    if (st.st_size == 0) {
        close(fd);
        return failf(&c, CIOT_E_FORMAT, "not a GGUF file: it is empty");
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return failf(&c, CIOT_E_IO, "cannot map %lld bytes: %s", (long long)st.st_size, strerror(errno));
    const ciot_status s = ciot_gguf_parse(m, (size_t)st.st_size, out, why, why_len);
    if (s != CIOT_OK) {
        munmap(m, (size_t)st.st_size);
        return s;
    }
    (*out)->mapped = 1;
    return CIOT_OK;
}

void ciot_gguf_close(ciot_gguf *g) {
    if (!g) return;
    for (int i = 0; i < g->n_kv; i++) free((void *)g->kv[i].key), free((void *)g->kv[i].str);
    for (int i = 0; i < g->n_tensors; i++) free((void *)g->tensors[i].name);
    free(g->kv), free(g->tensors);
    if (g->mapped) munmap((void *)g->base, g->size);
    free(g);
}

uint32_t ciot_gguf_version(const ciot_gguf *g) { return g->version; }
uint64_t ciot_gguf_alignment(const ciot_gguf *g) { return g->alignment; }
size_t ciot_gguf_size(const ciot_gguf *g) { return g->size; }
uint64_t ciot_gguf_data_offset(const ciot_gguf *g) { return g->data_offset; }
int ciot_gguf_kv_count(const ciot_gguf *g) { return g->n_kv; }
const ciot_gguf_kv *ciot_gguf_kv_at(const ciot_gguf *g, int i) { return i >= 0 && i < g->n_kv ? &g->kv[i] : NULL; }
int ciot_gguf_tensor_count(const ciot_gguf *g) { return g->n_tensors; }
const ciot_gguf_tensor *ciot_gguf_tensor_at(const ciot_gguf *g, int i) {
    return i >= 0 && i < g->n_tensors ? &g->tensors[i] : NULL;
}

const ciot_gguf_kv *ciot_gguf_find_kv(const ciot_gguf *g, const char *key) {
    for (int i = 0; i < g->n_kv; i++)
        if (!strcmp(g->kv[i].key, key)) return &g->kv[i];
    return NULL;
}

const ciot_gguf_tensor *ciot_gguf_find_tensor(const ciot_gguf *g, const char *name) {
    for (int i = 0; i < g->n_tensors; i++)
        if (!strcmp(g->tensors[i].name, name)) return &g->tensors[i];
    return NULL;
}

ciot_status ciot_gguf_get_str(const ciot_gguf *g, const char *key, const char **out) {
    const ciot_gguf_kv *kv = ciot_gguf_find_kv(g, key);
    if (!kv) return CIOT_E_UNKNOWN;
    if (kv->type != CIOT_GGUF_STRING) return CIOT_E_FORMAT;
    *out = kv->str;
    return CIOT_OK;
}

ciot_status ciot_gguf_get_int(const ciot_gguf *g, const char *key, int64_t *out) {
    const ciot_gguf_kv *kv = ciot_gguf_find_kv(g, key);
    if (!kv) return CIOT_E_UNKNOWN;
    switch (kv->type) {
    case CIOT_GGUF_U8: case CIOT_GGUF_I8: case CIOT_GGUF_U16: case CIOT_GGUF_I16: case CIOT_GGUF_U32:
    case CIOT_GGUF_I32: case CIOT_GGUF_I64:
        *out = kv->i;
        return CIOT_OK;
    case CIOT_GGUF_U64:
        if (kv->u > (uint64_t)INT64_MAX) return CIOT_E_FORMAT;
        *out = (int64_t)kv->u;
        return CIOT_OK;
    default: return CIOT_E_FORMAT;
    }
}

ciot_status ciot_gguf_get_arch_int(const ciot_gguf *g, const char *suffix, int64_t *out) {
    const char *arch;
    if (ciot_gguf_get_str(g, "general.architecture", &arch) != CIOT_OK) return CIOT_E_UNKNOWN;
    char key[256];
    if ((size_t)snprintf(key, sizeof key, "%s.%s", arch, suffix) >= sizeof key) return CIOT_E_UNKNOWN;
    return ciot_gguf_get_int(g, key, out);
}

int ciot_gguf_tensor_matrix(const ciot_gguf_tensor *t, ciot_format *f, int *rows, int *K) {
    if (!t->known || !ciot_ggml_type_format(t->type, f) || t->ne[2] != 1 || t->ne[3] != 1) return 0;
    if (t->ne[0] > INT32_MAX || t->ne[1] > INT32_MAX) return 0;
    *K = (int)t->ne[0], *rows = (int)t->ne[1];
    return 1;
}
