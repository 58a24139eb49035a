/* ciot suite: the default measurement of this machine into one run folder
 * results/<date>-<host>-<commit>/: DRAM probe, compute probe, kernel benchmarks at 1 and all threads,
 * the speculative-verification batches of each source file's chosen gemm, a short model replay, raw JSON per part, then a markdown summary on stdout and in summary.md.
 * The folder holds a file INCOMPLETE until every part finished; an interrupted run keeps the parts that
 * finished whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "commands.h"
#include "context.h"
#include "fileio.h"
#include "incomplete.h"
#include "output.h"
#include "json.h"
#include "opts.h"
#include "probe_compute.h"
#include "progress.h"
#include "rules.h"
#include "cpu.h"
#include "registry.h"
#include "suite_summary.h"

enum { MAX_ROWS = 1024 };

/* argv for a subcommand, built word by word. */
typedef struct { char *v[32]; int n; char buf[4096]; size_t used; } args;
static void arg(args *a, const char *s) {
    size_t len = strlen(s) + 1;
    if (a->n >= 31 || a->used + len > sizeof a->buf) return;
    a->v[a->n++] = memcpy(a->buf + a->used, s, len);
    a->used += len;
    a->v[a->n] = NULL;
}

/* ",name,name,...," of each source file's chosen gemm on this CPU (scalar references left out: not what the
 * speculative-verification table is about). */
static const char *chosen_gemms(char *out, size_t len) {
    snprintf(out, len, ",");
    for (int f = CIOT_FMT_PQ2_0; f <= CIOT_FMT_TQ2_0; f++) {
        const ciot_kernel *k = ciot_kernel_best_source((ciot_format)f, CIOT_OP_GEMM, ciot_cpu_features());
        if (k && k->mac != CIOT_MAC_SCALAR) snprintf(out + strlen(out), len - strlen(out), "%s,", k->name);
    }
    return out;
}

/* The suite's parts in order, each with its estimated seconds. */
enum { STAGE_BW, STAGE_COMPUTE, STAGE_BENCH, STAGE_REPLAY, STAGES };

/* "[i/n] what": with the time so far and what is left, the estimates of the parts not run yet scaled by how
 * the finished parts compared with theirs. */
static void stage(int i, const char *what, ciot_progress *p, const double *estimate) {
    double done = 0, total = 0;
    for (int k = 0; k < STAGES; k++) total += estimate[k], done += k < i ? estimate[k] : 0;
    char e[32], l[32];
    const double elapsed = ciot_progress_elapsed(p), left = done > 0 ? (total - done) * elapsed / done : total;
    fprintf(stderr, "\n[%d/%d] %s: %s so far, about %s left\n", i + 1, STAGES, what, ciot_duration(elapsed, e, sizeof e),
            ciot_duration(left, l, sizeof l));
    fflush(stderr);
}

/* Seconds of ciot bw: per thread count, a warm-up and reps repetitions of each kind in each of its plans
 * (read and update 4, copy_nt 2, write and copy 1), each at least ms, after touching the buffer. */
static double bw_estimate(int thread_counts, int reps, double ms) {
    return thread_counts * (reps + 1) * 12 * ms * 1e-3 + 1;
}

/* Seconds of ciot compute: per thread count and family this CPU has, a warm-up and reps repetitions. */
static double compute_estimate(int thread_counts, int reps, double ms) {
    int families = 0;
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++) families += ciot_compute_available((ciot_compute_family)f);
    return thread_counts * families * (reps + 1) * ms * 1e-3;
}

/* DIR/context.json, whole or not at all; one line on stderr when it cannot be written. */
static ciot_status write_context(const char *dir, const ciot_context *ctx, int quick) {
    char path[2200], why[CIOT_WHY_MAX];
    snprintf(path, sizeof path, "%s/context.json", dir);
    ciot_json *j;
    ciot_status st = ciot_json_create(path, &j, why, sizeof why);
    if (st == CIOT_OK) {
        ciot_json_begin_object(j);
        ciot_context_write(j, ctx);
        ciot_json_kv_bool(j, "quick", quick);
        ciot_json_end_object(j);
        st = ciot_json_commit(j, why, sizeof why);
    }
    if (st != CIOT_OK) fprintf(stderr, "ciot suite: %s\n", why);
    return st;
}

int ciot_cmd_suite(int argc, char **argv) {
    int quick = 0;
    const char *results = CIOT_SOURCE_DIR "/results";
    const ciot_opt opts[] = {
        {"--quick", CIOT_OPT_FLAG, &quick, 0, 0, NULL, NULL,
         "a first look in about a minute: every kernel once at all cores, gemv and the gemm at\n"
         "batches 4 and 64, 3 short repetitions, no references, a small model replay (the\n"
         "same shapes; the working set guarded against an implausible LLC: ciot info)", NULL},
        {"--results", CIOT_OPT_STRING, &results, 0, 0, NULL, "DIR", "where the run folder goes (default results/ of the source tree)", NULL},
    };
    const ciot_cmdline c = {"suite", "[--quick] [--results DIR]",
                            "probe, compute probe, kernel benchmarks at 1 and all threads, the speculative-\n"
                            "verification batches (2, 3, 4, 5, 8) of each source file's chosen gemm, and a replay,\n"
                            "into DIR/<date>-<host>-<commit>/ with a summary table (results/SCHEMA.md)",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    if (quick) ciot_rules_guard_llc();   /* before the context, which records the rule */
    ciot_context ctx;
    ciot_context_collect(&ctx);
    char day[32], dir[2048], path[2200], why[CIOT_WHY_MAX];
    time_t now = time(NULL);
    strftime(day, sizeof day, "%Y%m%d-%H%M%S", gmtime(&now));
    snprintf(dir, sizeof dir, "%s/%s-%s-%s%s", results, day, ctx.host, ctx.commit, quick ? "-quick" : "");
    if (mkdir(results, 0755) != 0 && errno != EEXIST) {
        ciot_say("suite", "cannot create %s: %s", results, strerror(errno));
        return 2;
    }
    /* A folder made here, never one that exists: every file the suite writes is a new name in it, so none
     * can be an input (the model op list, under profiles/); each part's command checks its own files again. */
    if (mkdir(dir, 0755) != 0) {
        ciot_say("suite", "cannot create the run folder %s: %s", dir, strerror(errno));
        return 2;
    }
    if (ciot_run_mark_incomplete(dir, "ciot suite", why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot suite: %s\n", why);
        return 2;
    }
    ciot_say("suite", "run folder %s", dir);
    if (write_context(dir, &ctx, quick) != CIOT_OK) return 1;

    /* --quick: every kernel once at all cores, decode and prompt (batches 4 and 64), three short repetitions;
     * the full run adds 1 thread, the spawn pool, the speculative batches and the large model. */
    char threads[32], all_threads[16];
    snprintf(threads, sizeof threads, ctx.topo.cores > 1 ? "1,%d" : "%d", ctx.topo.cores);
    snprintf(all_threads, sizeof all_threads, "%d", ctx.topo.cores);
    const char *sweep = quick ? all_threads : threads, *reps = quick ? "3" : "5";
    const int thread_counts = quick || ctx.topo.cores == 1 ? 1 : 2;
    int failed = 0;

    args bench = {0};
    arg(&bench, "bench"), arg(&bench, "--threads"), arg(&bench, sweep), arg(&bench, "--reps"), arg(&bench, reps);
    /* the speculative-verification batches (2, 3, 5, 8) beside 4 and 64: Google Benchmark runs once a process,
     * so they are rows of this one run */
    arg(&bench, "--batches"), arg(&bench, quick ? "4,64" : CIOT_SUITE_BATCHES);
    if (quick) arg(&bench, "--rep-ms"), arg(&bench, "20"), arg(&bench, "--no-spawn"), arg(&bench, "--refs"), arg(&bench, "none");
    double estimate[STAGES] = {bw_estimate(thread_counts, quick ? 3 : 5, 50),
                               compute_estimate(thread_counts, quick ? 3 : 5, quick ? 50 : 200), 0,
                               quick ? 15 : 90};
    int cases = 0;
    if (ciot_bench_estimate(bench.n, bench.v, &estimate[STAGE_BENCH], &cases) >= 0) return 1;
    char d[32];
    ciot_say("suite", "%s run: %d benchmark cases, about %s in all", quick ? "a quick" : "a full", cases,
             ciot_duration(estimate[0] + estimate[1] + estimate[2] + estimate[3], d, sizeof d));
    ciot_progress progress;
    ciot_progress_start(&progress, 0);

    stage(STAGE_BW, "DRAM bandwidth probe (ciot bw)", &progress, estimate);
    args a = {0};
    arg(&a, "bw"), arg(&a, "--threads"), arg(&a, sweep), arg(&a, "--reps"), arg(&a, reps), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/bw.json", dir), arg(&a, path);
    failed |= ciot_cmd_bw(a.n, a.v) != 0;

    stage(STAGE_COMPUTE, "int8 compute probe (ciot compute)", &progress, estimate);
    a = (args){0};
    arg(&a, "compute"), arg(&a, "--threads"), arg(&a, sweep), arg(&a, "--reps"), arg(&a, reps), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/compute.json", dir), arg(&a, path);
    if (quick) arg(&a, "--ms"), arg(&a, "50");
    failed |= ciot_cmd_compute(a.n, a.v) != 0;

    stage(STAGE_BENCH, "kernel benchmarks, each repetition paired with a probe sample (ciot bench)", &progress, estimate);
    arg(&bench, "--json");
    snprintf(path, sizeof path, "%s/bench.json", dir), arg(&bench, path);
    static ciot_bench_row rows[MAX_ROWS];
    int nrows = 0;
    char kernels[512];
    failed |= ciot_bench_main(bench.n, bench.v, rows, MAX_ROWS, &nrows) != 0;

    stage(STAGE_REPLAY, "model replay, each token paired with a probe sample (ciot replay)", &progress, estimate);
    a = (args){0};
    arg(&a, "replay"), arg(&a, "--model"), arg(&a, quick ? "tiny-0.6b" : "bonsai-2-27b"), arg(&a, "--threads");
    arg(&a, all_threads), arg(&a, "--dispatch"), arg(&a, "all"), arg(&a, "--tokens");
    arg(&a, quick ? "3" : "5"), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/replay.json", dir), arg(&a, path);
    failed |= ciot_cmd_replay(a.n, a.v) != 0;
    ciot_say("suite", "the parts took %s", ciot_duration(ciot_progress_elapsed(&progress), d, sizeof d));

    ciot_context_finish(&ctx); /* the load average after, rewritten whole over the first context.json */
    if (write_context(dir, &ctx, quick) != CIOT_OK) failed = 1;

    failed |= ciot_suite_write_summaries(dir, rows, nrows, &ctx, quick, chosen_gemms(kernels, sizeof kernels));
    printf("\nrun folder: %s\n", dir);
    if (failed) ciot_say("suite", "a part failed (see above); what finished is in %s, marked INCOMPLETE", dir);
    else if (ciot_run_mark_complete(dir, why, sizeof why) != CIOT_OK) fprintf(stderr, "ciot suite: %s\n", why), failed = 1;
    return failed ? 1 : 0;
}
