/* The answer first (suite_summary.h): per source file the kernel to use for decode and for prompt on this
 * machine at the most threads the run timed, its speed, and its ratio to the roof it is judged by. */
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "suite_pick.h"
#include "suite_summary.h"

/* Whether row r is a persistent-pool row of a known kernel of operation op. */
static int of_op(const ciot_bench_row *r, ciot_op op) {
    const ciot_kernel *k = ciot_kernel_find(r->kernel);
    return k && k->op == op && !strcmp(r->pool, "persistent");
}

static int most_threads(const ciot_bench_row *rows, int n) {
    int t = 0;
    for (int i = 0; i < n; i++)
        if ((of_op(&rows[i], CIOT_OP_GEMV) || of_op(&rows[i], CIOT_OP_GEMM)) && rows[i].threads > t) t = rows[i].threads;
    return t;
}

/* The largest batch of the gemm rows at `threads`, 0 when none. */
static int largest_batch(const ciot_bench_row *rows, int n, int threads) {
    int b = 0;
    for (int i = 0; i < n; i++)
        if (of_op(&rows[i], CIOT_OP_GEMM) && rows[i].threads == threads && rows[i].batch > b) b = rows[i].batch;
    return b;
}

/* The first row of op at threads and batch: the cell the table picks from (the suite runs one shape per op). */
static const ciot_bench_row *cell_of(const ciot_bench_row *rows, int n, ciot_op op, int threads, int batch) {
    for (int i = 0; i < n; i++)
        if (of_op(&rows[i], op) && rows[i].threads == threads && rows[i].batch == batch) return &rows[i];
    return NULL;
}

static void answer_row(FILE *f, ciot_json *j, int fmt, int decode, const ciot_suite_pick *p) {
    const ciot_bench_row *a = p->best, *b = p->next;
    const ciot_suite_ratio q = ciot_suite_ratio_of(a);
    char file[16], use[80], roof[96], next[128] = "-", flags[64];
    ciot_suite_file_name(fmt, file, sizeof file);
    if (decode) snprintf(use, sizeof use, "decode: gemv %dx%d", a->rows, a->K);
    else snprintf(use, sizeof use, "prompt: gemm %dx%d, batch %d", a->rows, a->K, a->batch);
    if (b)
        snprintf(next, sizeof next, "%s%s %.1f (%.1f - %.1f)", p->tie ? "**tie** with " : "", b->kernel, b->gw_median,
                 b->gw_min, b->gw_max);
    fprintf(f, "| %s | %s | %s | %.1f (%.1f - %.1f) | %.0f%% (%.0f - %.0f%%)%s | %s | %s |\n", file, use, a->kernel,
            a->gw_median, a->gw_min, a->gw_max, 100 * q.median, 100 * q.min, 100 * q.max, ciot_suite_flag_marks(a, flags, sizeof flags),
            ciot_suite_roof_words(a, roof, sizeof roof), next);
    if (!j) return;
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "file", file);
    ciot_json_kv_string(j, "use", decode ? "decode" : "prompt");
    ciot_json_kv_string(j, "op", decode ? "gemv" : "gemm");
    ciot_json_kv_int(j, "rows", a->rows);
    ciot_json_kv_int(j, "K", a->K);
    ciot_json_kv_int(j, "batch", a->batch);
    ciot_json_kv_int(j, "threads", a->threads);
    ciot_json_kv_string(j, "kernel", a->kernel);
    ciot_suite_json_spread(j, "gweights_s", a->gw_min, a->gw_median, a->gw_max);
    ciot_suite_json_roof(j, a);
    ciot_suite_json_kernel(j, "runner_up", b);
    ciot_json_kv_bool(j, "tie", p->tie);
    ciot_json_end_object(j);
}

void ciot_suite_answer(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n, int cores) {
    const int t = most_threads(rows, n), batch = largest_batch(rows, n, t);
    const ciot_bench_row *cell[2] = {cell_of(rows, n, CIOT_OP_GEMV, t, 1), cell_of(rows, n, CIOT_OP_GEMM, t, batch)};
    if (j) {
        ciot_json_key(j, "answer");
        ciot_json_begin_object(j);
        ciot_json_kv_int(j, "threads", t);
        ciot_json_kv_int(j, "cores", cores);
        ciot_json_kv_int(j, "prompt_batch", batch);
        ciot_json_key(j, "rows");
        ciot_json_begin_array(j);
    }
    if (cell[0] || cell[1]) {
        char threads[64];
        snprintf(threads, sizeof threads, "%d thread%s (%s)", t, t == 1 ? "" : "s", t == cores ? "all the cores" : "the most this run timed");
        fprintf(f, "### The answer: the kernel to use on this machine\n\n"
                   "Per source file, this run's fastest kernel for decode (a gemv, one token) and for prompt (a gemm at "
                   "batch %d, the largest batch timed), at %s on the persistent pool, with its ratio to the roof it is "
                   "judged by (flags as footnoted under the table of every case). Every cell follows in the tables below.\n\n"
                   "| file | for | kernel | Gweights/s median (min - max) | %% of roof median (min - max) | roof | runner-up, "
                   "Gweights/s |\n|---|---|---|---|---|---|---|\n",
                batch, threads);
    }
    int ties = 0;
    for (int fmt = CIOT_FMT_PQ2_0; fmt <= CIOT_FMT_TQ2_0; fmt++)
        for (int d = 0; d < 2; d++) {
            const ciot_suite_pick p = cell[d] ? ciot_suite_pick_of(rows, n, cell[d], fmt) : (ciot_suite_pick){0};
            if (!p.best) continue;
            answer_row(f, j, fmt, d == 0, &p);
            ties |= p.tie;
        }
    if (j) ciot_json_end_array(j), ciot_json_end_object(j);
    if (!cell[0] && !cell[1]) return;
    fprintf(f, "\nA gemv's roof is its paired read ceiling (kernel GB/s over the read probe sampled beside each "
               "repetition); a gemm's is the roofline bound at its MACs per weight byte: the bw roof, or the compute "
               "roof of the multiply family its kernel issues. A gemm that multiplies nothing (a lookup kernel) or has "
               "no vector family (a scalar reference) has no compute roof: its ratio is its paired read ratio, and the "
               "roof says so. **tie**: the runner-up (the next fastest kernel of the same file) is within noise: its "
               "fastest repetition reached the pick's slowest (the two min - max ranges overlap; the rows were timed "
               "apart, so nothing closer tells them apart): either will do, or time the two side by side (`ciot bench "
               "--kernels A,B`)%s.\n\n",
            ties ? "" : "; no pick here is one");
}
