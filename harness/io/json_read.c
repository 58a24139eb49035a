/* The JSON reader (json_read.h): recursive descent over the whole text, depth bounded. */
#include "json_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t at, len;
    char *why;
    size_t why_len;
    int failed;
} reader;

enum { MAX_DEPTH = 32 };

static void fail(reader *r, const char *what) {
    if (!r->failed && r->why) snprintf(r->why, r->why_len, "byte %zu: %s", r->at, what);
    r->failed = 1;
}

static void blank(reader *r) {
    while (r->at < r->len && strchr(" \t\r\n", r->s[r->at])) r->at++;
}

static int eat(reader *r, char c) {
    blank(r);
    if (r->at < r->len && r->s[r->at] == c) return r->at++, 1;
    return 0;
}

static char *string(reader *r) {
    if (!eat(r, '"')) return fail(r, "a string was expected"), NULL;
    char *out = malloc(r->len - r->at + 1);
    size_t n = 0;
    while (out && r->at < r->len && r->s[r->at] != '"') {
        char c = r->s[r->at++];
        if (c == '\\' && r->at < r->len) {
            const char e = r->s[r->at++];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            if (!strchr("\"\\/nt", e)) fail(r, "an escape other than \\\" \\\\ \\/ \\n \\t");
        }
        out[n++] = c;
    }
    if (!out) fail(r, "out of memory");
    else if (r->at >= r->len) fail(r, "the string does not end");
    else out[n] = 0, r->at++;
    if (r->failed) free(out), out = NULL;
    return out;
}

static void value(reader *r, ciot_jv *v, int depth);

/* Items of an array or members of an object up to `close`. */
static void items(reader *r, ciot_jv *v, char close, int depth) {
    if (eat(r, close)) return;
    do {
        ciot_jv *grown = realloc(v->items, (size_t)(v->n + 1) * sizeof *grown);
        if (!grown) return fail(r, "out of memory");
        v->items = grown;
        ciot_jv *it = memset(&v->items[v->n++], 0, sizeof *it);
        if (close == '}') {
            if (!(it->key = string(r))) return;
            if (!eat(r, ':')) return fail(r, "':' was expected");
        }
        value(r, it, depth + 1);
    } while (!r->failed && eat(r, ','));
    if (!r->failed && !eat(r, close)) fail(r, close == '}' ? "',' or '}' was expected" : "',' or ']' was expected");
}

static void value(reader *r, ciot_jv *v, int depth) {
    blank(r);
    if (depth > MAX_DEPTH) return fail(r, "nested too deep");
    if (r->at >= r->len) return fail(r, "a value was expected");
    const char c = r->s[r->at];
    static const struct { const char *word; ciot_jv_type type; double number; } words[] = {
        {"true", CIOT_JV_BOOL, 1}, {"false", CIOT_JV_BOOL, 0}, {"null", CIOT_JV_NULL, 0}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strncmp(r->s + r->at, words[i].word, strlen(words[i].word)) && r->len - r->at >= strlen(words[i].word)) {
            r->at += strlen(words[i].word), v->type = words[i].type, v->number = words[i].number;
            return;
        }
    if (c == '"') v->type = CIOT_JV_STRING, v->string = string(r);
    else if (c == '[') r->at++, v->type = CIOT_JV_ARRAY, items(r, v, ']', depth);
    else if (c == '{') r->at++, v->type = CIOT_JV_OBJECT, items(r, v, '}', depth);
    else {
        char num[64];
        size_t n = 0;
        while (r->at < r->len && n + 1 < sizeof num && strchr("+-0123456789.eE", r->s[r->at])) num[n++] = r->s[r->at++];
        num[n] = 0;
        char *end;
        v->type = CIOT_JV_NUMBER, v->number = strtod(num, &end);
        if (!n || *end) fail(r, "a value was expected");
    }
}

static void release(ciot_jv *v) {
    for (int i = 0; i < v->n; i++) release(&v->items[i]);
    free(v->items), free(v->string), free(v->key);
}

void ciot_jv_free(ciot_jv *v) {
    if (v) release(v), free(v);
}

ciot_jv *ciot_jv_parse(const char *text, size_t len, char *why, size_t why_len) {
    reader r = {text, 0, len, why, why_len, 0};
    ciot_jv *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    value(&r, v, 0);
    blank(&r);
    if (!r.failed && r.at != r.len) fail(&r, "text after the value");
    if (r.failed) ciot_jv_free(v), v = NULL;
    return v;
}

const ciot_jv *ciot_jv_get(const ciot_jv *v, const char *key) {
    for (int i = 0; v && v->type == CIOT_JV_OBJECT && i < v->n; i++)
        if (!strcmp(v->items[i].key, key)) return &v->items[i];
    return NULL;
}

const char *ciot_jv_string(const ciot_jv *v, const char *key) {
    const ciot_jv *m = ciot_jv_get(v, key);
    return m && m->type == CIOT_JV_STRING ? m->string : NULL;
}

double ciot_jv_number(const ciot_jv *v, const char *key, double def) {
    const ciot_jv *m = ciot_jv_get(v, key);
    return m && (m->type == CIOT_JV_NUMBER || m->type == CIOT_JV_BOOL) ? m->number : def;
}
