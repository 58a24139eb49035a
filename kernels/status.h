/* Errors are values: library code returns a status and never prints or exits. */
#ifndef CIOT_STATUS_H
#define CIOT_STATUS_H

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

#endif
