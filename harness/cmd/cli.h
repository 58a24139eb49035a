/* Parsing of command-line values shared by the subcommands: sizes with K/M/G/T suffixes, integers in
 * a range, and lists of integers ("1,2,4", "1-8"). Errors are CIOT_E_ARG; nothing is printed. */
#ifndef CIOT_CLI_H
#define CIOT_CLI_H

#include <stddef.h>
#include "status.h"

/* "4096", "64K", "512M", "1G", "2T" (binary: 1K = 1024; an optional trailing B or iB is accepted). */
ciot_status ciot_parse_size(const char *s, size_t *out);
/* A whole decimal number in [lo, hi]. */
ciot_status ciot_parse_int(const char *s, int lo, int hi, int *out);
/* Comma-separated numbers or ranges a-b, each in [lo, hi], at most cap values in the order given. With vals
 * NULL only *n is set (the number of values, no cap): how long a list that is too long is. */
ciot_status ciot_parse_int_list(const char *s, int lo, int hi, int *vals, int cap, int *n);
/* A finite decimal number ("0.5", "1e-3"); NaN, Inf, overflow, empty and trailing junk are errors. */
ciot_status ciot_parse_double(const char *s, double *out);
/* Whether a comma-separated list has an empty item: empty itself, a leading or trailing comma, or ",,". */
int ciot_list_has_empty_item(const char *s);
/* "RxK" (or "RXK"): two whole numbers, each in [lo, hi]. */
ciot_status ciot_parse_shape(const char *s, int lo, int hi, int *rows, int *K);
/* "1.00 GiB", "64.0 MiB", "512 KiB", "123 B" into buf. */
const char *ciot_format_bytes(size_t bytes, char *buf, size_t len);

#endif
