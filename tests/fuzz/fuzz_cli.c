/* Fuzz target: the number, size, list, shape and decimal parsers of the command line (harness/cmd/cli.c)
 * against reference parsers written here from their contracts in cli.h: the same strings accepted, the same values,
 * whatever the bytes (overflow, signs, spaces, junk after the number, NaN and Inf spelled out).
 * ciot-fuzz-seconds: 8 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>
#include "cli.h"
#include "fuzz.h"

/* Digits at *s into *v (any count, no sign); 0 when there are none or the value passes max. */
static int ref_digits(const char **s, unsigned long long max, unsigned long long *v) {
    if (!isdigit((unsigned char)**s)) return 0;
    *v = 0;
    for (; isdigit((unsigned char)**s); (*s)++)
        if (__builtin_mul_overflow(*v, 10, v) || __builtin_add_overflow(*v, (unsigned)(**s - '0'), v) || *v > max)
            return 0;
    return 1;
}

/* "4096", "64K", "1GiB", "5b": digits, an optional K/M/G/T, then optional B (or iB after a unit). */
static int ref_size(const char *s, size_t *out) {
    unsigned long long v;
    if (!ref_digits(&s, ~0ULL, &v)) return 0;
    int shift = 0;
    const char *units = "KMGT", *u = *s ? strchr(units, toupper((unsigned char)*s)) : NULL;
    if (u) shift = 10 * (int)(u - units + 1), s++;
    if (shift && !strcasecmp(s, "iB")) s += 2;
    else if (!strcasecmp(s, "B")) s += 1;
    if (*s || v > (SIZE_MAX >> shift)) return 0;
    *out = (size_t)(v << shift);
    return 1;
}

static int ref_int(const char **s, int lo, int hi, int *out) {
    unsigned long long v;
    if (!ref_digits(s, (unsigned long long)INT64_MAX, &v) || (long long)v < lo || (long long)v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* "RxK": two whole numbers in [lo, hi] joined by x or X, nothing else. */
static int ref_shape(const char *s, int lo, int hi, int *r, int *k) {
    if (!ref_int(&s, lo, hi, r) || (*s != 'x' && *s != 'X')) return 0;
    s++;
    return ref_int(&s, lo, hi, k) && !*s;
}

/* A finite decimal: [+-]digits[.digits][e[+-]digits], with digits on at least one side of the point,
 * nothing before or after; the value strtod gives must be finite. */
static int ref_double(const char *s, double *out) {
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    int digits = 0;
    while (isdigit((unsigned char)*p)) p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, digits++;
    }
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return 0;
        while (isdigit((unsigned char)*p)) p++;
    }
    if (*p) return 0;
    errno = 0;
    *out = strtod(s, NULL);
    return errno != ERANGE && isfinite(*out);
}

static int ref_list(const char *s, int lo, int hi, int *vals, int cap, int *n) {
    *n = 0;
    for (;;) {
        int a, b;
        if (!ref_int(&s, lo, hi, &a)) return 0;
        b = a;
        if (*s == '-' && (s++, !ref_int(&s, lo, hi, &b) || b < a)) return 0;
        for (long long v = a; v <= b; v++) {
            if (*n == cap) return 0;
            vals[(*n)++] = (int)v;
        }
        if (!*s) return 1;
        if (*s++ != ',') return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    const uint8_t which = fuzz_byte(&in);
    int32_t lo, hi;
    fuzz_bytes(&in, &lo, sizeof lo);
    fuzz_bytes(&in, &hi, sizeof hi);
    const int cap = 1 + fuzz_byte(&in);
    char *s = malloc(in.left + 1);
    memcpy(s, in.p, in.left);
    s[in.left] = 0;
    if (which % 5 == 3) {
        int r = 0, k = 0, wr = 0, wk = 0;
        const int ok = ciot_parse_shape(s, lo, hi, &r, &k) == CIOT_OK, ref = ref_shape(s, lo, hi, &wr, &wk);
        FUZZ_ASSERT(ok == ref && (!ok || (r == wr && k == wk)), "shape '%s' in [%d, %d]: %d %dx%d, reference %d %dx%d", s,
                    lo, hi, ok, r, k, ref, wr, wk);
    } else if (which % 5 == 4) {
        double got = 7, want = 0;
        const int ok = ciot_parse_double(s, &got) == CIOT_OK, ref = ref_double(s, &want);
        FUZZ_ASSERT(ok == ref && (!ok || got == want), "double '%s': %d %g, reference %d %g", s, ok, got, ref, want);
        FUZZ_ASSERT(!ok || isfinite(got), "double '%s' accepted as %g", s, got);
    } else if (which % 3 == 0) {
        size_t got = 7, want = 0;
        const int ok = ciot_parse_size(s, &got) == CIOT_OK, ref = ref_size(s, &want);
        FUZZ_ASSERT(ok == ref && (!ok || got == want), "size '%s': %d %zu, reference %d %zu", s, ok, got, ref, want);
        char buf[32];
        if (ok) FUZZ_ASSERT(ciot_format_bytes(got, buf, sizeof buf)[0], "format %zu", got);
    } else if (which % 3 == 1) {
        int got = 0, want = 0;
        const char *p = s;
        const int ok = ciot_parse_int(s, lo, hi, &got) == CIOT_OK, ref = ref_int(&p, lo, hi, &want) && !*p;
        FUZZ_ASSERT(ok == ref && (!ok || got == want), "int '%s' in [%d, %d]: %d %d, reference %d %d", s, lo, hi, ok,
                    got, ref, want);
    } else {
        int *got = calloc((size_t)cap, sizeof *got), *want = calloc((size_t)cap, sizeof *want), n = -1, m = -1;
        const int ok = ciot_parse_int_list(s, lo, hi, got, cap, &n) == CIOT_OK,
                  ref = ref_list(s, lo, hi, want, cap, &m);
        FUZZ_ASSERT(ok == ref, "list '%s' in [%d, %d], cap %d: %d, reference %d", s, lo, hi, cap, ok, ref);
        if (ok) {
            FUZZ_ASSERT(n == m && n >= 1 && n <= cap && !memcmp(got, want, (size_t)n * sizeof *got),
                        "list '%s': %d values, reference %d", s, n, m);
            for (int i = 0; i < n; i++) FUZZ_ASSERT(got[i] >= lo && got[i] <= hi, "value %d out of range", got[i]);
        }
        free(got), free(want);
    }
    free(s);
    return 0;
}
