/* ciot bench: Google Benchmark runs of every available kernel on the persistent and spawn pools. */
#ifndef CIOT_BENCH_H
#define CIOT_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* One row of the summary: medians over the repetitions of one benchmark. */
typedef struct {
    char kernel[64], pool[16];
    int threads, batch, rows, K;
    int reps;
    double gw_min, gw_median, gw_max;   /* Gweights/s */
    double gbs_median;                  /* GB/s of packed weight bytes */
    double gmacs_median;                /* gemm only, else 0 */
    double ceiling_gbs;                 /* read ceiling at this thread count, same process */
} ciot_bench_row;

/* Runs `ciot bench` with argv; when rows is not NULL, fills up to max rows of summary (count in *n). */
int ciot_bench_main(int argc, char **argv, ciot_bench_row *rows, int max, int *n);
int ciot_cmd_bench(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
