/* Streaming JSON writer: tracks nesting to place commas and catch misuse, indents two spaces, and
 * writes files through a temporary name so a reader never sees half a document. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_DEPTH = 32 };

struct ciot_json {
    FILE *f;
    int owns_file;
    char *path, *tmp_path;          /* set by ciot_json_open */
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

static ciot_json *new_writer(FILE *f, int owns) {
    ciot_json *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->f = f;
    j->owns_file = owns;
    return j;
}

ciot_status ciot_json_open(const char *path, ciot_json **out) {
    if (!path || !out) return CIOT_E_ARG;
    *out = NULL;
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n), *copy = strdup(path);
    if (!tmp || !copy) {
        free(tmp);
        free(copy);
        return CIOT_E_NOMEM;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    ciot_json *j = f ? new_writer(f, 1) : NULL;
    if (!j) {
        if (f) {
            fclose(f);
            remove(tmp);
        }
        free(tmp);
        free(copy);
        return f ? CIOT_E_NOMEM : CIOT_E_IO;
    }
    j->path = copy;
    j->tmp_path = tmp;
    *out = j;
    return CIOT_OK;
}

ciot_status ciot_json_stream(FILE *f, ciot_json **out) {
    if (!f || !out) return CIOT_E_ARG;
    *out = new_writer(f, 0);
    return *out ? CIOT_OK : CIOT_E_NOMEM;
}

static void free_writer(ciot_json *j) {
    free(j->path);
    free(j->tmp_path);
    free(j);
}

ciot_status ciot_json_close(ciot_json *j) {
    if (!j) return CIOT_E_ARG;
    if (j->depth != 0 || j->have_key || !j->done) fail(j, CIOT_E_ARG);
    if (fflush(j->f) != 0 || ferror(j->f)) fail(j, CIOT_E_IO);
    if (j->owns_file) {
        if (fclose(j->f) != 0) fail(j, CIOT_E_IO);
        if (j->status == CIOT_OK && rename(j->tmp_path, j->path) != 0) fail(j, CIOT_E_IO);
        if (j->status != CIOT_OK) remove(j->tmp_path);
    }
    ciot_status s = j->status;
    free_writer(j);
    return s;
}

void ciot_json_discard(ciot_json *j) {
    if (!j) return;
    if (j->owns_file) {
        fclose(j->f);
        remove(j->tmp_path);
    }
    free_writer(j);
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

static void put_escaped(ciot_json *j, const char *s) {
    char buf[8];
    put(j, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"': put(j, "\\\""); break;
        case '\\': put(j, "\\\\"); break;
        case '\n': put(j, "\\n"); break;
        case '\r': put(j, "\\r"); break;
        case '\t': put(j, "\\t"); break;
        case '\b': put(j, "\\b"); break;
        case '\f': put(j, "\\f"); break;
        default:
            if (*c < 0x20) {
                snprintf(buf, sizeof buf, "\\u%04x", *c);
            } else { /* bytes from 0x80 up pass through: strings are UTF-8 */
                buf[0] = (char)*c;
                buf[1] = 0;
            }
            put(j, buf);
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
