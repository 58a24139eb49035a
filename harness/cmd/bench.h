/* ciot bench: Google Benchmark runs of every available kernel, each repetition paired with a read-probe
 * sample on the same pool (measure.h). */
#ifndef CIOT_BENCH_H
#define CIOT_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* One row of the summary: one benchmark case over its repetitions. */
typedef struct {
    char kernel[64], pool[16], op[8];   /* op: "gemv" or "gemm" */
    int threads, batch, rows, K;
    int reps;
    double gw_min, gw_median, gw_max;           /* Gweights/s */
    double gbs_median;                          /* GB/s of packed weight bytes */
    double gmacs_median;                        /* gemm only, else 0 */
    double probe_min, probe_median, probe_max;  /* the paired probe samples, GB/s */
    double ratio_min, ratio_median, ratio_max;  /* per-repetition kernel GB/s / probe GB/s */
    int ratio_above_1;                          /* some repetition's ratio exceeds 1: flagged */
    int cache_resident;                         /* the weights' working set is below 4 x LLC */
    /* The row's roof (roof.h): a gemv's is the read ceiling (its roof ratio is the read ratio); a gemm's the
     * lower of the bw roof at its intensity and its family's paired compute samples, or none. */
    double intensity;                           /* MACs per byte of weights */
    char family[16];                            /* the gemm's compute family; "" when none */
    char no_family[32];                         /* why none (roof.h), "" when there is one */
    double compute_min, compute_median, compute_max;   /* paired compute samples, GMAC/s; 0 when none */
    int bound;                                  /* ciot_roof_kind: none, bw or compute */
    int bound_mixed;                            /* repetitions differ in which roof bounds them */
    double roof_min, roof_median, roof_max;     /* per-repetition kernel GMAC/s / bound; 0 when none */
    int above_compute_roof;                     /* a compute-bound repetition above its compute sample: flagged */
    int low_outlier;                            /* a paired probe sample below half the case's median: flagged */
    int peer;                                   /* a runtime's own type (bench --peer), kernel is NAME:TYPE */
} ciot_bench_row;

/* Runs `ciot bench` with argv; when rows is not NULL, fills up to max rows of summary (count in *n). */
int ciot_bench_main(int argc, char **argv, ciot_bench_row *rows, int max, int *n);
int ciot_cmd_bench(int argc, char **argv);
/* How long `ciot bench` with argv would take, in seconds, its case count, and the read rate the estimate took
 * (GB/s on all the threads it runs), estimated before its buffers are allocated; -1 when argv is fine, else the
 * exit code (the message printed). */
int ciot_bench_estimate(int argc, char **argv, double *seconds, int *cases, double *read_gbs);

#ifdef __cplusplus
}
#endif

#endif
