/* ciot tune: a short paired measurement of every kernel this CPU runs, per source file and op, at 1 thread and
 * at all cores, through ciot bench; the winners go into the tuning file every choosing command reads
 * (tuning.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"
#include "commands.h"
#include "cpu.h"
#include "opts.h"
#include "progress.h"
#include "registry.h"
#include "rules.h"
#include "topo.h"
#include "tuning.h"

enum { MAX_ROWS = 2048 };

/* "2,4,...,64": the gemm batches to time: 2, 4 and 64, and every batch from which a gemm of this CPU declares
 * another inner loop (kernel.h: mac_batch), so that each regime of a descriptor is timed at its start; --quick:
 * 4 and 64 alone, to stay within a minute. */
static const char *tune_batches(int quick, char *buf, size_t len) {
    int seen[4097] = {0};
    seen[4] = seen[64] = 1;
    seen[2] = !quick;
    for (int i = 0; i < ciot_kernel_count() && !quick; i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (k->op == CIOT_OP_GEMM && !ciot_kernel_missing(k, ciot_cpu_features()) && k->mac_batch > 1 &&
            k->mac_batch <= 4096)
            seen[k->mac_batch] = 1;
    }
    buf[0] = 0;
    for (int b = 1; b <= 4096; b++)
        if (seen[b]) snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", buf[0] ? "," : "", b);
    return buf;
}

/* Whether this CPU runs some kernel besides the scalar references (they are timed only when it does not). */
static int runs_vector_kernel(void) {
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (k->reference != k && !ciot_kernel_missing(k, ciot_cpu_features())) return 1;
    }
    return 0;
}

typedef struct {
    int quick, shape_given, gemm_given;
    const char *out;
    ciot_shape shape, gemm;
    char shape_text[32], gemm_text[32];
} tune_opts;

/* ciot bench's argument list for the measurement, into v (at most 24 words) over store. */
static int bench_argv(const tune_opts *o, char **v, char *store, size_t len) {
    char batches[256], threads[32], filter[64];
    const int cores = ciot_topo_cores();
    snprintf(threads, sizeof threads, cores > 1 ? "1,%d" : "%d", cores);
    const char *words[24] = {"bench", "--threads", threads, "--batches", tune_batches(o->quick, batches, sizeof batches),
                             "--reps", o->quick ? "2" : "5", "--rep-ms", o->quick ? "5" : "50", "--no-spawn"};
    int n = 10;
    if (runs_vector_kernel()) words[n++] = "--refs", words[n++] = "none";
    if (o->shape_given) words[n++] = "--shape", words[n++] = o->shape_text;
    /* --quick: a gemm of a quarter of the rows, so a batch-64 call does not outlast the repetition */
    if (o->gemm_given || o->quick) words[n++] = "--gemm-shape", words[n++] = o->gemm_given ? o->gemm_text : "4352x5120";
    /* --quick: the gemm at all cores only (prompt processing takes every core), the gemv at both */
    snprintf(filter, sizeof filter, "--benchmark_filter=_gemv_|/threads:%d/", cores);
    if (o->quick && cores > 1) words[n++] = filter;
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        const size_t w = strlen(words[i]) + 1;
        if (used + w > len) return -1;
        v[i] = memcpy(store + used, words[i], w), used += w;
    }
    v[n] = NULL;
    return n;
}

static int run(const tune_opts *o) {
    char path[1100], store[1024], *argv[25], why[1400], date[16], d[32];
    if (!ciot_tuning_path(o->out, path, sizeof path)[0])
        return ciot_say("tune", "no cache folder: set XDG_CACHE_HOME or HOME, or give --out DIR"), 2;
    const int argc = bench_argv(o, argv, store, sizeof store);
    if (argc < 0) return ciot_say("tune", "the bench arguments do not fit"), 1;
    ciot_json *j;   /* opened first: a file that cannot be written is refused before anything is timed */
    if (ciot_tuning_open(path, &j, why, sizeof why) != CIOT_OK) return ciot_say("tune", "%s", why), 2;
    if (o->quick) ciot_rules_guard_llc();
    ciot_progress p;
    ciot_progress_start(&p, 0);
    static ciot_bench_row rows[MAX_ROWS];
    int nrows = 0;
    const int rc = ciot_bench_main(argc, argv, rows, MAX_ROWS, &nrows);
    if (rc != 0) return ciot_json_discard(j), rc;
    static ciot_tuned t[CIOT_TUNING_MAX];
    double margin = 0;
    const int n = ciot_tuning_from_rows(rows, nrows, t, CIOT_TUNING_MAX, &margin);
    ciot_tuning_key key;
    ciot_tuning_key_here(&key);
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    if (ciot_tuning_commit(j, &key, date, o->quick, margin, t, n, why, sizeof why) != CIOT_OK)
        return ciot_say("tune", "%s", why), 1;
    ciot_say("tune", "%d choices in %s (%s)", n, path, ciot_duration(ciot_progress_elapsed(&p), d, sizeof d));
    ciot_say("tune", "margin: a winner's repetitions spread up to %.0f%% of its median%s; kernels whose ranges overlap "
             "are a tie, broken by the static rank", 100 * margin, o->quick ? " (--quick: 2 short repetitions, batches 4 and 64)" : "");
    return 0;
}

int ciot_cmd_tune(int argc, char **argv) {
    tune_opts o = {0};
    const ciot_opt opts[] = {
        {"--quick", CIOT_OPT_FLAG, &o.quick, 0, 0, NULL, NULL, "short: batches 4 and 64 only, a 4352x5120 gemm at all cores only, 2\nrepetitions of at least 5 ms, each still paired with a probe sample, most of\nits time (default: every regime at 1 thread and all cores, 5 repetitions of\n50 ms)", NULL},
        {"--out", CIOT_OPT_STRING, &o.out, 0, 0, NULL, "DIR", "write DIR/tuning.json (default: the cache folder, ciot info says which)", NULL},
        {"--shape", CIOT_OPT_SHAPE, &o.shape, 1, 1 << 28, NULL, "RxK", "the gemv matrix (ciot bench --shape)", &o.shape_given},
        {"--gemm-shape", CIOT_OPT_SHAPE, &o.gemm, 1, 1 << 28, NULL, "RxK", "the gemm matrix (ciot bench --gemm-shape)", &o.gemm_given},
    };
    const ciot_cmdline c = {"tune", "[--quick] [--out DIR]",
                            "Times every kernel this CPU runs, per source file and op: the gemv (decode) and the gemm at\n"
                            "batches 2, 4, 64 and where a descriptor changes its inner loop, at 1 thread and at all\n"
                            "cores, each repetition paired with a probe sample (ciot bench). The winner per file, op,\n"
                            "batch regime and thread count goes into the tuning file ($XDG_CACHE_HOME/ciot/tuning.json\n"
                            "or ~/.cache/ciot/tuning.json; CIOT_TUNING=FILE names another, =none none), keyed by the CPU\n"
                            "model, its features and ciot's commit; info, bench, suite and replay then choose by it.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    const int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    snprintf(o.shape_text, sizeof o.shape_text, "%dx%d", o.shape.rows, o.shape.K);
    snprintf(o.gemm_text, sizeof o.gemm_text, "%dx%d", o.gemm.rows, o.gemm.K);
    return rc >= 0 ? rc : run(&o);
}
