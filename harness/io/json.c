/* Streaming JSON writer: tracks nesting to place commas and catch misuse, indents two spaces, writes
 * only valid UTF-8, and writes files through ciot_out (output.h) so a reader never sees half a document. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"

enum { MAX_DEPTH = 32 };

struct ciot_json {
    FILE *f;
    ciot_out *out;                  /* set by ciot_json_create: f is its stream */
    char *path;                     /* for messages */
    ciot_status status;
    int depth;
    char is_object[MAX_DEPTH];
    int items[MAX_DEPTH];           /* values written at each level */
    int have_key;                   /* a key was written and awaits its value */
    int done;                       /* the top-level value is complete */
};

static void fail(ciot_json *j, ciot_status s) {
    if (j->status == CIOT_OK) j->status = s;
}

static void put(ciot_json *j, const char *s) {
    if (j->status == CIOT_OK && fputs(s, j->f) == EOF) fail(j, CIOT_E_IO);
}

static void newline(ciot_json *j) {
    put(j, "\n");
    for (int i = 0; i < j->depth; i++) put(j, "  ");
}

/* Everything a value needs written before it: a comma, a newline and indentation, or nothing after a key. */
static int before_value(ciot_json *j) {
    if (j->status != CIOT_OK) return 0;
    if (j->depth == 0) {
        if (j->done) fail(j, CIOT_E_ARG); /* a second top-level value */
        return j->status == CIOT_OK;
    }
    if (j->is_object[j->depth - 1]) {
        if (!j->have_key) {
            fail(j, CIOT_E_ARG);
            return 0;
        }
        j->have_key = 0;
        return 1;
    }
    if (j->items[j->depth - 1]++ > 0) put(j, ",");
    newline(j);
    return 1;
}

static void after_value(ciot_json *j) {
    if (j->depth == 0) {
        j->done = 1;
        put(j, "\n");
    }
}

static ciot_json *new_writer(FILE *f) {
    ciot_json *j = calloc(1, sizeof *j);
    if (j) j->f = f;
    return j;
}

ciot_status ciot_json_create(const char *path, ciot_json **out, char *why, size_t why_len) {
    if (!path || !out) return CIOT_E_ARG;
    *out = NULL;
    ciot_out *o;
    ciot_status st = ciot_out_open(path, &o, why, why_len);
    if (st != CIOT_OK) return st;
    ciot_json *j = new_writer(ciot_out_stream(o));
    if (j && !(j->path = strdup(path))) {
        free(j);
        j = NULL;
    }
    if (!j) {
        ciot_out_abort(o);
        return CIOT_E_NOMEM;
    }
    j->out = o;
    *out = j;
    return CIOT_OK;
}

ciot_status ciot_json_open(const char *path, ciot_json **out) {
    ciot_status st = ciot_json_create(path, out, NULL, 0);
    return st == CIOT_E_ARG && path && out ? CIOT_E_IO : st;
}

ciot_status ciot_json_stream(FILE *f, ciot_json **out) {
    if (!f || !out) return CIOT_E_ARG;
    *out = new_writer(f);
    return *out ? CIOT_OK : CIOT_E_NOMEM;
}

ciot_status ciot_json_commit(ciot_json *j, char *why, size_t why_len) {
    if (!j) return CIOT_E_ARG;
    if (j->depth != 0 || j->have_key || !j->done) fail(j, CIOT_E_ARG);
    if (j->status == CIOT_OK && !j->out && (fflush(j->f) != 0 || ferror(j->f))) fail(j, CIOT_E_IO);
    if (j->status != CIOT_OK) {
        if (why && why_len)
            ciot_error(j->status, why, why_len, "%s: %s", j->path ? j->path : "JSON stream",
                     j->status == CIOT_E_ARG ? "the document was not built whole (a bug in its writer)"
                                             : "writing failed");
        ciot_out_abort(j->out);
    } else if (j->out) {
        j->status = ciot_out_commit(j->out, why, why_len);
    }
    ciot_status s = j->status;
    free(j->path);
    free(j);
    return s;
}

ciot_status ciot_json_close(ciot_json *j) { return ciot_json_commit(j, NULL, 0); }

void ciot_json_discard(ciot_json *j) {
    if (!j) return;
    ciot_out_abort(j->out);
    free(j->path);
    free(j);
}

ciot_status ciot_json_status(const ciot_json *j) { return j->status; }

static void begin(ciot_json *j, int object) {
    if (!before_value(j)) return;
    if (j->depth == MAX_DEPTH) {
        fail(j, CIOT_E_ARG);
        return;
    }
    put(j, object ? "{" : "[");
    j->is_object[j->depth] = (char)object;
    j->items[j->depth] = 0;
    j->depth++;
}

static void end(ciot_json *j, int object) {
    if (j->status != CIOT_OK) return;
    if (j->depth == 0 || j->is_object[j->depth - 1] != object || j->have_key) {
        fail(j, CIOT_E_ARG);
        return;
    }
    int had_items = j->items[j->depth - 1] > 0;
    j->depth--;
    if (had_items) newline(j);
    put(j, object ? "}" : "]");
    after_value(j);
}

void ciot_json_begin_object(ciot_json *j) { begin(j, 1); }
void ciot_json_end_object(ciot_json *j) { end(j, 1); }
void ciot_json_begin_array(ciot_json *j) { begin(j, 0); }
void ciot_json_end_array(ciot_json *j) { end(j, 0); }

static void put_n(ciot_json *j, const void *s, size_t n) {
    if (j->status == CIOT_OK && n && fwrite(s, 1, n, j->f) != n) fail(j, CIOT_E_IO);
}

/* Bytes in the UTF-8 sequence starting at s (1 to 4), or 0 when they are not a valid one: a stray
 * continuation byte, an overlong form, a surrogate, a code point past U+10FFFF, or a sequence cut short
 * (by the terminating NUL, which is never a continuation byte, so nothing past it is read). */
static int utf8_len(const unsigned char *s) {
    const unsigned c = s[0];
    unsigned lo = 0x80, hi = 0xbf;
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c == 0xe0) n = 3, lo = 0xa0;
    else if (c == 0xed) n = 3, hi = 0x9f;
    else if (c >= 0xe1 && c <= 0xef) n = 3;
    else if (c == 0xf0) n = 4, lo = 0x90;
    else if (c == 0xf4) n = 4, hi = 0x8f;
    else if (c >= 0xf1 && c <= 0xf3) n = 4;
    else return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, each byte that is not part of
 * valid UTF-8 (text from /proc, host names, paths) replaced by U+FFFD. */
static void put_escaped(ciot_json *j, const char *str) {
    static const char replacement[] = "\xef\xbf\xbd";
    char buf[8];
    put(j, "\"");
    for (const unsigned char *c = (const unsigned char *)str; *c;) {
        const char *esc = *c == '"' ? "\\\"" : *c == '\\' ? "\\\\" : *c == '\n' ? "\\n" : *c == '\r' ? "\\r"
                        : *c == '\t' ? "\\t" : *c == '\b' ? "\\b" : *c == '\f' ? "\\f" : NULL;
        if (esc) {
            put(j, esc);
            c++;
        } else if (*c < 0x20) {
            snprintf(buf, sizeof buf, "\\u%04x", *c);
            put(j, buf);
            c++;
        } else {
            const int n = utf8_len(c);
            if (n) put_n(j, c, (size_t)n);
            else put_n(j, replacement, 3);
            c += n ? n : 1;
        }
    }
    put(j, "\"");
}

void ciot_json_key(ciot_json *j, const char *key) {
    if (j->status != CIOT_OK) return;
    if (!key || j->depth == 0 || !j->is_object[j->depth - 1] || j->have_key) {
        fail(j, CIOT_E_ARG);
        return;
    }
    if (j->items[j->depth - 1]++ > 0) put(j, ",");
    newline(j);
    put_escaped(j, key);
    put(j, ": ");
    j->have_key = 1;
}

static void scalar(ciot_json *j, const char *text) {
    if (!before_value(j)) return;
    put(j, text);
    after_value(j);
}

void ciot_json_string(ciot_json *j, const char *s) {
    if (!s) {
        ciot_json_null(j);
        return;
    }
    if (!before_value(j)) return;
    put_escaped(j, s);
    after_value(j);
}

void ciot_json_number(ciot_json *j, double v) {
    char buf[40];
    if (!isfinite(v)) {
        ciot_json_null(j); /* JSON has no NaN or infinity */
        return;
    }
    snprintf(buf, sizeof buf, "%.17g", v);
    scalar(j, buf);
}

void ciot_json_fixed(ciot_json *j, double v, int decimals) {
    char buf[64];
    if (!isfinite(v) || fabs(v) >= 1e30) {
        ciot_json_number(j, v);
        return;
    }
    if (decimals < 0) decimals = 0;
    if (decimals > 17) decimals = 17;
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    scalar(j, buf);
}

void ciot_json_int(ciot_json *j, long long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    scalar(j, buf);
}

void ciot_json_bool(ciot_json *j, int v) { scalar(j, v ? "true" : "false"); }
void ciot_json_null(ciot_json *j) { scalar(j, "null"); }

void ciot_json_kv_string(ciot_json *j, const char *key, const char *s) {
    ciot_json_key(j, key);
    ciot_json_string(j, s);
}
void ciot_json_kv_number(ciot_json *j, const char *key, double v) {
    ciot_json_key(j, key);
    ciot_json_number(j, v);
}
void ciot_json_kv_fixed(ciot_json *j, const char *key, double v, int decimals) {
    ciot_json_key(j, key);
    ciot_json_fixed(j, v, decimals);
}
void ciot_json_kv_int(ciot_json *j, const char *key, long long v) {
    ciot_json_key(j, key);
    ciot_json_int(j, v);
}
void ciot_json_kv_bool(ciot_json *j, const char *key, int v) {
    ciot_json_key(j, key);
    ciot_json_bool(j, v);
}
