/* ciot suite: the default measurement of this machine into one run folder
 * results/<date>-<host>-<commit>/: DRAM probe, compute probe, kernel benchmarks at 1 and all threads,
 * the speculative-verification batches of each source file's chosen gemm, a short model replay, raw JSON per part, then a markdown summary on stdout and in summary.md.
 * The folder holds a file INCOMPLETE until every part finished; an interrupted run keeps the parts that
 * finished whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"
#include "commands.h"
#include "context.h"
#include "fileio.h"
#include "incomplete.h"
#include "os.h"
#include "output.h"
#include "json.h"
#include "opts.h"
#include "peer.h"
#include "probe_compute.h"
#include "progress.h"
#include "rules.h"
#include "cpu.h"
#include "registry.h"
#include "tuning.h"
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

/* ",name,name,...," of each source file's chosen gemm on this CPU at the speculative batches (2 to 8) and the
 * suite's thread counts, by the tuning file where it covers them (choice.h); scalar references left out: not
 * what the speculative-verification table is about. */
static const char *chosen_gemms(char *out, size_t len, int cores) {
    snprintf(out, len, ",");
    for (int f = CIOT_FMT_PQ2_0; f <= CIOT_FMT_TQ2_0; f++)
        for (int b = 2; b <= 8; b++)
            for (int th = 1; th <= cores; th = th == cores ? cores + 1 : cores) {
                const ciot_choice_ask a = {(ciot_format)f, NULL, CIOT_OP_GEMM, b, th, 0, 0, ciot_cpu_features()};
                const ciot_kernel *k = ciot_kernel_choose(&a).kernel;
                char key[80];
                snprintf(key, sizeof key, ",%s,", k ? k->name : "");
                if (k && k->mac != CIOT_MAC_SCALAR && !strstr(out, key))
                    snprintf(out + strlen(out), len - strlen(out), "%s,", k->name);
            }
    return out;
}

/* The suite's parts in order, each with its estimated seconds. */
enum { STAGE_BW, STAGE_COMPUTE, STAGE_BENCH, STAGE_REPLAY, STAGES };

/* "[i/n] what": the time so far, and the estimates of this part and the ones after it (the bench's lines then
 * say the time left from its own pace). */
static void stage(int i, const char *what, ciot_progress *p, const double *estimate) {
    double left = 0;
    for (int k = i; k < STAGES; k++) left += estimate[k];
    char e[32], l[32];
    fprintf(stderr, "\n[%d/%d] %s: %s so far, about %s left\n", i + 1, STAGES, what,
            ciot_duration(ciot_progress_elapsed(p), e, sizeof e), ciot_duration(left, l, sizeof l));
    fflush(stderr);
}

/* Seconds of ciot bw: per thread count, a warm-up and reps repetitions of each kind in each of its plans (read
 * and update 4, copy_nt 2, write and copy 1), each whole passes over its buffer lasting at least ms, at a share
 * of read_gbs (the rate on all the cores), after the buffer's first touch. */
static double bw_estimate(int thread_counts, int cores, int reps, double ms, double read_gbs) {
    const double bytes = (double)ciot_cold_bytes(), full = read_gbs > 0 ? read_gbs * 1e9 : 1e10;
    double seconds = 2 * bytes / full;
    for (int c = 0; c < thread_counts; c++) {
        const int t = c + 1 < thread_counts ? 1 : cores;
        const double pass = bytes / (full * t / cores);
        seconds += (reps + 1) * 12 * (pass > ms * 1e-3 ? pass : ms * 1e-3);
    }
    return seconds;
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

/* Every module of a --peer list loads (its types are checked by the bench's estimate); -1, or 2 after one line. */
static int peers_loadable(const char *list) {
    char item[4096], why[4352];
    for (const char *p = list; *p;) {
        const size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        item[strcspn(item, ":")] = 0;
        ciot_peer *m;
        if (ciot_peer_open(item, &m, why, sizeof why) != CIOT_OK) {
            ciot_say("suite", "--peer %s", why);
            return 2;
        }
        ciot_peer_close(m);
        p += len + (p[len] == ',');
    }
    return -1;
}

/* DIR made new under RESULTS and marked INCOMPLETE; 0, or 2 after one line on stderr. */
static int make_run_folder(const char *results, const ciot_context *ctx, int quick, char *dir, size_t len) {
    char day[32], why[CIOT_WHY_MAX];
    time_t now = time(NULL);
    strftime(day, sizeof day, "%Y%m%d-%H%M%S", gmtime(&now));
    snprintf(dir, len, "%s/%s-%s-%s%s", results, day, ctx->host, ctx->commit, quick ? "-quick" : "");
    if (ciot_os_mkdir(results) != 0 && errno != EEXIST) {
        ciot_say("suite", "cannot create %s: %s", results, strerror(errno));
        return 2;
    }
    /* A folder made here, never one that exists: every file the suite writes is a new name in it, so none
     * can be an input (the model op list, under profiles/); each part's command checks its own files again. */
    if (ciot_os_mkdir(dir) != 0) {
        ciot_say("suite", "cannot create the run folder %s: %s", dir, strerror(errno));
        return 2;
    }
    if (ciot_run_mark_incomplete(dir, "ciot suite", why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot suite: %s\n", why);
        return 2;
    }
    ciot_say("suite", "run folder %s", dir);
    return 0;
}

/* What the parts share: the thread sweep, the repetitions, and every part's estimated seconds.
 * --quick: every kernel once at all cores, decode and prompt (batches 4 and 64), three short repetitions;
 * the full run adds 1 thread, the spawn pool, the speculative batches and the large model. */
typedef struct {
    const char *peer;   /* --peer, passed to ciot bench */
    int quick, thread_counts;
    char threads[32], all_threads[16];
    const char *sweep, *reps;
    double estimate[STAGES];
} plan;

static void plan_of(const ciot_context *ctx, int quick, plan *p) {
    p->quick = quick;
    snprintf(p->threads, sizeof p->threads, ctx->topo.cores > 1 ? "1,%d" : "%d", ctx->topo.cores);
    snprintf(p->all_threads, sizeof p->all_threads, "%d", ctx->topo.cores);
    p->sweep = quick ? p->all_threads : p->threads, p->reps = quick ? "3" : "5";
    p->thread_counts = quick || ctx->topo.cores == 1 ? 1 : 2;
}

/* ciot bench's argument list, without its --json. */
/* Whether this CPU runs some kernel besides the scalar references. */
static int runs_optimized_kernel(void) {
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (k->reference != k && !ciot_kernel_missing(k, ciot_cpu_features())) return 1;
    }
    return 0;
}

static void bench_args(const plan *p, args *bench) {
    arg(bench, "bench"), arg(bench, "--threads"), arg(bench, p->sweep), arg(bench, "--reps"), arg(bench, p->reps);
    /* the speculative-verification batches (2, 3, 5, 8) beside 4 and 64: Google Benchmark runs once a process,
     * so they are rows of this one run */
    arg(bench, "--batches"), arg(bench, p->quick ? "4,64" : CIOT_SUITE_BATCHES);
    if (p->quick) arg(bench, "--rep-ms"), arg(bench, "20"), arg(bench, "--no-spawn");
    /* a quick run leaves the references out, unless they are all this CPU runs */
    if (p->quick && runs_optimized_kernel()) arg(bench, "--refs"), arg(bench, "none");
    if (p->peer) arg(bench, "--peer"), arg(bench, p->peer);
}

/* Every part's estimate, the bench's from its own argument list; says how long the run will take.
 * Nonzero when the bench arguments were refused: the exit code. */
static int plan_estimate(plan *p, args *bench, int cores) {
    const int quick = p->quick, reps = quick ? 3 : 5;
    int cases = 0;
    double read_gbs = 0;
    const int rc = ciot_bench_estimate(bench->n, bench->v, &p->estimate[STAGE_BENCH], &cases, &read_gbs);
    if (rc >= 0) return rc ? rc : 1;
    p->estimate[STAGE_BW] = bw_estimate(p->thread_counts, cores, reps, 50, read_gbs);
    p->estimate[STAGE_COMPUTE] = compute_estimate(p->thread_counts, reps, quick ? 50 : 200);
    p->estimate[STAGE_REPLAY] = quick ? 15 : 90;
    char d[32];
    ciot_say("suite", "%s run: %d benchmark cases, about %s in all", quick ? "a quick" : "a full", cases,
             ciot_duration(p->estimate[0] + p->estimate[1] + p->estimate[2] + p->estimate[3], d, sizeof d));
    return 0;
}

/* The probe parts: ciot bw, then ciot compute, each into its JSON in DIR; nonzero when one failed. */
static int run_probes(const plan *p, const char *dir, ciot_progress *progress) {
    char path[2200];
    int failed = 0;
    stage(STAGE_BW, "DRAM bandwidth probe (ciot bw)", progress, p->estimate);
    args a = {0};
    arg(&a, "bw"), arg(&a, "--threads"), arg(&a, p->sweep), arg(&a, "--reps"), arg(&a, p->reps), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/bw.json", dir), arg(&a, path);
    failed |= ciot_cmd_bw(a.n, a.v) != 0;

    stage(STAGE_COMPUTE, "compute probe (ciot compute)", progress, p->estimate);
    a = (args){0};
    arg(&a, "compute"), arg(&a, "--threads"), arg(&a, p->sweep), arg(&a, "--reps"), arg(&a, p->reps), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/compute.json", dir), arg(&a, path);
    if (p->quick) arg(&a, "--ms"), arg(&a, "50");
    failed |= ciot_cmd_compute(a.n, a.v) != 0;
    return failed;
}

/* The kernel benchmarks into DIR/bench.json, their rows kept for the summary; nonzero when it failed. */
static int run_bench(const plan *p, const char *dir, args *bench, ciot_progress *progress, ciot_bench_row *rows,
                     int *nrows) {
    char path[2200];
    stage(STAGE_BENCH, "kernel benchmarks, each repetition paired with a probe sample (ciot bench)", progress, p->estimate);
    arg(bench, "--json");
    snprintf(path, sizeof path, "%s/bench.json", dir), arg(bench, path);
    return ciot_bench_main(bench->n, bench->v, rows, MAX_ROWS, nrows) != 0;
}

/* The model replay into DIR/replay.json; nonzero when it failed. */
static int run_replay(const plan *p, const char *dir, ciot_progress *progress) {
    char path[2200];
    stage(STAGE_REPLAY, "model replay, each token paired with a probe sample (ciot replay)", progress, p->estimate);
    args a = {0};
    arg(&a, "replay"), arg(&a, "--model"), arg(&a, p->quick ? "tiny-0.6b" : "bonsai-2-27b"), arg(&a, "--threads");
    arg(&a, p->all_threads), arg(&a, "--dispatch"), arg(&a, "all"), arg(&a, "--tokens");
    arg(&a, p->quick ? "3" : "5"), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/replay.json", dir), arg(&a, path);
    return ciot_cmd_replay(a.n, a.v) != 0;
}

/* After the parts: context.json again, the summaries, and the folder marked complete when nothing failed. */
static int finish(const char *dir, ciot_context *ctx, int quick, const ciot_bench_row *rows, int nrows, int failed) {
    char kernels[2048], why[CIOT_WHY_MAX];
    ciot_context_finish(ctx); /* the load average after, rewritten whole over the first context.json */
    if (write_context(dir, ctx, quick) != CIOT_OK) failed = 1;

    failed |= ciot_suite_write_summaries(dir, rows, nrows, ctx, quick, chosen_gemms(kernels, sizeof kernels, ctx->topo.cores));
    printf("\nrun folder: %s\n", dir);
    if (failed) ciot_say("suite", "a part failed (see above); what finished is in %s, marked INCOMPLETE", dir);
    else if (ciot_run_mark_complete(dir, why, sizeof why) != CIOT_OK) fprintf(stderr, "ciot suite: %s\n", why), failed = 1;
    return failed ? 1 : 0;
}

int ciot_cmd_suite(int argc, char **argv) {
    int quick = 0, estimate_only = 0;
    const char *peer = NULL;
    const char *results = CIOT_SOURCE_DIR "/results";
    const ciot_opt opts[] = {
        {"--quick", CIOT_OPT_FLAG, &quick, 0, 0, NULL, NULL,
         "a first look in about a minute: every kernel once at all cores, gemv and the gemm at\n"
         "batches 4 and 64, 3 short repetitions, no references, a small model replay (the\n"
         "same shapes; the working set guarded against an implausible LLC: ciot info)", NULL},
        {"--results", CIOT_OPT_STRING, &results, 0, 0, NULL, "DIR", "where the run folder goes (default results/ of the source tree)", NULL},
        {"--peer", CIOT_OPT_LIST, &peer, 0, 0, NULL, "LIST",
         "a runtime's own types beside the kernels (ciot bench --peer: MODULE or MODULE:TYPE)", NULL},
        {"--estimate", CIOT_OPT_FLAG, &estimate_only, 0, 0, NULL, NULL, "say how long the run would take, and run nothing", NULL},
    };
    const ciot_cmdline c = {"suite", "[--quick] [--results DIR] [--peer LIST] [--estimate]",
                            "probe, compute probe, kernel benchmarks at 1 and all threads, the speculative-\n"
                            "verification batches (2, 3, 4, 5, 8) of each source file's chosen gemm, and a replay,\n"
                            "into DIR/<date>-<host>-<commit>/ with a summary table (results/SCHEMA.md)",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    if (peer && (rc = peers_loadable(peer)) >= 0) return rc;   /* before the run folder */
    if (quick) ciot_rules_guard_llc();   /* before the context, which records the rule */
    ciot_tuning_use("suite");
    ciot_context ctx;
    ciot_context_collect(&ctx);
    /* the run folder first: a --results that cannot hold it is refused before anything is said or measured */
    char dir[2048];
    if (!estimate_only && (rc = make_run_folder(results, &ctx, quick, dir, sizeof dir)) != 0) return rc;
    plan p;
    plan_of(&ctx, quick, &p);
    p.peer = peer;
    args bench = {0};
    bench_args(&p, &bench);
    if ((rc = plan_estimate(&p, &bench, ctx.topo.cores)) != 0) return rc;
    if (estimate_only) return 0;
    if (write_context(dir, &ctx, quick) != CIOT_OK) return 1;
    ciot_progress progress;
    ciot_progress_start(&progress, 0);

    static ciot_bench_row rows[MAX_ROWS];
    int nrows = 0, failed = run_probes(&p, dir, &progress);
    failed |= run_bench(&p, dir, &bench, &progress, rows, &nrows);
    failed |= run_replay(&p, dir, &progress);
    char d[32];
    ciot_say("suite", "the parts took %s", ciot_duration(ciot_progress_elapsed(&progress), d, sizeof d));
    return finish(dir, &ctx, quick, rows, nrows, failed);
}
