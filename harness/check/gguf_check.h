/* The exactness oracle on a GGUF file's real tensors (ciot check --gguf): see gguf_check.c. */
#ifndef CIOT_GGUF_CHECK_H
#define CIOT_GGUF_CHECK_H

#include <stdio.h>
#include "gguf.h"

typedef struct {
    const char *tensor_regex;   /* POSIX extended regex on tensor names (NULL: every tensor) */
    const char *kernel_filter;  /* kernels whose name contains this (NULL: all) */
} ciot_gguf_check_opts;

typedef struct {
    int passed, failed;         /* cases: (tensor, kernel, batch) */
    int skipped;                /* cases of kernels that take a tensor but this CPU cannot run */
    int tensors_checked;        /* 2-D ternary tensors some runnable kernel takes */
    int tensors_skipped;        /* ternary tensors no runnable kernel takes (listed with the reason) */
} ciot_gguf_check_result;

/* Checks every matching ternary tensor; per-tensor lines and failures go to log. Before any: CIOT_E_ARG
 * (why filled) when the regex does not compile, CIOT_E_FORMAT when a matching tensor has a NaN or infinite
 * block scale (why names the tensor and the block), CIOT_E_NOMEM. */
ciot_status ciot_gguf_check(const ciot_gguf *g, const ciot_gguf_check_opts *o, ciot_gguf_check_result *r, FILE *log,
                            char *why, size_t why_len);

#endif
