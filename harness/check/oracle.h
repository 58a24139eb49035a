/* The exactness oracle: every kernel against the exact integer dot (unit mode) and bit for bit against
 * its reference (scaled mode), over shapes, batches, edge inputs and every slice a pool could cut. */
#ifndef CIOT_ORACLE_H
#define CIOT_ORACLE_H

#include <stdio.h>
#include "kernel.h"

typedef struct {
    const char *filter;     /* run kernels whose name contains this (NULL: all) */
    int quick;              /* fewer, smaller shapes */
    long max_weights;       /* skip (rows x K x batch) cases above this; 0 = default */
    FILE *log;              /* failures and per-kernel lines (NULL: stderr) */
    int verbose;
} ciot_oracle_opts;

typedef struct {
    int passed, failed, skipped;        /* cases; skipped: the cases of kernels this CPU cannot run */
    int kernels_run, kernels_skipped;
} ciot_oracle_result;

/* Runs every kernel this CPU can run; the cases of the others are counted as skipped and their kernels
 * listed with the reason, never counted as passed. Returns CIOT_OK when it could run; failures are
 * counted in `res`. */
ciot_status ciot_oracle_run(const ciot_oracle_opts *o, ciot_oracle_result *res);

/* Kernel k on packed weights w (its layout) and activations x (its format): every slice a pool could cut
 * (full with the prefetch policy on, first, last, middle, two halves; or only the full slice named
 * `what` when what is not NULL), each into a sentinel-filled output with a row stride of rows + 3,
 * compared bit for bit with want[b * rows + n]; outputs outside the slice must keep the sentinel.
 * Failures are printed to log with `label`. Returns 1 when everything matches. */
int ciot_oracle_slices(const ciot_kernel *k, const void *w, const void *x, int rows, int K, int batch, const float *want,
                       const char *label, const char *what, FILE *log);

/* One case: kernel k on testdata shape/pattern; compares with the exact dots (unit) or with `ref`
 * (scaled). Prints failures (kernel, shape, index, expected, actual). Returns 1 when it passes. */
int ciot_oracle_case(const ciot_kernel *k, int rows, int K, int batch, int pattern, int unit, FILE *log);

#endif
