/* ciot replay: one decoded token of a model, op by op, on the persistent pool, in the static, chunks
 * and fused dispatches; per op and per thread, the time working apart from the time at the barrier.
 * Every input is checked before the long work (ceiling probe, weight allocation, tokens) starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "cli.h"
#include "commands.h"
#include "context.h"
#include "cpu.h"
#include "json.h"
#include "model.h"
#include "pool.h"
#include "probe_bw.h"
#include "registry.h"
#include "replay.h"
#include "replay_report.h"
#include "topo.h"

enum { MAX_THREADS = 1024, MAX_TOKENS = 100000, CEILING_REPS = 5 };
static const size_t GIB = (size_t)1 << 30;

enum { MEM_AUTO = -1 };     /* --memory auto, settled by settle_memory */

typedef struct {
    const char *model, *kernel, *json;
    int threads, tokens, batch, chunk, ops, pin, per_op;
    ciot_dispatch dispatch[CIOT_DISPATCH_N];
    int n_dispatch;
    int memory;                 /* ciot_memory, or MEM_AUTO */
    int straggler;
    double straggler_us;
    size_t ceiling_bytes, ring_bytes;
} replay_opts;

static int usage(FILE *f, int code) {
    fprintf(f,
            "usage: ciot replay --model NAME|FILE [options]\n"
            "  --model NAME|FILE    profiles/NAME.ops of the source tree, or an op-list file (profiles/README.md)\n"
            "  --kernel NAME        the kernel (default: the best this CPU runs for the t2p layout; with\n"
            "                       --batch > 1 the best gemm kernel of the named kernel's layout)\n"
            "  --threads T          threads of the persistent pool (default: the cores)\n"
            "  --dispatch D         static (one slice per thread, one barrier per op), chunks (atomic row\n"
            "                       chunks, two barriers per op), fused (gate+up and q+k+v as one matvec,\n"
            "                       static), or all three interleaved per token (default all)\n"
            "  --tokens N           measured tokens after one warm-up token (default 5)\n"
            "  --batch B            activation rows: prompt processing with the layout's gemm kernel (default 1)\n"
            "  --memory M           full (the whole model), ring (a region of at least 4x the last-level cache\n"
            "                       the ops take turns through) or auto: full when the model fits in 60%% of\n"
            "                       the available memory and is at least 4x the LLC, else ring (default auto)\n"
            "  --straggler T:US     delay thread T by US microseconds at every op (busy-wait inside its work)\n"
            "  --chunk N            tiles (4-row groups) per chunk in chunks dispatch (default 16)\n"
            "  --ops N              replay only the first N ops (quick runs)\n"
            "  --per-op             one table line per op instead of per op kind\n"
            "  --json FILE          everything as JSON (written to FILE.tmp.<pid>, renamed when complete)\n"
            "  --no-pin             do not pin threads to cores\n"
            "  --ceiling-size BYTES buffer of the read-ceiling probe (default max(1G, 4x LLC), within half of memory)\n"
            "  --ring-size BYTES    the ring region (default max(4x LLC, 1G) + the largest matvec)\n");
    return code;
}

static int bad(const char *fmt, const char *arg) {
    fprintf(stderr, "ciot replay: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (ciot replay --help)\n");
    return 2;
}

static int parse_dispatch(const char *v, replay_opts *o) {
    o->n_dispatch = 0;
    if (!strcmp(v, "all")) {
        for (int d = 0; d < CIOT_DISPATCH_N; d++) o->dispatch[o->n_dispatch++] = (ciot_dispatch)d;
        return 1;
    }
    for (int d = 0; d < CIOT_DISPATCH_N; d++)
        if (!strcmp(v, ciot_dispatch_name((ciot_dispatch)d))) {
            o->dispatch[o->n_dispatch++] = (ciot_dispatch)d;
            return 1;
        }
    return 0;
}

static int parse_straggler(const char *v, replay_opts *o) {
    char *end;
    long t = strtol(v, &end, 10);
    if (end == v || *end != ':' || t < 0 || t >= MAX_THREADS) return 0;
    const char *us = end + 1;
    double d = strtod(us, &end);
    if (end == us || *end || !(d > 0) || d > 1e6) return 0;
    o->straggler = (int)t, o->straggler_us = d;
    return 1;
}

/* Returns -1 when the options are fine, else the exit code. */
static int parse_args(int argc, char **argv, replay_opts *o) {
    *o = (replay_opts){.tokens = 5, .batch = 1, .chunk = 16, .pin = 1, .memory = MEM_AUTO, .straggler = -1};
    parse_dispatch("all", o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0);
        if (!strcmp(a, "--no-pin")) { o->pin = 0; continue; }
        if (!strcmp(a, "--per-op")) { o->per_op = 1; continue; }
        if (strncmp(a, "--", 2)) return bad("unexpected argument '%s'", a);
        if (i + 1 >= argc) return bad("%s needs a value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--model")) o->model = v;
        else if (!strcmp(a, "--kernel")) o->kernel = v;
        else if (!strcmp(a, "--json")) o->json = v;
        else if (!strcmp(a, "--threads")) {
            if (ciot_parse_int(v, 1, MAX_THREADS, &o->threads) != CIOT_OK)
                return bad("--threads '%s' is not a thread count from 1 to 1024", v);
        } else if (!strcmp(a, "--tokens")) {
            if (ciot_parse_int(v, 1, MAX_TOKENS, &o->tokens) != CIOT_OK)
                return bad("--tokens '%s' is not a count >= 1", v);
        } else if (!strcmp(a, "--batch")) {
            if (ciot_parse_int(v, 1, 4096, &o->batch) != CIOT_OK)
                return bad("--batch '%s' is not a count from 1 to 4096", v);
        } else if (!strcmp(a, "--chunk")) {
            if (ciot_parse_int(v, 1, 1 << 28, &o->chunk) != CIOT_OK)
                return bad("--chunk '%s' is not a count of tiles >= 1", v);
        } else if (!strcmp(a, "--ops")) {
            if (ciot_parse_int(v, 1, 1 << 28, &o->ops) != CIOT_OK) return bad("--ops '%s' is not a count >= 1", v);
        } else if (!strcmp(a, "--dispatch")) {
            if (!parse_dispatch(v, o)) return bad("--dispatch '%s': the dispatches are static, chunks, fused, all", v);
        } else if (!strcmp(a, "--memory")) {
            if (!strcmp(v, "full")) o->memory = CIOT_MEMORY_FULL;
            else if (!strcmp(v, "ring")) o->memory = CIOT_MEMORY_RING;
            else if (!strcmp(v, "auto")) o->memory = MEM_AUTO;
            else return bad("--memory '%s': the choices are full, ring, auto", v);
        } else if (!strcmp(a, "--straggler")) {
            if (!parse_straggler(v, o)) return bad("--straggler '%s' is not THREAD:MICROSECONDS (e.g. 1:200)", v);
        } else if (!strcmp(a, "--ceiling-size")) {
            if (ciot_parse_size(v, &o->ceiling_bytes) != CIOT_OK || o->ceiling_bytes < (1u << 20))
                return bad("--ceiling-size '%s' is not a size of at least 1M", v);
        } else if (!strcmp(a, "--ring-size")) {
            if (ciot_parse_size(v, &o->ring_bytes) != CIOT_OK || o->ring_bytes < (1u << 20))
                return bad("--ring-size '%s' is not a size of at least 1M", v);
        } else {
            return bad("unknown option '%s'", a);
        }
    }
    if (!o->model) return bad("%s", "--model NAME|FILE is required (e.g. --model bonsai-2-27b)");
    return -1;
}

/* The kernel: named, or the best for t2p; a gemv kernel with batch > 1 gives way to its layout's gemm. */
static int pick_kernel(const replay_opts *o, const ciot_kernel **out) {
    const unsigned cpu = ciot_cpu_features();
    const ciot_kernel *k = NULL;
    if (o->kernel) {
        if (!(k = ciot_kernel_find(o->kernel))) return bad("unknown kernel '%s' (ciot kernels lists them)", o->kernel);
        unsigned missing = ciot_kernel_missing(k, cpu);
        if (missing) {
            char need[128];
            ciot_feature_list(missing, need, sizeof need);
            fprintf(stderr, "ciot replay: kernel %s needs %s, which this CPU lacks (ciot kernels)\n", k->name, need);
            return 2;
        }
    } else {
        k = ciot_kernel_best(&ciot_layout_t2p, o->batch > 1 ? CIOT_OP_GEMM : CIOT_OP_GEMV, cpu);
    }
    if (k && o->batch > 1 && k->op == CIOT_OP_GEMV) {
        const ciot_kernel *g = ciot_kernel_best(k->layout, CIOT_OP_GEMM, cpu);
        if (!g) {
            fprintf(stderr, "ciot replay: --batch %d needs a gemm kernel, and the %s layout has none\n", o->batch,
                    k->layout->name);
            return 2;
        }
        k = g;
    }
    if (!k) {
        fprintf(stderr, "ciot replay: no kernel for the t2p layout runs on this CPU\n");
        return 2;
    }
    *out = k;
    return -1;
}

/* Settles full or ring against the memory available; returns -1 when it fits, else the exit code. */
static int settle_memory(const replay_opts *o, const ciot_model *m, int n_ops, const ciot_layout *l,
                         ciot_replay_opts *ro, size_t *region, int *cold) {
    size_t full, group, ring;
    ciot_replay_sizes(m, n_ops, l, &full, &group, &ring);
    if (o->ring_bytes) ring = o->ring_bytes;
    const size_t avail = ciot_mem_available(), fit = avail / 10 * 9, cold_min = 4 * ciot_topo_llc_bytes(NULL);
    char b1[32], b2[32];
    int mem = o->memory;
    if (mem == MEM_AUTO) {
        const int full_ok = !avail || full <= avail / 10 * 6;
        if (full_ok && full >= cold_min) mem = CIOT_MEMORY_FULL;
        else if (!avail || ring <= fit) mem = CIOT_MEMORY_RING;
        else if (full_ok) mem = CIOT_MEMORY_FULL;
        else mem = CIOT_MEMORY_RING;     /* refused below */
    }
    if (mem == CIOT_MEMORY_RING && ring < group) {
        fprintf(stderr, "ciot replay: --ring-size %s is smaller than the largest matvec (%s)\n",
                ciot_format_bytes(ring, b1, sizeof b1), ciot_format_bytes(group, b2, sizeof b2));
        return 2;
    }
    *region = mem == CIOT_MEMORY_FULL ? full : ring;
    if (avail && *region > fit) {
        fprintf(stderr, "ciot replay: %s of %s needs %.2f GiB of weights, but %.2f GiB is available (MemAvailable)%s\n",
                mem == CIOT_MEMORY_FULL ? "the whole model" : "the ring", m->path, (double)*region / GIB,
                (double)avail / GIB, mem == CIOT_MEMORY_FULL ? "; try --memory ring" : "");
        return 2;
    }
    ro->memory = (ciot_memory)mem;
    ro->ring_bytes = ring;
    *cold = *region >= group + cold_min;
    return -1;
}

static size_t default_ceiling_bytes(void) {
    size_t llc = ciot_topo_llc_bytes(NULL), size = GIB, avail = ciot_mem_available();
    if (4 * llc > size) size = (4 * llc + (2u << 20) - 1) / (2u << 20) * (2u << 20);
    if (avail && size > avail / 2) size = avail / 2 / (2u << 20) * (2u << 20);
    return size;
}

/* The read probe's median GB/s (0 when it failed); its fastest repetition into *max. */
static double measure_ceiling(ciot_pool *pool, size_t bytes, double *max) {
    void *buf;
    ciot_bw_result r;
    *max = 0;
    if (ciot_bw_buffer_alloc(pool, bytes, 1, &buf) != CIOT_OK) return 0;
    ciot_status st = ciot_bw_measure(pool, CIOT_BW_READ, buf, bytes, CEILING_REPS, &r);
    ciot_bw_buffer_free(buf, bytes);
    if (st != CIOT_OK) return 0;
    *max = r.max_gbs;
    return r.median_gbs;
}

typedef struct {
    ciot_replay_record *recs[CIOT_DISPATCH_N];  /* tokens records per dispatch */
    ciot_replay_record warm;
    double *off_ms;
} records;

static void records_free(records *rs, int tokens) {
    for (int d = 0; d < CIOT_DISPATCH_N; d++) {
        for (int k = 0; rs->recs[d] && k < tokens; k++) ciot_replay_record_free(&rs->recs[d][k]);
        free(rs->recs[d]);
    }
    ciot_replay_record_free(&rs->warm);
    free(rs->off_ms);
}

static ciot_status records_alloc(records *rs, const replay_opts *o, const ciot_replay *r, int threads) {
    memset(rs, 0, sizeof *rs);
    int most = 0;
    ciot_status st = CIOT_OK;
    for (int i = 0; i < o->n_dispatch && st == CIOT_OK; i++) {
        const ciot_dispatch d = o->dispatch[i];
        const int steps = ciot_replay_steps(r, d, NULL);
        most = steps > most ? steps : most;
        if (!(rs->recs[d] = calloc((size_t)o->tokens, sizeof *rs->recs[d]))) return CIOT_E_NOMEM;
        for (int k = 0; k < o->tokens && st == CIOT_OK; k++)
            st = ciot_replay_record_alloc(&rs->recs[d][k], steps, threads);
    }
    if (st == CIOT_OK) st = ciot_replay_record_alloc(&rs->warm, most, threads);
    if (st == CIOT_OK && !(rs->off_ms = calloc((size_t)o->tokens, sizeof *rs->off_ms))) st = CIOT_E_NOMEM;
    return st;
}

/* Token 0 warms up; then every token runs each dispatch with timing on, then the first dispatch with
 * timing off (the profiler's own cost), interleaved so drift hits all alike. */
static void run_tokens(const replay_opts *o, ciot_replay *r, ciot_pool *pool, records *rs) {
    for (int k = 0; k <= o->tokens; k++) {
        if (k) fprintf(stderr, "ciot replay: token %d/%d:", k, o->tokens);
        else fprintf(stderr, "ciot replay: warm-up:");
        for (int i = 0; i < o->n_dispatch; i++) {
            const ciot_dispatch d = o->dispatch[i];
            const uint64_t ns = ciot_replay_token(r, pool, d, k ? &rs->recs[d][k - 1] : &rs->warm);
            fprintf(stderr, "%s %s %.1f ms", i ? "," : "", ciot_dispatch_name(d), (double)ns * 1e-6);
        }
        const uint64_t off = ciot_replay_token(r, pool, o->dispatch[0], NULL);
        if (k) rs->off_ms[k - 1] = (double)off * 1e-6 / o->batch;
        fprintf(stderr, "; %s without timing %.1f ms\n", ciot_dispatch_name(o->dispatch[0]), (double)off * 1e-6);
    }
}

/* Summaries of the measured tokens, the table on stdout and the JSON file; returns the exit code. */
static int report(const replay_opts *o, const ciot_model *m, const ciot_kernel *kernel, const ciot_replay *r,
                  const records *rs, const ciot_replay_opts *ro, const ciot_pool_info *info, double ceiling,
                  double ceiling_max, double ceiling_end, size_t ceiling_bytes, int cold) {
    ciot_run_stats runs[CIOT_DISPATCH_N] = {0};
    const double off_median = ciot_median(rs->off_ms, o->tokens), off_min = rs->off_ms[0];   /* sorted now */
    ciot_replay_report rep = {
        .model = m, .n_ops = ro->n_ops, .kernel = kernel, .threads = info->threads, .pinned = info->pinned,
        .batch = o->batch, .tokens = o->tokens, .chunk = o->chunk, .memory = ro->memory, .cold = cold,
        .memory_bytes = ciot_replay_memory_bytes(r), .weight_bytes = ciot_replay_weight_bytes(r),
        .ceiling_gbs = ceiling, .ceiling_max_gbs = ceiling_max, .ceiling_end_gbs = ceiling_end, .ceiling_buffer = ceiling_bytes,
        .ceiling_reps = CEILING_REPS, .overhead_dispatch = o->dispatch[0], .overhead_off_ms = off_median,
        .overhead_off_min_ms = off_min,
        .straggler = o->straggler, .straggler_us = o->straggler_us, .runs = runs, .n_runs = o->n_dispatch,
    };
    ciot_status st = CIOT_OK;
    for (int i = 0; i < o->n_dispatch && st == CIOT_OK; i++) {
        const ciot_dispatch d = o->dispatch[i];
        const ciot_replay_step *steps;
        const int n = ciot_replay_steps(r, d, &steps);
        st = ciot_run_stats_compute(d, rs->recs[d], o->tokens, steps, n, info->threads, o->batch, rep.weight_bytes,
                                    ceiling, &runs[i]);
    }
    int rc = 0;
    if (st != CIOT_OK) {
        fprintf(stderr, "ciot replay: out of memory for the summaries\n");
        rc = 1;
    } else {
        rep.overhead_on_ms = runs[0].ms_median;
        rep.overhead_on_min_ms = runs[0].ms_min;
        ciot_replay_print(stdout, &rep, o->per_op);
        if (o->json) {
            ciot_context ctx;
            ciot_context_collect(&ctx);
            if ((st = ciot_replay_write_json(o->json, &rep, &ctx)) != CIOT_OK) {
                fprintf(stderr, "ciot replay: could not write '%s': %s\n", o->json, ciot_status_str(st));
                rc = 1;
            }
        }
    }
    for (int i = 0; i < CIOT_DISPATCH_N; i++) ciot_run_stats_free(&runs[i]);
    return rc;
}

int ciot_cmd_replay(int argc, char **argv) {
    replay_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;

    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    if (ciot_model_load(o.model, &m, err, sizeof err) != CIOT_OK) {
        fprintf(stderr, "ciot replay: %s\n", err);
        return 2;
    }
    const ciot_kernel *kernel = NULL;
    ciot_replay_opts ro = {0};
    size_t region = 0;
    int cold = 0;
    const int cores = ciot_topo_cores(), threads = o.threads ? o.threads : cores;
    const int n_ops = o.ops ? o.ops : m.n_ops;
    if (o.ops > m.n_ops) {
        fprintf(stderr, "ciot replay: --ops %d, but %s has %d ops\n", o.ops, m.path, m.n_ops);
        rc = 2;
    } else if (o.straggler >= threads) {
        fprintf(stderr, "ciot replay: --straggler thread %d, but the pool has threads 0..%d\n", o.straggler,
                threads - 1);
        rc = 2;
    } else if ((rc = pick_kernel(&o, &kernel)) < 0) {
        if (ciot_model_check(&m, n_ops, kernel->layout, err, sizeof err) != CIOT_OK) {
            fprintf(stderr, "ciot replay: %s (kernel %s)\n", err, kernel->name);
            rc = 2;
        } else {
            rc = settle_memory(&o, &m, n_ops, kernel->layout, &ro, &region, &cold);
        }
    }
    const size_t ceiling_bytes = o.ceiling_bytes ? o.ceiling_bytes : default_ceiling_bytes();
    const size_t avail = ciot_mem_available();
    if (rc < 0 && avail && ceiling_bytes > avail / 10 * 9) {
        fprintf(stderr, "ciot replay: --ceiling-size %.2f GiB does not fit: %.2f GiB available\n",
                (double)ceiling_bytes / GIB, (double)avail / GIB);
        rc = 2;
    }
    if (rc < 0 && o.json) {    /* a file we cannot write is refused now, not after the run */
        ciot_json *j;
        if (ciot_json_open(o.json, &j) != CIOT_OK) {
            fprintf(stderr, "ciot replay: cannot write '%s.tmp.*' for --json\n", o.json);
            rc = 2;
        } else {
            ciot_json_discard(j);
        }
    }
    if (rc >= 0) {
        ciot_model_free(&m);
        return rc;
    }
    if (threads > cores)
        fprintf(stderr, "ciot replay: warning: %d threads on %d cores; waits will include time-sharing\n", threads,
                cores);
    if (!cold)
        fprintf(stderr, "ciot replay: warning: %.2f GiB of weights is less than 4x the last-level cache plus the "
                        "largest matvec; ops may be served partly from cache\n", (double)region / GIB);

    ro.model = &m;
    ro.n_ops = n_ops;
    ro.kernel = kernel;
    ro.batch = o.batch;
    ro.chunk = o.chunk;
    ro.straggler = o.straggler;
    ro.straggler_us = o.straggler_us;

    ciot_pool *pool = NULL;
    ciot_replay *r = NULL;
    records rs = {0};
    ciot_pool_opts po = {.threads = threads, .pin = o.pin};
    ciot_status st = ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &pool);
    if (st != CIOT_OK) {
        fprintf(stderr, "ciot replay: cannot create a pool of %d threads: %s\n", threads, ciot_status_str(st));
        ciot_model_free(&m);
        return 1;
    }
    ciot_pool_info info;
    ciot_pool_get_info(pool, &info);

    fprintf(stderr, "ciot replay: read ceiling on %d thread%s (%.2f GiB buffer, %d reps)\n", threads,
            threads > 1 ? "s" : "", (double)ceiling_bytes / GIB, CEILING_REPS);
    double ceiling_max;
    const double ceiling = measure_ceiling(pool, ceiling_bytes, &ceiling_max);
    if (ceiling <= 0) fprintf(stderr, "ciot replay: warning: the ceiling probe failed; no %% of ceiling\n");

    fprintf(stderr, "ciot replay: allocating %.2f GiB of weights (%s: %s) and filling them\n", (double)region / GIB,
            ro.memory == CIOT_MEMORY_FULL ? "full" : "ring",
            ro.memory == CIOT_MEMORY_FULL ? "the whole model, one place per op" : "ops take turns through it");
    st = ciot_replay_create(&ro, threads, &r);
    if (st == CIOT_OK) st = records_alloc(&rs, &o, r, threads);
    if (st != CIOT_OK) {
        fprintf(stderr, "ciot replay: cannot allocate the weights and activations: %s\n", ciot_status_str(st));
        rc = 1;
    } else {
        run_tokens(&o, r, pool, &rs);
        /* The probe again, beside the weights when both fit: on a shared machine the two readings show
         * how far the ceiling drifted during the run. */
        const size_t now_avail = ciot_mem_available();
        double ceiling_end = -1;
        if (!now_avail || ceiling_bytes <= now_avail / 10 * 9) {
            fprintf(stderr, "ciot replay: read ceiling again after the tokens\n");
            double unused;
            ceiling_end = measure_ceiling(pool, ceiling_bytes, &unused);
        }
        rc = report(&o, &m, kernel, r, &rs, &ro, &info, ceiling, ceiling_max, ceiling_end, ceiling_bytes, cold);
    }
    records_free(&rs, o.tokens);
    ciot_replay_destroy(r);
    ciot_pool_destroy(pool);
    ciot_model_free(&m);
    return rc;
}
