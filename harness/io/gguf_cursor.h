/* Inside the GGUF reader (not for callers: gguf.h is the interface): the handle, and the bounds-checked
 * cursor over the file image that the metadata reader (gguf.c) and the tensor table (gguf_tensors.c) share. */
#ifndef CIOT_GGUF_CURSOR_H
#define CIOT_GGUF_CURSOR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gguf.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the GGUF reader reads little-endian files by copying bytes: it needs a little-endian host"
#endif

enum { NAME_SHOWN = 64 };   /* bytes of a name quoted in a message */

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

typedef struct {
    const uint8_t *p;
    size_t size, pos;
    char *why;
    size_t why_len;
} cursor;

static inline ciot_status failf(cursor *c, ciot_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline ciot_status failf(cursor *c, ciot_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ciot_verror(s, c->why, c->why_len, fmt, ap);
    va_end(ap);
    return s;
}

static inline size_t left(const cursor *c) { return c->size - c->pos; }

/* n more bytes for `what`, or a truncation error naming it. */
static inline ciot_status need(cursor *c, uint64_t n, const char *what) {
    if (n > left(c))
        return failf(c, CIOT_E_FORMAT, "truncated: %s at byte %zu needs %llu bytes, the file has %zu left", what, c->pos,
                     (unsigned long long)n, left(c));
    return CIOT_OK;
}

static inline ciot_status rd(cursor *c, void *out, size_t n, const char *what) {
    ciot_status s = need(c, n, what);
    if (s != CIOT_OK) return s;
    memcpy(out, c->p + c->pos, n);
    c->pos += n;
    return CIOT_OK;
}
static inline ciot_status rd32(cursor *c, uint32_t *v, const char *what) { return rd(c, v, 4, what); }
static inline ciot_status rd64(cursor *c, uint64_t *v, const char *what) { return rd(c, v, 8, what); }

/* A string: u64 length, then that many bytes (left in place). */
static inline ciot_status rdstr(cursor *c, const uint8_t **s, uint64_t *len, const char *what) {
    ciot_status st = rd64(c, len, what);
    if (st != CIOT_OK) return st;
    if (*len > left(c))
        return failf(c, CIOT_E_FORMAT, "%s: string length %llu at byte %zu runs past the end of the file (%zu bytes left)",
                     what, (unsigned long long)*len, c->pos - 8, left(c));
    *s = c->p + c->pos;
    c->pos += (size_t)*len;
    return CIOT_OK;
}

static inline char *copy_str(const uint8_t *s, uint64_t len) {
    char *out = malloc((size_t)len + 1);
    if (!out) return NULL;
    memcpy(out, s, (size_t)len);
    out[len] = 0;
    return out;
}

/* A name for messages: at most NAME_SHOWN bytes, printable. */
static inline const char *shown(const char *name, char buf[NAME_SHOWN + 4]) {
    size_t n = 0;
    for (; name[n] && n < NAME_SHOWN; n++) buf[n] = name[n] >= 0x20 && name[n] < 0x7f ? name[n] : '?';
    strcpy(buf + n, name[n] ? "..." : "");
    return buf;
}

/* Room for one more element in a table that grows with what was read (doubling); 0 when out of memory. */
static inline int grow(void **table, int *cap, int n, size_t elem) {
    if (n < *cap) return 1;
    const int c = *cap ? 2 * *cap : 16;
    void *t = realloc(*table, elem * (size_t)c);
    if (!t) return 0;
    *table = t, *cap = c;
    return 1;
}

/* A key or tensor name: non-empty, no NUL byte; a copy in *out, and a zeroed new entry of the table. */
ciot_status ciot_gguf_read_name(cursor *c, const char *what, void **table, int *cap, int *n, size_t elem, void **entry,
                                const char **out);

/* The tensor table (gguf_tensors.c): tensor info idx read after the metadata; once the data section's start
 * is known, every tensor placed inside the file; then no two names alike and no two tensors' data overlapping. */
ciot_status ciot_gguf_read_tensor_info(cursor *c, ciot_gguf *g, int idx);
ciot_status ciot_gguf_place_tensors(cursor *c, ciot_gguf *g);
ciot_status ciot_gguf_check_tensors(cursor *c, ciot_gguf *g);

#endif
