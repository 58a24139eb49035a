/* A strict JSON validator for the tests and fuzz targets (RFC 8259): exactly one value with optional
 * whitespace around it, strings of valid UTF-8 with only the legal escapes and no raw control
 * characters, numbers as the grammar spells them, nesting at most JSON_CHECK_DEPTH deep. It is written
 * apart from harness/io/json.c so a bug in the writer is not repeated in its check. */
#ifndef CIOT_TEST_JSON_CHECK_H
#define CIOT_TEST_JSON_CHECK_H

#include <stddef.h>
#include <string.h>

enum { JSON_CHECK_DEPTH = 256 };

typedef struct {
    const unsigned char *p, *end;
} json_cursor;

static void json_skip_ws(json_cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int json_hex(unsigned char h) {
    return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
}

/* One UTF-8 character at c->p (Unicode 15, table 3-7 of well-formed byte sequences). */
static int json_utf8(json_cursor *c) {
    const unsigned char *s = c->p;
    size_t left = (size_t)(c->end - s);
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    if (s[0] < 0x80) n = 1;
    else if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2;
    else if (s[0] == 0xe0) n = 3, lo = 0xa0;
    else if ((s[0] >= 0xe1 && s[0] <= 0xec) || s[0] == 0xee || s[0] == 0xef) n = 3;
    else if (s[0] == 0xed) n = 3, hi = 0x9f;
    else if (s[0] == 0xf0) n = 4, lo = 0x90;
    else if (s[0] >= 0xf1 && s[0] <= 0xf3) n = 4;
    else if (s[0] == 0xf4) n = 4, hi = 0x8f;
    else return 0;
    if ((size_t)n > left) return 0;
    if (n > 1 && (s[1] < lo || s[1] > hi)) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    c->p += n;
    return 1;
}

static int json_string(json_cursor *c) {
    if (c->p >= c->end || *c->p != '"') return 0;
    c->p++;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p < 0x20) return 0;
        if (*c->p == '\\') {
            if (++c->p >= c->end) return 0;
            if (*c->p == 'u') {
                if (c->end - c->p < 5) return 0;
                for (int i = 1; i <= 4; i++)
                    if (!json_hex(c->p[i])) return 0;
                c->p += 5;
            } else if (strchr("\"\\/bfnrt", *c->p) && *c->p) {
                c->p++;
            } else {
                return 0;
            }
        } else if (!json_utf8(c)) {
            return 0;
        }
    }
    if (c->p >= c->end) return 0;
    c->p++;
    return 1;
}

static int json_digits(json_cursor *c) {
    const unsigned char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') c->p++;
    return c->p > start;
}

static int json_number(json_cursor *c) {
    if (c->p < c->end && *c->p == '-') c->p++;
    if (c->p < c->end && *c->p == '0') c->p++;
    else if (!json_digits(c)) return 0;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!json_digits(c)) return 0;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-')) c->p++;
        if (!json_digits(c)) return 0;
    }
    return 1;
}

static int json_literal(json_cursor *c, const char *word) {
    const size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n)) return 0;
    c->p += n;
    return 1;
}

static int json_value(json_cursor *c, int depth) {
    json_skip_ws(c);
    if (c->p >= c->end) return 0;
    const unsigned char open = *c->p;
    if (open == '{' || open == '[') {
        if (depth >= JSON_CHECK_DEPTH) return 0;
        const unsigned char close = open == '{' ? '}' : ']';
        c->p++;
        json_skip_ws(c);
        if (c->p < c->end && *c->p == close) return c->p++, 1;
        for (;;) {
            if (open == '{') {
                json_skip_ws(c);
                if (!json_string(c)) return 0;
                json_skip_ws(c);
                if (c->p >= c->end || *c->p++ != ':') return 0;
            }
            if (!json_value(c, depth + 1)) return 0;
            json_skip_ws(c);
            if (c->p >= c->end) return 0;
            if (*c->p == close) return c->p++, 1;
            if (*c->p++ != ',') return 0;
        }
    }
    if (open == '"') return json_string(c);
    if (open == 't') return json_literal(c, "true");
    if (open == 'f') return json_literal(c, "false");
    if (open == 'n') return json_literal(c, "null");
    return json_number(c);
}

/* 1 when text[0..n) is one valid JSON document. */
static inline int json_valid(const char *text, size_t n) {
    json_cursor c = {(const unsigned char *)text, (const unsigned char *)text + n};
    if (!json_value(&c, 0)) return 0;
    json_skip_ws(&c);
    return c.p == c.end;
}

#endif
