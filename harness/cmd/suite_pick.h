/* What the suite's derived tables share (suite_pick.c): one source file's pick in a cell with its runner-up and
 * whether the two are within noise of each other, the ratio every row is judged by (its own roof, or the paired
 * read ceiling for a gemm without one), and a spread as JSON. */
#ifndef CIOT_SUITE_PICK_H
#define CIOT_SUITE_PICK_H

#include <stddef.h>
#include "bench.h"
#include "json.h"

/* Whether two rows of known kernels are cells of the same comparison: operation, shape, batch, threads, pool. */
int ciot_suite_same_cell(const ciot_bench_row *a, const ciot_bench_row *b);

/* A file's pick in a cell. Within noise (a tie): the runner-up's fastest repetition reached the pick's slowest,
 * i.e. the two rows' min - max ranges overlap. The rows were timed apart, not side by side, so their ranges are
 * all that tells them apart. */
typedef struct {
    const ciot_bench_row *best;  /* the fastest row by median Gweights/s; NULL when the file has none in the cell */
    const ciot_bench_row *next;  /* the fastest row of another kernel; NULL when none */
    int tie;                     /* next is within noise of best */
} ciot_suite_pick;
/* The pick of source file `format` (ciot_format) in the cell of row `cell` (its pool too). */
ciot_suite_pick ciot_suite_pick_of(const ciot_bench_row *rows, int n, const ciot_bench_row *cell, int format);

/* The ratio a row is judged by: its own roof's (roof.h) when it has one; a gemm without a compute roof (lookup,
 * scalar) gets its paired read ratio instead, marked `read`. */
typedef struct {
    double min, median, max;
    int read;                    /* 1: the paired read ratio stands in for a roof the row does not have */
} ciot_suite_ratio;
ciot_suite_ratio ciot_suite_ratio_of(const ciot_bench_row *r);
/* The roof in words: "paired read ceiling" (a gemv), "bw roof at M MAC/B", "compute roof FAMILY", or "paired read
 * ceiling (no compute roof: WHY)". */
const char *ciot_suite_roof_words(const ciot_bench_row *r, char *buf, size_t len);
/* The same as JSON: "roof" ("read", "bw", "compute"), "compute_family", "no_compute_roof", "roof_ratio". */
void ciot_suite_json_roof(ciot_json *j, const ciot_bench_row *r);

/* The row's flags as the table of every case marks them (" **[1]**" ratio above 1, " **[3]**" above its compute
 * roof, " **[2]**" cache resident; footnoted under that table), or "". */
const char *ciot_suite_flag_marks(const ciot_bench_row *r, char *buf, size_t len);
/* "PQ2_0", "PTQ1_0", ... */
const char *ciot_suite_file_name(int format, char *buf, size_t len);
/* key: {min, median, max}. */
void ciot_suite_json_spread(ciot_json *j, const char *key, double min, double median, double max);
/* key: {kernel, gweights_s} of row r, or null. */
void ciot_suite_json_kernel(ciot_json *j, const char *key, const ciot_bench_row *r);

#endif
