/* ciot suite: the default measurement of this machine into one run folder
 * results/<date>-<host>-<commit>/: DRAM probe, compute probe, kernel benchmarks at 1 and all threads,
 * a short model replay, raw JSON per part, then a markdown summary on stdout and in summary.md. */
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
#include "json.h"
#include "registry.h"

enum { MAX_ROWS = 512 };

static int usage(FILE *f, int code) {
    fprintf(f, "usage: ciot suite [--quick] [--results DIR]\n"
               "  probe, compute probe, kernel benchmarks at 1 and all threads, and a short replay, into\n"
               "  DIR/<date>-<host>-<commit>/ (DIR defaults to results/ of the source tree)\n"
               "  --quick   a one-minute version (smaller shapes, fewer repetitions)\n");
    return code;
}

/* argv for a subcommand, built from a printf-style list of words. */
typedef struct { char *v[32]; int n; char buf[4096]; size_t used; } args;
static void arg(args *a, const char *s) {
    size_t len = strlen(s) + 1;
    if (a->n >= 31 || a->used + len > sizeof a->buf) return;
    a->v[a->n++] = memcpy(a->buf + a->used, s, len);
    a->used += len;
    a->v[a->n] = NULL;
}

static void stage(int i, int n, const char *what) {
    fprintf(stderr, "\n[%d/%d] %s\n", i, n, what);
    fflush(stderr);
}

static const ciot_bench_row *stock_for(const ciot_bench_row *rows, int n, const ciot_bench_row *r) {
    /* the stock kernel at the same threads and pool: the fastest pq2_0 gemv measured */
    const ciot_bench_row *best = NULL;
    for (int i = 0; i < n; i++)
        if (!strncmp(rows[i].kernel, "pq2_0_gemv", 10) && rows[i].threads == r->threads && !strcmp(rows[i].pool, r->pool) &&
            (!best || rows[i].gw_median > best->gw_median))
            best = &rows[i];
    return best;
}

static void summary(FILE *f, const ciot_bench_row *rows, int n, const ciot_context *c) {
    fprintf(f, "## ciot suite: %s, %s, commit %s%s, %s\n\n", c->host, c->cpu, c->commit, c->dirty > 0 ? " (dirty)" : "", c->date);
    fprintf(f, "| kernel | threads | pool | batch | Gweights/s median (min - max) | GB/s | %% of ceiling | x stock |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i], *s = stock_for(rows, n, r);
        char speed[32] = "-";
        if (s && r->batch == 1) snprintf(speed, sizeof speed, "%.2f", r->gw_median / s->gw_median);
        fprintf(f, "| %s | %d | %s | %d | %.1f (%.1f - %.1f) | %.1f | %.0f%% | %s |\n", r->kernel, r->threads, r->pool,
                r->batch, r->gw_median, r->gw_min, r->gw_max, r->gbs_median,
                100 * r->ratio_median, speed);
    }
    fprintf(f, "\nGB/s counts packed weight bytes (scales included). Ceiling: read-probe median at the same thread "
               "count, measured in the same process. Gemm rows are GMAC/s = Gweights/s x batch.\n");
}

int ciot_cmd_suite(int argc, char **argv) {
    int quick = 0;
    const char *results = CIOT_SOURCE_DIR "/results";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--results") && i + 1 < argc) results = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout, 0);
        else {
            fprintf(stderr, "ciot suite: unknown option '%s'\n", argv[i]);
            return usage(stderr, 2);
        }
    }
    ciot_context ctx;
    ciot_context_collect(&ctx);
    char day[32], dir[2048], path[2200];
    time_t now = time(NULL);
    strftime(day, sizeof day, "%Y%m%d-%H%M%S", gmtime(&now));
    snprintf(dir, sizeof dir, "%s/%s-%s-%s%s", results, day, ctx.host, ctx.commit, quick ? "-quick" : "");
    if (mkdir(results, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ciot suite: cannot create %s: %s\n", results, strerror(errno));
        return 2;
    }
    if (mkdir(dir, 0755) != 0) {
        fprintf(stderr, "ciot suite: cannot create the run folder %s: %s\n", dir, strerror(errno));
        return 2;
    }
    fprintf(stderr, "ciot suite: run folder %s\n", dir);
    snprintf(path, sizeof path, "%s/context.json", dir);
    ciot_json *j;
    if (ciot_json_open(path, &j) != CIOT_OK) {
        fprintf(stderr, "ciot suite: cannot write %s\n", path);
        return 2;
    }
    ciot_json_begin_object(j);
    ciot_context_write(j, &ctx);
    ciot_json_kv_bool(j, "quick", quick);
    ciot_json_end_object(j);
    ciot_json_close(j);

    char threads[32];
    char all_threads[16];
    snprintf(threads, sizeof threads, ctx.topo.cores > 1 ? "1,%d" : "%d", ctx.topo.cores);
    snprintf(all_threads, sizeof all_threads, "%d", ctx.topo.cores);
    const int stages = 4;
    int failed = 0;

    stage(1, stages, "DRAM bandwidth probe (ciot bw)");
    args a = {0};
    arg(&a, "bw"), arg(&a, "--threads"), arg(&a, threads), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/bw.json", dir), arg(&a, path);
    if (quick) arg(&a, "--size"), arg(&a, "256M"), arg(&a, "--reps"), arg(&a, "3");
    failed |= ciot_cmd_bw(a.n, a.v) != 0;

    stage(2, stages, "int8 compute probe (ciot compute)");
    a = (args){0};
    arg(&a, "compute"), arg(&a, "--threads"), arg(&a, threads), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/compute.json", dir), arg(&a, path);
    if (quick) arg(&a, "--reps"), arg(&a, "3");
    failed |= ciot_cmd_compute(a.n, a.v) != 0;

    stage(3, stages, "kernel benchmarks (ciot bench)");
    a = (args){0};
    arg(&a, "bench"), arg(&a, "--threads"), arg(&a, threads), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/bench.json", dir), arg(&a, path);
    if (quick) {
        arg(&a, "--shape"), arg(&a, "8192x8192"), arg(&a, "--gemm-shape"), arg(&a, "4096x5120");
        arg(&a, "--working-set"), arg(&a, "512M"), arg(&a, "--ceiling-size"), arg(&a, "256M");
        arg(&a, "--benchmark_min_time=0.05"), arg(&a, "--benchmark_repetitions=3");
    }
    static ciot_bench_row rows[MAX_ROWS];
    int nrows = 0;
    failed |= ciot_bench_main(a.n, a.v, rows, MAX_ROWS, &nrows) != 0;

    stage(4, stages, "model replay (ciot replay)");
    a = (args){0};
    arg(&a, "replay"), arg(&a, "--model"), arg(&a, quick ? "tiny-0.6b" : "bonsai-2-27b"), arg(&a, "--threads");
    arg(&a, all_threads), arg(&a, "--dispatch"), arg(&a, "all"), arg(&a, "--tokens");
    arg(&a, quick ? "2" : "3"), arg(&a, "--json");
    snprintf(path, sizeof path, "%s/replay.json", dir), arg(&a, path);
    failed |= ciot_cmd_replay(a.n, a.v) != 0;

    snprintf(path, sizeof path, "%s/summary.md", dir);
    char tmp[2300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f) {
        summary(f, rows, nrows, &ctx);
        if (fclose(f) == 0) rename(tmp, path);
    }
    printf("\n");
    summary(stdout, rows, nrows, &ctx);
    printf("\nrun folder: %s\n", dir);
    if (failed) fprintf(stderr, "ciot suite: a part failed (see above); what finished is in %s\n", dir);
    return failed ? 1 : 0;
}
