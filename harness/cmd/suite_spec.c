/* The speculative-verification batches (suite_summary.h): time(B) against ceil(B / 4) calls at batch 4. */
#include <string.h>
#include "suite_pick.h"
#include "suite_summary.h"

/* The batch-4 row of the same kernel, threads and pool. */
static const ciot_bench_row *batch4_of(const ciot_bench_row *rows, int n, const ciot_bench_row *r) {
    for (int i = 0; i < n; i++)
        if (rows[i].batch == 4 && rows[i].threads == r->threads && !strcmp(rows[i].kernel, r->kernel) &&
            !strcmp(rows[i].pool, r->pool))
            return &rows[i];
    return NULL;
}

/* time(B) / (ceil(B / 4) x time(4)) of batch B run at gw_b Gweights/s against batch 4 at gw_4. */
static double padded_ratio(int batch, double gw_b, double gw_4) {
    return (batch / gw_b) / (((batch + 3) / 4) * 4 / gw_4);
}

/* Whether a row belongs in the speculative-verification table. */
static int spec_row(const ciot_bench_row *r, const char *kernels) {
    char key[80];
    snprintf(key, sizeof key, ",%s,", r->kernel);
    return r->batch >= 2 && r->batch <= 8 && !strcmp(r->pool, "persistent") && (!kernels || strstr(kernels, key));
}

/* One row as JSON: the padded ratio null without a batch-4 twin; verdict "cliff", "spread", "no cliff" or null. */
static void spec_json(ciot_json *j, const ciot_bench_row *r, double ms, const double *q, const char *verdict) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "kernel", r->kernel);
    ciot_json_kv_int(j, "threads", r->threads);
    ciot_json_kv_int(j, "batch", r->batch);
    ciot_suite_json_spread(j, "gweights_s", r->gw_min, r->gw_median, r->gw_max);
    ciot_json_kv_number(j, "ms_per_call", ms);
    if (q) ciot_suite_json_spread(j, "padded_ratio", q[1], q[0], q[2]);
    else ciot_json_key(j, "padded_ratio"), ciot_json_null(j);
    ciot_json_kv_string(j, "verdict", verdict);
    ciot_json_end_object(j);
}

void ciot_suite_spec_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n, const char *kernels) {
    int any = 0;   /* a batch other than 4: batch 4 alone is only the yardstick */
    for (int i = 0; i < n; i++) any |= spec_row(&rows[i], kernels) && rows[i].batch != 4;
    if (j) ciot_json_key(j, "speculative"), ciot_json_begin_array(j);
    if (!any) {
        if (j) ciot_json_end_array(j);
        if (n) fprintf(f, "\n### Speculative-verification batches\n\nNot measured: no batch of 2, 3, 5 or 8 ran (a quick "
                          "suite runs batches 4 and 64; the full suite adds them).\n");
        return;
    }
    fprintf(f, "\n### Speculative-verification batches\n\n"
               "| kernel | threads | batch | Gweights/s median (min - max) | ms per call | time(B) / (ceil(B/4) x time(4)) |\n"
               "|---|---|---|---|---|---|\n");
    int cliff = 0, spread = 0;
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i], *four = batch4_of(rows, n, r);
        if (!spec_row(r, kernels) || !(r->gw_median > 0)) continue;
        const double ms = 1e-6 * r->rows * (double)r->K * r->batch / r->gw_median; /* MACs / (GMAC/s) */
        char ratio[80] = "-";
        const char *verdict = NULL;
        double qs[3];
        if (four && four->gw_median > 0 && r->gw_min > 0 && four->gw_min > 0) {
            /* the medians' ratio, and its range over the two rows' min - max: a cliff is a range wholly above 1.1,
             * since the rows were timed apart and the machine drifts between them */
            const double q = padded_ratio(r->batch, r->gw_median, four->gw_median),
                         lo = padded_ratio(r->batch, r->gw_max, four->gw_min), hi = padded_ratio(r->batch, r->gw_min, four->gw_max);
            snprintf(ratio, sizeof ratio, "%.2f (%.2f - %.2f)%s", q, lo, hi,
                     lo > 1.1 ? " **cliff**" : q > 1.1 ? " over 1.1 within the spread" : "");
            qs[0] = q, qs[1] = lo, qs[2] = hi;
            verdict = lo > 1.1 ? "cliff" : q > 1.1 ? "spread" : "no cliff";
            cliff |= lo > 1.1;
            spread |= q > 1.1 && lo <= 1.1;
        }
        fprintf(f, "| %s | %d | %d | %.1f (%.1f - %.1f) | %.2f | %s |\n", r->kernel, r->threads, r->batch, r->gw_median,
                r->gw_min, r->gw_max, ms, ratio);
        if (j) spec_json(j, r, ms, verdict ? qs : NULL, verdict);
    }
    if (j) ciot_json_end_array(j);
    fprintf(f, "\nEach source file's chosen gemm at each batch (measured here by `ciot tune` where its tuning file covers the batch, else the registry's highest-ranked on this CPU) at the batches a draft "
               "model's verification step meets, rows of the same bench run (bench.json), medians. A batch B pads to ceil(B/4) "
               "groups of 4 activation rows; the last column compares one call with that many calls at batch 4, the medians "
               "(and the range the two rows' min - max allow): %s%s.\n",
            cliff ? "a row whose whole range is over 1.1 (**cliff**) costs more than its padded groups"
                  : "no row's whole range is over 1.1, no cliff",
            spread ? "; a median over 1.1 whose range reaches 1.1 or below is the run's spread, not called a cliff (time "
                     "the two batches again)"
                   : "");
}
