/* Strict parsers for command-line values: the whole string must parse, and overflow is an error. */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

ciot_status ciot_parse_size(const char *s, size_t *out) {
    if (!s || !isdigit((unsigned char)*s)) return CIOT_E_ARG;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return CIOT_E_ARG;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (!strcasecmp(end, "iB") && shift) end += 2;
    else if (!strcasecmp(end, "B")) end += 1;
    if (*end) return CIOT_E_ARG;
    if (v > (SIZE_MAX >> shift)) return CIOT_E_ARG;
    *out = (size_t)(v << shift);
    return CIOT_OK;
}

/* Parses one number starting at s; *end gets the first character after it. */
static ciot_status parse_prefix(const char *s, int lo, int hi, int *out, const char **end) {
    if (!isdigit((unsigned char)*s)) return CIOT_E_ARG;
    errno = 0;
    char *e;
    long v = strtol(s, &e, 10);
    if (errno || v < lo || v > hi) return CIOT_E_ARG;
    *out = (int)v;
    *end = e;
    return CIOT_OK;
}

ciot_status ciot_parse_int(const char *s, int lo, int hi, int *out) {
    const char *end;
    if (!s || parse_prefix(s, lo, hi, out, &end) != CIOT_OK || *end) return CIOT_E_ARG;
    return CIOT_OK;
}

ciot_status ciot_parse_int_list(const char *s, int lo, int hi, int *vals, int cap, int *n) {
    if (!s || !*s) return CIOT_E_ARG;
    *n = 0;
    const char *p = s;
    for (;;) {
        int a, b;
        if (parse_prefix(p, lo, hi, &a, &p) != CIOT_OK) return CIOT_E_ARG;
        b = a;
        if (*p == '-' && (parse_prefix(p + 1, lo, hi, &b, &p) != CIOT_OK || b < a)) return CIOT_E_ARG;
        if (!vals) { /* count only: no cap */
            const long long total = (long long)*n + b - a + 1;
            *n = total > INT_MAX ? INT_MAX : (int)total;
        }
        for (long long v = a; vals && v <= b; v++) {   /* long long: b may be INT_MAX */
            if (*n == cap) return CIOT_E_ARG;
            vals[(*n)++] = (int)v;
        }
        if (*p == 0) return CIOT_OK;
        if (*p++ != ',') return CIOT_E_ARG;
    }
}

ciot_status ciot_parse_double(const char *s, double *out) {
    if (!s || !*s || isspace((unsigned char)*s)) return CIOT_E_ARG;
    errno = 0;
    char *end;
    const double v = strtod(s, &end);
    /* strtod also reads "nan", "inf" and hex floats; only plain finite decimals are numbers here */
    for (const char *c = s; c < end; c++)
        if (!strchr("0123456789+-.eE", *c)) return CIOT_E_ARG;
    if (end == s || *end || errno == ERANGE || !isfinite(v)) return CIOT_E_ARG;
    *out = v;
    return CIOT_OK;
}

int ciot_list_has_empty_item(const char *s) {
    const size_t n = strlen(s);
    return n == 0 || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,") != NULL;
}

ciot_status ciot_parse_shape(const char *s, int lo, int hi, int *rows, int *K) {
    const char *p;
    int r, k;
    if (!s || parse_prefix(s, lo, hi, &r, &p) != CIOT_OK || (*p != 'x' && *p != 'X')) return CIOT_E_ARG;
    if (parse_prefix(p + 1, lo, hi, &k, &p) != CIOT_OK || *p) return CIOT_E_ARG;
    *rows = r, *K = k;
    return CIOT_OK;
}

const char *ciot_format_bytes(size_t bytes, char *buf, size_t len) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0) snprintf(buf, len, "%zu B", bytes);
    else snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}
