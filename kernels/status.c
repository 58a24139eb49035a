/* Human-readable names of status values. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

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

ciot_status ciot_error(ciot_status st, char *why, size_t len, const char *fmt, ...) {
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return st;
}
