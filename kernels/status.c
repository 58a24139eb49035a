/* Human-readable names of status values, and one-line error messages (control characters escaped). */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ciot_status_str(ciot_status s) {
    switch (s) {
    case CIOT_OK: return "ok";
    case CIOT_E_SHAPE: return "shape not supported";
    case CIOT_E_ARG: return "invalid argument";
    case CIOT_E_NOMEM: return "out of memory";
    case CIOT_E_IO: return "i/o error";
    case CIOT_E_CPU: return "CPU lacks a required feature";
    case CIOT_E_UNKNOWN: return "unknown name";
    case CIOT_E_SYS: return "operating system refused";
    case CIOT_E_FORMAT: return "malformed data";
    }
    return "unknown status";
}

static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

const char *ciot_quote(const char *s, char *buf, size_t len) {
    if (!len) return buf;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        char esc[5] = {(char)*p, 0};
        if (*p == '\n' || *p == '\t' || *p == '\r') snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
        else if (is_control(*p)) snprintf(esc, sizeof esc, "\\x%02x", *p);
        const size_t e = strlen(esc);
        if (n + e >= len) break;
        memcpy(buf + n, esc, e);
        n += e;
    }
    buf[n] = 0;
    return buf;
}

static int has_control(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (is_control(*p)) return 1;
    return 0;
}

ciot_status ciot_verror(ciot_status st, char *why, size_t len, const char *fmt, va_list ap) {
    if (!why || !len) return st;
    vsnprintf(why, len, fmt, ap);
    if (!has_control(why)) return st;
    char *copy = strdup(why);
    if (copy) ciot_quote(copy, why, len);
    for (char *p = why; !copy && *p; p++)   /* no memory for the copy: still one line */
        if (is_control((unsigned char)*p)) *p = '?';
    free(copy);
    return st;
}

ciot_status ciot_error(ciot_status st, char *why, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ciot_verror(st, why, len, fmt, ap);
    va_end(ap);
    return st;
}
