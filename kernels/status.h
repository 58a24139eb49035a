/* Errors are values: library code returns a status and never prints or exits. */
#ifndef CIOT_STATUS_H
#define CIOT_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum {
    CIOT_OK = 0,
    CIOT_E_SHAPE,       /* a shape the layout or kernel cannot take */
    CIOT_E_ARG,         /* a bad argument (count of 0, NULL, out of range) */
    CIOT_E_NOMEM,       /* an allocation failed or would not fit in memory */
    CIOT_E_IO,          /* a file could not be read or written */
    CIOT_E_CPU,         /* this CPU lacks a feature the kernel needs */
    CIOT_E_UNKNOWN,     /* an unknown name (kernel, layout, feature) */
    CIOT_E_SYS,         /* the OS refused (threads, pinning) */
    CIOT_E_FORMAT,      /* malformed data: a file or block that breaks its format */
} ciot_status;

const char *ciot_status_str(ciot_status s);
/* Formats a message into why (when why and len are non-zero) and returns st: the one-line error of a
 * function that reports what went wrong as text. Control characters in it are escaped as ciot_quote
 * writes them, so a file name or value it names cannot split the line. */
ciot_status ciot_error(ciot_status st, char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
ciot_status ciot_verror(ciot_status st, char *why, size_t len, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
/* s into buf (len bytes, always terminated, cut short at a whole character) with every control character
 * (bytes below 0x20, and 0x7f) written as \n, \t, \r or \xNN; every other byte as it is. For file names
 * and other text a user gave, printed in a one-line message. Returns buf. */
const char *ciot_quote(const char *s, char *buf, size_t len);

#endif
