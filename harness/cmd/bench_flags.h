/* The Google Benchmark flags ciot bench passes through, checked before Google Benchmark sees them: its
 * Initialize prints its usage and exits 0 on some bad values (--benchmark_format=xml) and takes others
 * without a word (--benchmark_color=purple), so every --benchmark_* value is held to the values
 * Google Benchmark 1.7 gives a meaning. */
#ifndef CIOT_BENCH_FLAGS_H
#define CIOT_BENCH_FLAGS_H

#include <stddef.h>
#include "status.h"

/* Checks one "--benchmark_NAME[=VALUE]" argument. CIOT_E_ARG with one line in why (the flag and its
 * value named, without a "ciot bench:" prefix) when the name is not a Google Benchmark 1.7 flag, the
 * value is not one it takes, or ciot bench sets the flag itself. */
ciot_status ciot_bench_check_gb_flag(const char *arg, char *why, size_t why_len);

#endif
