/* ciot replay: one decoded token of a model, op by op, on the persistent pool, in the static, chunks
 * and fused dispatches (the whole token: the ops between the matvecs too, at each --context); per op
 * and per thread, the time working apart from the time at the barrier.
 * Every input is checked before the long work (ceiling probe, weight allocation, tokens) starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "cli.h"
#include "measure.h"
#include "opts.h"
#include "output.h"
#include "prefetch.h"
#include "commands.h"
#include "context.h"
#include "cpu.h"
#include "distinct_paths.h"
#include "json.h"
#include "model.h"
#include "op_kernels.h"
#include "pool.h"
#include "probe_bw.h"
#include "registry.h"
#include "replay.h"
#include "replay_report.h"
#include "replay_stats.h"
#include "token_exec.h"
#include "topo.h"

enum { MAX_THREADS = 1024, MAX_TOKENS = 100000, MAX_CONTEXTS = 16, MAX_CONTEXT = 1 << 24, DEFAULT_CONTEXT = 4096 };
enum { MAX_RUNS = CIOT_DISPATCH_N * MAX_CONTEXTS };
static const size_t GIB = (size_t)1 << 30;

enum { MEM_AUTO = 2 };      /* --memory auto (index 2 of full|ring|auto), settled by settle_memory */

typedef struct {
    const char *model, *kernel, *json, *dispatch_name, *straggler_arg, *dump_ops;
    int threads, tokens, batch, chunk, ops, no_pin, per_op, prefetch_off, pages_small;
    ciot_dispatch dispatch[CIOT_DISPATCH_N];
    int n_dispatch;
    int memory;                 /* ciot_memory, or MEM_AUTO */
    int straggler;
    double straggler_us;
    size_t ceiling_bytes, ring_bytes;
    int matvecs_only, dispatch_given, context_given;
    ciot_int_list context;
} replay_opts;

/* One replayed run: a dispatch at a KV length (0 with the matvecs only). */
typedef struct {
    ciot_dispatch d;
    int L;
} run_id;

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
    const char *colon = strchr(v, ':');
    char thread[16];
    if (!colon || colon == v || (size_t)(colon - v) >= sizeof thread) return 0;
    memcpy(thread, v, (size_t)(colon - v));
    thread[colon - v] = 0;
    double us;
    if (ciot_parse_int(thread, 0, MAX_THREADS - 1, &o->straggler) != CIOT_OK || ciot_parse_double(colon + 1, &us) != CIOT_OK ||
        !(us > 0) || us > 1e6)
        return 0;
    o->straggler_us = us;
    return 1;
}

/* Returns -1 when the options are fine, else the exit code. */
static int parse_args(int argc, char **argv, replay_opts *o) {
    *o = (replay_opts){.tokens = 5, .batch = 1, .chunk = 16, .memory = MEM_AUTO, .straggler = -1};
    parse_dispatch("all", o);
    const ciot_opt opts[] = {
        {"--model", CIOT_OPT_STRING, &o->model, 0, 0, NULL, "NAME|FILE",
         "profiles/NAME.ops of the source tree, an op-list file (profiles/README.md), or a\n"
         "GGUF file: its 2-D ternary tensors in block order, their real bytes when they fit", NULL},
        {"--kernel", CIOT_OPT_STRING, &o->kernel, 0, 0, NULL, "NAME",
         "the kernel of every op (a GGUF file: of the ops of its format); with --batch > 1 the\n"
         "best gemm of its layout. Default: per op, the fastest this CPU runs for the op's format\n"
         "(PQ2_0 for op lists) that takes its shape (ciot info: chosen per source file)", NULL},
        {"--threads", CIOT_OPT_INT, &o->threads, 1, MAX_THREADS, NULL, "T", "threads of the persistent pool (default: the cores)", NULL},
        {"--dispatch", CIOT_OPT_STRING, &o->dispatch_name, 0, 0, NULL, "D",
         "static (one slice per thread, one barrier per op), chunks (atomic row chunks, two\n"
         "barriers per op), fused (gate+up and q+k+v as one matvec, static), or all three\n"
         "interleaved per token (default: static for the whole token, all for the matvecs only)", NULL},
        {"--context", CIOT_OPT_INT_LIST, &o->context, 1, MAX_CONTEXT, NULL, "LIST",
         "KV cache lengths L of the whole token's attention, e.g. 512,4096,32768: one run per L,\n"
         "interleaved per token and reported side by side; the caches are filled before the\n"
         "timed tokens (default 4096)", &o->context_given},
        {"--matvecs-only", CIOT_OPT_FLAG, &o->matvecs_only, 0, 0, NULL, NULL,
         "replay the ternary matvecs alone, not the ops between them (the replay before the whole\n"
         "token; its table and JSON)", NULL},
        {"--tokens", CIOT_OPT_INT, &o->tokens, 1, MAX_TOKENS, NULL, "N",
         "measured tokens after one warm-up token (default 5); below 5, extra timed/untimed pairs\n"
         "follow for the profiler's overhead", NULL},
        {"--batch", CIOT_OPT_INT, &o->batch, 1, 4096, NULL, "B", "activation rows: prompt processing with the layout's gemm kernel (default 1)", NULL},
        {"--memory", CIOT_OPT_CHOICE, &o->memory, 0, 0, "full|ring|auto", "full|ring|auto",
         "full (the whole model), ring (a region of at least max(4 x LLC, 1G) the ops take\n"
         "turns through) or auto: full when the model fits in 60% of the available memory\n"
         "and is at least 4x the LLC, else ring (default auto)", NULL},
        {"--straggler", CIOT_OPT_STRING, &o->straggler_arg, 0, 0, NULL, "T:US",
         "delay thread T by US microseconds at every op (busy-wait inside its work)", NULL},
        {"--chunk", CIOT_OPT_INT, &o->chunk, 1, 1 << 28, NULL, "N", "tiles (4-row groups) per chunk in chunks dispatch (default 16)", NULL},
        {"--ops", CIOT_OPT_INT, &o->ops, 1, 1 << 28, NULL, "N", "replay only the first N ops (quick runs)", NULL},
        {"--per-op", CIOT_OPT_FLAG, &o->per_op, 0, 0, NULL, NULL, "one table line per op instead of per op kind", NULL},
        {"--prefetch", CIOT_OPT_CHOICE, &o->prefetch_off, 0, 0, "on|off", "on|off",
         "software prefetch of the weights, kernels and probe alike (default on: " CIOT_PREFETCH_TEXT ")", NULL},
        {"--pages", CIOT_OPT_CHOICE, &o->pages_small, 0, 0, "huge|small", "huge|small",
         "page policy of the weights and the probe buffer alike (default huge)", NULL},
        {"--no-pin", CIOT_OPT_FLAG, &o->no_pin, 0, 0, NULL, NULL, "do not pin threads to cores", NULL},
        {"--ceiling-size", CIOT_OPT_SIZE, &o->ceiling_bytes, 1 << 20, 1e18, NULL, "BYTES",
         "the probe buffer (default max(4 x LLC, 1G); below that the ceiling is flagged)", NULL},
        {"--ring-size", CIOT_OPT_SIZE, &o->ring_bytes, 1 << 20, 1e18, NULL, "BYTES",
         "the ring region (default max(4 x LLC, 1G) + the largest matvec); implies --memory ring\n"
         "when --memory is auto, and --memory full refuses it", NULL},
        {"--dump-ops", CIOT_OPT_STRING, &o->dump_ops, 0, 0, NULL, "FILE",
         "write the replayed ops as an op list (profiles/README.md), e.g. those a GGUF file gives", NULL},
        {"--json", CIOT_OPT_STRING, &o->json, 0, 0, NULL, "FILE", "everything as JSON (profiles/README.md)", NULL},
    };
    const ciot_cmdline c = {"replay", "--model NAME|FILE [options]",
                            "Decoded tokens of a model op list, op by op on the persistent pool: per op and thread,\n"
                            "work apart from barrier wait; every token paired with a read-probe sample (and, for the\n"
                            "ops that write, an update or copy probe sample). A whole-token list (or GGUF metadata)\n"
                            "adds every op between the matvecs, at each --context.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    if (o->dispatch_name && !parse_dispatch(o->dispatch_name, o))
        return ciot_opts_fail(&c, "--dispatch '%s' is not one of static, chunks, fused, all", o->dispatch_name);
    o->dispatch_given = o->dispatch_name != NULL;
    if (o->context.n > MAX_CONTEXTS)
        return ciot_opts_fail(&c, "--context lists %d lengths; at most %d", o->context.n, MAX_CONTEXTS);
    for (int i = 0; i < o->context.n; i++)
        for (int j = 0; j < i; j++)
            if (o->context.v[i] == o->context.v[j])
                return ciot_opts_fail(&c, "--context lists %d twice", o->context.v[i]);
    if (o->context_given && o->matvecs_only)
        return ciot_opts_fail(&c, "--context sets the whole token's KV cache, and --matvecs-only replays no attention");
    if (!o->context_given) o->context.v[0] = DEFAULT_CONTEXT, o->context.n = 1;
    if (o->straggler_arg && !parse_straggler(o->straggler_arg, o))
        return ciot_opts_fail(&c, "--straggler '%s' is not THREAD:MICROSECONDS (e.g. 1:200)", o->straggler_arg);
    if (!o->model) return ciot_opts_fail(&c, "--model NAME|FILE is required (e.g. --model bonsai-2-27b)");
    /* a ring size is a size for the ring: never silently unused */
    if (o->ring_bytes && o->memory == CIOT_MEMORY_FULL)
        return ciot_opts_fail(&c, "--ring-size applies to --memory ring, and --memory full holds the whole model");
    if (o->ring_bytes) o->memory = CIOT_MEMORY_RING;
    return -1;
}

static int bad(const char *fmt, const char *arg) {
    char q[CIOT_WHY_MAX];
    fprintf(stderr, "ciot replay: ");
    fprintf(stderr, fmt, ciot_quote(arg, q, sizeof q));
    fprintf(stderr, " (ciot replay --help)\n");
    return 2;
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

/* Each op's kernel (op_kernels.h), unless --kernel names one for an op list: --kernel for the format it
 * reads, else the best this CPU runs for the op's format and shape (a gemm with --batch > 1). *first: the
 * first op's, the replay's default. Returns -1 when every op has one, else the exit code. */
static int pick_op_kernels(const replay_opts *o, ciot_model *m, int n_ops, const ciot_kernel *named,
                           const ciot_kernel **first) {
    char why[CIOT_WHY_MAX];
    const ciot_op op = o->batch > 1 ? CIOT_OP_GEMM : CIOT_OP_GEMV;
    if (ciot_pick_op_kernels(m, n_ops, op, named, why, sizeof why) != CIOT_OK) {
        ciot_say("replay", "%s", why);
        return 2;
    }
    *first = m->ops[0].kernel;
    return -1;
}

/* The whole token or the matvecs only (why_not says why, for one line once nothing is refused), and the
 * memory of the whole token's ops at the largest context: refused before any work, in one line, when it
 * does not fit beside the probe. Returns -1 when fine, else the exit code. */
static int settle_token(const replay_opts *o, const ciot_model *m, int *whole, size_t probe_bytes,
                        ciot_token_memory *mem, char *why_not, size_t why_len) {
    memset(mem, 0, sizeof *mem);
    *whole = 0;
    why_not[0] = 0;
    if (o->matvecs_only) return -1;
    if (!m->n_token) {
        snprintf(why_not, why_len, "%s: %s: replaying its matvecs only", m->path, m->token_note);
        return -1;
    }
    if (o->batch > 1) {
        snprintf(why_not, why_len, "--batch %d replays prompt processing: the matvecs only (the whole token is one "
                 "decoded token)", o->batch);
        return -1;
    }
    int most = 0;
    for (int c = 0; c < o->context.n; c++) most = o->context.v[c] > most ? o->context.v[c] : most;
    char why[CIOT_WHY_MAX];
    if (ciot_token_memory_of(m, most, mem, why, sizeof why) != CIOT_OK) {
        ciot_say("replay", "%s", why);
        return 2;
    }
    const size_t avail = ciot_mem_available(), total = ciot_token_memory_total(mem);
    if (avail && (total >= SIZE_MAX - probe_bytes || total + probe_bytes > ciot_mem_cap(avail))) {
        ciot_say("replay", "--context %d needs %.2f GiB of KV cache and %.2f GiB of states and buffers, and the probe "
                 "%.2f GiB, but %.2f GiB is available (MemAvailable)", most,
                 (double)mem->kv / GIB, (double)(total - mem->kv) / GIB, (double)probe_bytes / GIB, (double)avail / GIB);
        return 2;
    }
    *whole = 1;
    return -1;
}

/* Settles full or ring against the memory available (less the probe buffer); returns -1 when it fits,
 * else the exit code. */
static int settle_memory(const replay_opts *o, const ciot_model *m, int n_ops, const ciot_layout *l, size_t probe_bytes,
                         size_t token_bytes, ciot_replay_opts *ro, size_t *region, int *cold) {
    size_t full, group, ring;
    ciot_replay_sizes(m, n_ops, l, &full, &group, &ring);
    if (o->ring_bytes) ring = o->ring_bytes;
    const size_t avail = ciot_mem_available(), cold_min = ciot_cache_reach();
    const size_t others = probe_bytes + token_bytes;   /* both far below SIZE_MAX: checked by the caller */
    const size_t fit = ciot_mem_cap(avail) > others ? ciot_mem_cap(avail) - others : 0;
    char b1[32], b2[32];
    int mem = o->memory;
    if (mem == MEM_AUTO) {
        const int full_ok = !avail || (full <= avail / 10 * 6 && full <= fit);
        /* a GGUF model replays its real bytes, which only the full plan holds: full whenever it fits */
        if (full_ok && (full >= cold_min || m->gguf)) mem = CIOT_MEMORY_FULL;
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
        char token[96] = "";
        if (token_bytes) snprintf(token, sizeof token, ", the whole token's states and KV caches %.2f GiB",
                                  (double)token_bytes / GIB);
        fprintf(stderr, "ciot replay: %s of %s needs %.2f GiB of weights and the probe %.2f GiB%s, but %.2f GiB is "
                        "available (MemAvailable)%s\n",
                mem == CIOT_MEMORY_FULL ? "the whole model" : "the ring", m->path, (double)*region / GIB,
                (double)probe_bytes / GIB, token, (double)avail / GIB, mem == CIOT_MEMORY_FULL ? "; try --memory ring" : "");
        return 2;
    }
    ro->memory = (ciot_memory)mem;
    ro->ring_bytes = ring;
    *cold = *region >= group + cold_min;
    return -1;
}

typedef struct {
    run_id run[MAX_RUNS];                       /* the runs, interleaved per token in this order */
    int n_runs;
    ciot_replay_record *recs[MAX_RUNS];         /* tokens records per run */
    ciot_replay_record warm;                    /* also the timed token of the pairs past the measured tokens */
    int pairs;                                  /* max(tokens, CIOT_OVERHEAD_PAIRS_MIN) */
    double *on_ms, *off_ms;                     /* per overhead pair: its timed and untimed pass, ms per token */
    double *ruler_gbs[CIOT_BW_N_KINDS];         /* per probe the steps need (read always), its sample paired
                                                 * with each measured token; NULL: not needed */
    size_t ruler_traffic[CIOT_BW_N_KINDS];      /* per probe but read's: the bytes its steps move in one token
                                                 * (the largest over the runs), what one probe pass moves */
} records;

static void records_free(records *rs, int tokens) {
    for (int i = 0; i < rs->n_runs; i++) {
        for (int k = 0; rs->recs[i] && k < tokens; k++) ciot_replay_record_free(&rs->recs[i][k]);
        free(rs->recs[i]);
    }
    ciot_replay_record_free(&rs->warm);
    free(rs->on_ms);
    free(rs->off_ms);
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) free(rs->ruler_gbs[p]);
}

/* The runs: every dispatch at every context (the whole token), or every dispatch (the matvecs only). */
static void runs_of(const replay_opts *o, int whole, records *rs) {
    rs->n_runs = 0;
    for (int c = 0; c < (whole ? o->context.n : 1); c++)
        for (int i = 0; i < o->n_dispatch; i++) rs->run[rs->n_runs++] = (run_id){o->dispatch[i], whole ? o->context.v[c] : 0};
}

static ciot_status records_alloc(records *rs, const replay_opts *o, const ciot_replay *r, int threads) {
    int most = 0;
    ciot_status st = CIOT_OK;
    for (int i = 0; i < rs->n_runs && st == CIOT_OK; i++) {
        const int steps = ciot_replay_steps(r, rs->run[i].d, NULL);
        most = steps > most ? steps : most;
        if (!(rs->recs[i] = calloc((size_t)o->tokens, sizeof *rs->recs[i]))) return CIOT_E_NOMEM;
        for (int k = 0; k < o->tokens && st == CIOT_OK; k++)
            st = ciot_replay_record_alloc(&rs->recs[i][k], steps, threads);
    }
    if (st == CIOT_OK) st = ciot_replay_record_alloc(&rs->warm, most, threads);
    rs->pairs = o->tokens > CIOT_OVERHEAD_PAIRS_MIN ? o->tokens : CIOT_OVERHEAD_PAIRS_MIN;
    if (st == CIOT_OK && !(rs->on_ms = calloc((size_t)rs->pairs, sizeof *rs->on_ms))) st = CIOT_E_NOMEM;
    if (st == CIOT_OK && !(rs->off_ms = calloc((size_t)rs->pairs, sizeof *rs->off_ms))) st = CIOT_E_NOMEM;
    /* the probes: read, and the ruler of every step that writes (none for the matvecs only) */
    int need[CIOT_BW_N_KINDS] = {[CIOT_BW_READ] = 1};
    for (int i = 0; i < rs->n_runs; i++) {
        const ciot_replay_step *steps;
        size_t moved[CIOT_BW_N_KINDS] = {0};
        for (int s = 0, n = ciot_replay_steps(r, rs->run[i].d, &steps); s < n; s++) {
            need[steps[s].ruler] = 1;
            moved[steps[s].ruler] += ciot_op_traffic_total(&steps[s].traffic);
        }
        for (int p = 0; p < CIOT_BW_N_KINDS; p++)
            if (p != CIOT_BW_READ && moved[p] > rs->ruler_traffic[p]) rs->ruler_traffic[p] = moved[p];
    }
    for (int p = 0; p < CIOT_BW_N_KINDS && st == CIOT_OK; p++)
        if (need[p] && !(rs->ruler_gbs[p] = calloc((size_t)o->tokens, sizeof *rs->ruler_gbs[p]))) st = CIOT_E_NOMEM;
    return st;
}

/* The probe samples of one token, side by side with its round: before it, the read probe last; after it,
 * the read probe first. The read sample sits beside the round as always, and each other ruler at the same
 * distance from it before as after. */
static ciot_status sample_rulers(const ciot_ruler *ruler, ciot_pool *pool, const records *rs, int before,
                                 double *gbs, int *order, int *n) {
    ciot_status st = CIOT_OK;
    *n = 0;
    for (int i = 0; i < CIOT_BW_N_KINDS && st == CIOT_OK; i++) {
        const int p = before ? CIOT_BW_N_KINDS - 1 - i : i;
        if (!rs->ruler_gbs[p]) continue;
        st = p == CIOT_BW_READ ? ciot_ruler_sample(ruler, pool, &gbs[p])
                               : ciot_ruler_sample_kind(ruler, pool, (ciot_bw_kind)p, rs->ruler_traffic[p], &gbs[p]);
        order[(*n)++] = p;
    }
    return st;
}

/* One overhead pair: a token of dispatch d with timing on (into rec) and one with it off, side by side,
 * in the order ciot_overhead_timed_first gives; both kept in rs, in ms per token, unless pair < 0 (the
 * warm-up). Returns the untimed ns. */
static uint64_t run_pair(const replay_opts *o, ciot_replay *r, ciot_pool *pool, ciot_dispatch d,
                         ciot_replay_record *rec, int pair, records *rs, uint64_t *on) {
    const int timed_first = pair < 0 || ciot_overhead_timed_first(pair);
    uint64_t off = timed_first ? 0 : ciot_replay_token(r, pool, d, NULL);
    *on = ciot_replay_token(r, pool, d, rec);
    if (timed_first) off = ciot_replay_token(r, pool, d, NULL);
    if (pair >= 0) rs->on_ms[pair] = (double)*on * 1e-6 / o->batch, rs->off_ms[pair] = (double)off * 1e-6 / o->batch;
    return off;
}

/* Token 0 warms up; then every token runs each dispatch with timing on, interleaved so drift hits all
 * alike, the first dispatch's beside an untimed one of the same dispatch (an overhead pair: the
 * profiler's own cost), and one sample of every probe the steps need on the same pool, before the round on
 * odd tokens and after it on even ones. With fewer than CIOT_OVERHEAD_PAIRS_MIN tokens, extra pairs follow (at most 8 tokens
 * more), so that the overhead's spread means something. Returns the status. */
static ciot_status run_tokens(const replay_opts *o, ciot_replay *r, ciot_pool *pool, const ciot_ruler *ruler,
                              records *rs) {
    const ciot_dispatch d0 = rs->run[0].d;
    for (int k = 0; k <= o->tokens; k++) {
        const int probe_first = k && ciot_probe_first(k - 1);
        double gbs[CIOT_BW_N_KINDS] = {0};
        int order[CIOT_BW_N_KINDS], sampled = 0;   /* the probes in the order they ran */
        ciot_status st = probe_first ? sample_rulers(ruler, pool, rs, 1, gbs, order, &sampled) : CIOT_OK;
        if (k) fprintf(stderr, "ciot replay: token %d/%d:", k, o->tokens);
        else fprintf(stderr, "ciot replay: warm-up:");
        uint64_t off = 0;
        for (int i = 0; i < rs->n_runs; i++) {
            const ciot_dispatch d = rs->run[i].d;
            ciot_replay_record *rec = k ? &rs->recs[i][k - 1] : &rs->warm;
            uint64_t ns;
            ciot_replay_set_context(r, rs->run[i].L);
            if (i) ns = ciot_replay_token(r, pool, d, rec);
            else off = run_pair(o, r, pool, d, rec, k - 1, rs, &ns);
            if (rs->run[i].L) fprintf(stderr, "%s %s L=%d %.1f ms", i ? "," : "", ciot_dispatch_name(d), rs->run[i].L,
                                      (double)ns * 1e-6);
            else fprintf(stderr, "%s %s %.1f ms", i ? "," : "", ciot_dispatch_name(d), (double)ns * 1e-6);
        }
        if (k && !probe_first && st == CIOT_OK) st = sample_rulers(ruler, pool, rs, 0, gbs, order, &sampled);
        if (st != CIOT_OK) return st;
        for (int p = 0; k && p < CIOT_BW_N_KINDS; p++)
            if (rs->ruler_gbs[p]) rs->ruler_gbs[p][k - 1] = gbs[p];
        fprintf(stderr, "; %s without timing %.1f ms (%s)", ciot_dispatch_name(d0), (double)off * 1e-6,
                !k || ciot_overhead_timed_first(k - 1) ? "after the timed one" : "before the timed one");
        if (k) {
            fprintf(stderr, "; probe%s", probe_first ? " (before)" : " (after)");
            for (int i = 0; i < sampled; i++)
                fprintf(stderr, " %s %.2f GB/s", ciot_bw_kind_name((ciot_bw_kind)order[i]), gbs[order[i]]);
        }
        fprintf(stderr, "\n");
    }
    ciot_replay_set_context(r, rs->run[0].L);
    for (int p = o->tokens; p < rs->pairs; p++) {
        uint64_t on;
        const uint64_t off = run_pair(o, r, pool, d0, &rs->warm, p, rs, &on);
        fprintf(stderr, "ciot replay: overhead pair %d/%d: %s %.1f ms; without timing %.1f ms (%s)\n", p + 1,
                rs->pairs, ciot_dispatch_name(d0), (double)on * 1e-6, (double)off * 1e-6,
                ciot_overhead_timed_first(p) ? "after the timed one" : "before the timed one");
    }
    return CIOT_OK;
}

/* Summaries of the measured tokens, the table on stdout and the JSON file; returns the exit code. */
static int report(const replay_opts *o, const ciot_model *m, const ciot_kernel *kernel, const ciot_replay *r,
                  const records *rs, const ciot_replay_opts *ro, const ciot_pool_info *info, const ciot_ruler *ruler,
                  int cold, const char *ops_name, ciot_context *ctx) {
    ciot_run_stats runs[MAX_RUNS] = {0};
    ciot_replay_step *steps_at[MAX_RUNS] = {0};
    double *pct = calloc((size_t)rs->pairs, sizeof *pct);
    if (!pct) {
        fprintf(stderr, "ciot replay: out of memory for the summaries\n");
        return 1;
    }
    for (int p = 0; p < rs->pairs; p++) pct[p] = rs->off_ms[p] > 0 ? 100 * (rs->on_ms[p] / rs->off_ms[p] - 1) : 0;
    const ciot_spread probe = ciot_spread_of(rs->ruler_gbs[CIOT_BW_READ], o->tokens);
    ciot_paired_samples paired = {{0}, {0}};
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) {
        paired.gbs[p] = rs->ruler_gbs[p];
        paired.span[p] = p == CIOT_BW_READ ? ruler->bytes : ciot_ruler_span(ruler, (ciot_bw_kind)p, rs->ruler_traffic[p]);
    }
    char pinning[128];
    ciot_replay_report rep = {
        .model = m, .n_ops = ro->n_ops, .kernel = kernel, .threads = info->threads, .pinned = info->pinned,
        .pinning = ciot_pinning_note(!o->no_pin, info->pinned, info->threads, pinning, sizeof pinning),
        .batch = o->batch, .tokens = o->tokens, .chunk = o->chunk, .memory = ro->memory, .cold = cold,
        .memory_bytes = ciot_replay_memory_bytes(r), .weight_bytes = ciot_replay_weight_bytes(r),
        .probe_gbs = rs->ruler_gbs[CIOT_BW_READ], .paired = paired, .ceiling_gbs = probe.median, .ceiling_buffer = ruler->bytes,
        .probe_huge_fraction = ruler->huge_fraction, .weights_huge_fraction = ciot_replay_huge_fraction(r),
        .prefetch = ro->prefetch, .real_ops = ciot_replay_real_ops(r), .left_out = m->left_out,
        .overhead_dispatch = rs->run[0].d, .overhead_pct = pct, .overhead = ciot_overhead_of(pct, rs->pairs),
        .overhead_on_ms = ciot_median(rs->on_ms, rs->pairs), .overhead_off_ms = ciot_median(rs->off_ms, rs->pairs),
        .straggler = o->straggler, .straggler_us = o->straggler_us, .runs = runs, .n_runs = rs->n_runs,
        .whole_token = ciot_replay_whole_token(r), .token_ops = ops_name, .token_note = m->token_note,
    };
    ciot_status st = CIOT_OK;
    for (int i = 0; i < rs->n_runs && st == CIOT_OK; i++) {
        const ciot_dispatch d = rs->run[i].d;
        const int n = ciot_replay_steps(r, d, NULL);
        /* the whole token at this run's context: every step's bytes, the bound's input */
        if ((st = ciot_replay_steps_at(r, d, rs->run[i].L, &steps_at[i])) != CIOT_OK) break;
        size_t bytes = 0;
        for (int s = 0; s < n; s++) bytes += steps_at[i][s].bytes;
        if (!rep.whole_token) bytes = rep.weight_bytes;
        st = ciot_run_stats_compute(d, rs->recs[i], o->tokens, steps_at[i], n, info->threads, o->batch, bytes,
                                    &paired, &runs[i]);
        runs[i].context = rs->run[i].L;
    }
    int rc = 0;
    if (st != CIOT_OK) {
        fprintf(stderr, "ciot replay: out of memory for the summaries\n");
        rc = 1;
    } else {
        ciot_replay_print(stdout, &rep, o->per_op);
        if (o->json) {
            ciot_context_finish(ctx);
            char why[CIOT_WHY_MAX];
            if ((st = ciot_replay_write_json(o->json, &rep, ctx, why, sizeof why)) != CIOT_OK) {
                fprintf(stderr, "ciot replay: --json %s\n", why);
                rc = st == CIOT_E_ARG ? 2 : 1;
            }
        }
    }
    for (int i = 0; i < MAX_RUNS; i++) ciot_run_stats_free(&runs[i]), free(steps_at[i]);
    free(pct);
    return rc;
}

int ciot_cmd_replay(int argc, char **argv) {
    replay_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    /* --model NAME is read from profiles/NAME.ops: that file is the input the outputs must not be */
    char model_path[1024];
    const int resolved = ciot_model_resolve(o.model, model_path, sizeof model_path) == CIOT_OK;
    const ciot_named_path files[] = {
        {"--model", o.model, CIOT_PATH_INPUT, resolved ? model_path : NULL},
        {"--dump-ops", o.dump_ops, CIOT_PATH_OUTPUT, NULL},
        {"--json", o.json, CIOT_PATH_OUTPUT, NULL},
    };
    if ((rc = ciot_distinct_paths("replay", files, (int)(sizeof files / sizeof files[0]))) >= 0) return rc;

    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    if (ciot_model_load(o.model, &m, err, sizeof err) != CIOT_OK) {
        fprintf(stderr, "ciot replay: %s\n", err);
        return 2;
    }
    const ciot_kernel *kernel = NULL;
    ciot_replay_opts ro = {0};
    size_t region = 0;
    int cold = 0, whole = 0;
    char why_not[CIOT_WHY_MAX + 1100] = "";
    ciot_token_memory token_mem = {0};
    const int cores = ciot_topo_cores(), threads = o.threads ? o.threads : cores;
    const int n_ops = o.ops ? o.ops : m.n_ops;
    const size_t ceiling_bytes = o.ceiling_bytes ? o.ceiling_bytes : ciot_cold_bytes();
    if (o.ops > m.n_ops) {
        ciot_say("replay", "--ops %d, but %s has %d ops", o.ops, m.path, m.n_ops);
        rc = 2;
    } else if (o.straggler >= threads) {
        fprintf(stderr, "ciot replay: --straggler thread %d, but the pool has threads 0..%d\n", o.straggler,
                threads - 1);
        rc = 2;
    } else if ((rc = pick_kernel(&o, &kernel)) < 0 &&
               ((o.kernel && !m.gguf) || (rc = pick_op_kernels(&o, &m, n_ops, o.kernel ? kernel : NULL, &kernel)) < 0)) {
        if (ciot_model_check(&m, n_ops, kernel->layout, err, sizeof err) != CIOT_OK) {
            fprintf(stderr, "ciot replay: %s (kernel %s)\n", err, kernel->name);
            rc = 2;
        } else if ((rc = settle_token(&o, &m, &whole, ceiling_bytes, &token_mem, why_not, sizeof why_not)) < 0) {
            rc = settle_memory(&o, &m, n_ops, kernel->layout, ceiling_bytes, ciot_token_memory_total(&token_mem), &ro,
                               &region, &cold);
        }
    }
    char why[CIOT_WHY_MAX];
    if (rc < 0 && o.json && ciot_output_check(o.json, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot replay: --json %s\n", why);   /* refused now, not after the run */
        rc = 2;
    }
    if (rc < 0 && o.dump_ops) {
        const ciot_status st = ciot_model_write_ops(&m, n_ops, o.dump_ops, why, sizeof why);
        if (st != CIOT_OK) fprintf(stderr, "ciot replay: --dump-ops %s\n", why), rc = st == CIOT_E_ARG ? 2 : 1;
        else ciot_say("replay", "wrote the %d ops to %s", n_ops, o.dump_ops);
    }
    if (rc >= 0) {
        ciot_model_free(&m);
        return rc;
    }
    if (m.left_out[0]) ciot_say("replay", "%s: left out: %s", m.path, m.left_out);
    if (why_not[0]) ciot_say("replay", "%s", why_not);
    if (m.gguf && ro.memory == CIOT_MEMORY_RING)
        fprintf(stderr, "ciot replay: the ring holds drawn bytes, not the file's (the whole model does not fit, or "
                        "--memory ring was asked)\n");
    ciot_warn_oversubscribed("replay", threads);
    if (whole && !o.dispatch_given) parse_dispatch("static", &o);
    if (!cold)
        fprintf(stderr, "ciot replay: warning: %.2f GiB of weights is less than 4x the last-level cache plus the "
                        "largest matvec; ops may be served partly from cache\n", (double)region / GIB);
    if (ciot_cache_resident(ceiling_bytes))
        fprintf(stderr, "ciot replay: warning: the probe buffer is below 4x the last-level cache: the ceiling is "
                        "cache-resident and flagged\n");

    ro.model = &m;
    ro.n_ops = n_ops;
    ro.kernel = kernel;
    ro.batch = o.batch;
    ro.chunk = o.chunk;
    ro.straggler = o.straggler;
    ro.straggler_us = o.straggler_us;
    ro.prefetch = o.prefetch_off ? 0 : CIOT_PREFETCH_DEFAULT;
    ro.small_pages = o.pages_small;

    ciot_context ctx;
    ciot_context_collect(&ctx);
    ciot_pool *pool = NULL;
    ciot_replay *r = NULL;
    records rs = {0};
    ciot_ruler ruler = {0};
    ciot_pool_opts po = {.threads = threads, .pin = !o.no_pin};
    ciot_status st = ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &pool);
    if (st != CIOT_OK) {
        fprintf(stderr, "ciot replay: cannot create a pool of %d threads: %s\n", threads, ciot_status_str(st));
        ciot_model_free(&m);
        return 1;
    }
    ciot_pool_info info;
    ciot_pool_get_info(pool, &info);
    ro.fill_pool = pool;
    ciot_token_exec *exec = NULL;
    const ciot_token_ops *ops = ciot_token_ops_best();
    if (whole) {
        int most = 0;
        for (int c = 0; c < o.context.n; c++) most = o.context.v[c] > most ? o.context.v[c] : most;
        fprintf(stderr, "ciot replay: the whole token (ops %s): %.2f GiB of DeltaNet states, %.2f GiB of their copies, "
                        "%.2f GiB of KV cache (%d positions filled before the timed tokens), filled by the pool\n",
                ops->name, (double)token_mem.state / GIB, (double)token_mem.snapshot / GIB, (double)token_mem.kv / GIB,
                most);
        if ((st = ciot_token_exec_create(&m, most, ops, pool, &exec, why, sizeof why)) != CIOT_OK) {
            fprintf(stderr, "ciot replay: %s\n", why);
            ciot_pool_destroy(pool);
            ciot_model_free(&m);
            return st == CIOT_E_ARG ? 2 : 1;
        }
        ciot_token_exec_set_prefetch(exec, ro.prefetch);
        ro.exec = exec;
    }
    runs_of(&o, whole, &rs);

    fprintf(stderr, "ciot replay: allocating %.2f GiB of weights (%s: %s) and a %.2f GiB probe buffer, filled by the "
                    "pool\n", (double)region / GIB, ro.memory == CIOT_MEMORY_FULL ? "full" : "ring",
            ro.memory == CIOT_MEMORY_FULL ? "the whole model, one place per op" : "ops take turns through it",
            (double)ceiling_bytes / GIB);
    st = ciot_ruler_init(&ruler, pool, ceiling_bytes, !o.pages_small, ro.prefetch, CIOT_PROBE_SECONDS, 1);
    if (st == CIOT_OK) st = ciot_replay_create(&ro, threads, &r);
    if (st == CIOT_OK) st = records_alloc(&rs, &o, r, threads);
    if (st != CIOT_OK) {
        fprintf(stderr, "ciot replay: cannot allocate the weights, probe buffer and activations: %s\n",
                ciot_status_str(st));
        rc = 1;
    } else if ((st = run_tokens(&o, r, pool, &ruler, &rs)) != CIOT_OK) {
        fprintf(stderr, "ciot replay: a probe sample failed: %s\n", ciot_status_str(st));
        rc = 1;
    } else {
        rc = report(&o, &m, kernel, r, &rs, &ro, &info, &ruler, cold, whole ? ops->name : "", &ctx);
    }
    records_free(&rs, o.tokens);
    ciot_replay_destroy(r);
    ciot_token_exec_destroy(exec);
    ciot_ruler_free(&ruler);
    ciot_pool_destroy(pool);
    ciot_model_free(&m);
    return rc;
}
