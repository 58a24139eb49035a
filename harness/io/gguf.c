/* The GGUF reader: the file mapped, the header and the typed metadata read, and the handle's accessors; the
 * tensor table is gguf_tensors.c, the bounds-checked cursor both walk is gguf_cursor.h. Every length is
 * compared with the bytes left before it is used, products and sums go through overflow-checked helpers,
 * tables grow with what was actually read (never with a count the file claims), and the first problem ends
 * the parse with one line saying what and where. */
#include "gguf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "os.h"
#include "gguf_cursor.h"

enum {
    DEFAULT_ALIGNMENT = 32,
    MAX_ALIGNMENT = 1 << 30,
    MIN_KV_BYTES = 8 + 1 + 4 + 1,       /* key length, a one-byte key, value type, smallest value */
    MIN_TENSOR_BYTES = 8 + 1 + 4 + 8 + 4 + 8, /* name length, name, n_dims, one dim, type, offset */
};

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
ciot_status ciot_gguf_read_name(cursor *c, const char *what, void **table, int *cap, int *n, size_t elem, void **entry,
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
    ciot_status s = ciot_gguf_read_name(c, what, (void **)&g->kv, &g->cap_kv, &g->n_kv, sizeof *g->kv, &entry, &key);
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

static int by_key(const void *a, const void *b) {
    return strcmp((*(const ciot_gguf_kv *const *)a)->key, (*(const ciot_gguf_kv *const *)b)->key);
}

/* Duplicate keys (a sorted copy of pointers). */
static ciot_status check_keys(cursor *c, ciot_gguf *g) {
    const ciot_gguf_kv **v = malloc(sizeof *v * (size_t)(g->n_kv ? g->n_kv : 1));
    if (!v) return failf(c, CIOT_E_NOMEM, "out of memory checking names");
    char nb[NAME_SHOWN + 4];
    ciot_status s = CIOT_OK;
    for (int i = 0; i < g->n_kv; i++) v[i] = &g->kv[i];
    qsort(v, (size_t)g->n_kv, sizeof *v, by_key);
    for (int i = 1; i < g->n_kv && s == CIOT_OK; i++)
        if (!by_key(&v[i - 1], &v[i])) s = failf(c, CIOT_E_FORMAT, "duplicate metadata key '%s'", shown(v[i]->key, nb));
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
        if ((s = ciot_gguf_read_tensor_info(c, g, (int)i)) != CIOT_OK) return s;
    g->data_offset = (c->pos + g->alignment - 1) / g->alignment * g->alignment; /* pos < size: no overflow */
    if (n_tensors && g->data_offset > c->size)
        return failf(c, CIOT_E_FORMAT, "the data section would start at byte %llu, past the end of the file (%zu bytes)",
                     (unsigned long long)g->data_offset, c->size);
    if ((s = ciot_gguf_place_tensors(c, g)) != CIOT_OK || (s = check_keys(c, g)) != CIOT_OK) return s;
    return ciot_gguf_check_tensors(c, g);
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
    ciot_os_file_info st;
    const int fd = ciot_open_regular(path, &st);
    if (fd < 0 && errno) return failf(&c, CIOT_E_IO, "cannot open: %s", strerror(errno));
    if (fd < 0) return failf(&c, CIOT_E_IO, "%s, not a GGUF file", ciot_file_kind(st.kind));
    if (st.size == 0) {
        ciot_os_close(fd);
        return failf(&c, CIOT_E_FORMAT, "not a GGUF file: it is empty");
    }
    const void *m = ciot_os_map_read(fd, (size_t)st.size);
    const int map_errno = errno;
    ciot_os_close(fd);
    if (!m) return failf(&c, CIOT_E_IO, "cannot map %lld bytes: %s", st.size, strerror(map_errno));
    const ciot_status s = ciot_gguf_parse(m, (size_t)st.size, out, why, why_len);
    if (s != CIOT_OK) {
        ciot_os_unmap(m, (size_t)st.size);
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
    if (g->mapped) ciot_os_unmap(g->base, g->size);
    free(g);
}

uint32_t ciot_gguf_version(const ciot_gguf *g) { return g->version; }
uint64_t ciot_gguf_alignment(const ciot_gguf *g) { return g->alignment; }
size_t ciot_gguf_size(const ciot_gguf *g) { return g->size; }
uint64_t ciot_gguf_data_offset(const ciot_gguf *g) { return g->data_offset; }
int ciot_gguf_kv_count(const ciot_gguf *g) { return g->n_kv; }
const ciot_gguf_kv *ciot_gguf_kv_at(const ciot_gguf *g, int i) { return i >= 0 && i < g->n_kv ? &g->kv[i] : NULL; }

const ciot_gguf_kv *ciot_gguf_find_kv(const ciot_gguf *g, const char *key) {
    for (int i = 0; i < g->n_kv; i++)
        if (!strcmp(g->kv[i].key, key)) return &g->kv[i];
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
