/* ciot replay: one decoded token of a model, op by op, on the persistent pool, in the static, chunks
 * and fused dispatches (the whole token: the ops between the matvecs too, at each --context); per op
 * and per thread, the time working apart from the time at the barrier.
 * Every input is checked before the long work (ceiling probe, weight allocation, tokens) starts. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "context.h"
#include "cpu.h"
#include "distinct_paths.h"
#include "op_kernels.h"
#include "opts.h"
#include "place_opts.h"
#include "output.h"
#include "prefetch.h"
#include "choice.h"
#include "registry.h"
#include "tuning.h"
#include "replay_session.h"
#include "rules.h"
#include "topo.h"

enum { MAX_THREADS = 1024, MAX_TOKENS = 100000, MAX_CONTEXT = 1 << 24, DEFAULT_CONTEXT = 4096 };
static const size_t GIB = (size_t)1 << 30;

typedef struct {
    const char *model, *kernel, *json, *dispatch_name, *straggler_arg, *dump_ops;
    int threads, tokens, batch, chunk, ops, no_pin, per_op, prefetch_off, pages_small;
    ciot_dispatch dispatch[CIOT_DISPATCH_N];
    int n_dispatch;
    int memory;                 /* ciot_memory, or CIOT_MEMORY_AUTO (index 2 of full|ring|auto) */
    int straggler;
    double straggler_us;
    size_t ceiling_bytes, ring_bytes;
    int matvecs_only, dispatch_given, context_given;
    ciot_int_list context;
    ciot_place_args place;
} replay_opts;

static int parse_dispatch(const char *v, replay_opts *o) {
    const int all = !strcmp(v, "all");
    o->n_dispatch = 0;
    for (int d = 0; d < CIOT_DISPATCH_N; d++)
        if (all || !strcmp(v, ciot_dispatch_name((ciot_dispatch)d))) o->dispatch[o->n_dispatch++] = (ciot_dispatch)d;
    return o->n_dispatch > 0;
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
    *o = (replay_opts){.tokens = 5, .batch = 1, .chunk = 16, .memory = CIOT_MEMORY_AUTO, .straggler = -1};
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
        CIOT_PLACE_OPTS(&o->place),
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
    if (o->context.n > CIOT_REPLAY_MAX_CONTEXTS)
        return ciot_opts_fail(&c, "--context lists %d lengths; at most %d", o->context.n, CIOT_REPLAY_MAX_CONTEXTS);
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

/* The kernel: named, or the best for t2p; a gemv kernel with batch > 1 gives way to its layout's gemm. */
static int pick_kernel(const replay_opts *o, int threads, const ciot_kernel **out) {
    const unsigned cpu = ciot_cpu_features();
    const ciot_kernel *k = NULL;
    if (o->kernel) {
        char q[CIOT_WHY_MAX], nearest[512];
        if (!(k = ciot_kernel_find(o->kernel)))
            return fprintf(stderr, "ciot replay: unknown kernel '%s' (%s%s%sciot kernels lists them)\n",
                           ciot_quote(o->kernel, q, sizeof q), *ciot_kernel_suggest(o->kernel, 0, nearest, sizeof nearest)
                           ? "nearest: " : "", nearest, *nearest ? "; " : ""), 2;
        const unsigned missing = ciot_kernel_missing(k, cpu);
        char need[128];
        if (missing)
            return fprintf(stderr, "ciot replay: kernel %s needs %s, which this CPU lacks (ciot kernels)\n", k->name,
                           ciot_feature_list(missing, need, sizeof need)), 2;
    } else {
        const ciot_choice_ask a = {CIOT_FMT_PQ2_0, &ciot_layout_t2p, o->batch > 1 ? CIOT_OP_GEMM : CIOT_OP_GEMV,
                                   o->batch, threads, 0, 0, cpu};
        k = ciot_kernel_choose(&a).kernel;
    }
    if (k && o->batch > 1 && k->op == CIOT_OP_GEMV) {
        const ciot_choice_ask a = {k->layout->source, k->layout, CIOT_OP_GEMM, o->batch, threads, 0, 0, cpu};
        const ciot_kernel *g = ciot_kernel_choose(&a).kernel;
        if (!g) {
            fprintf(stderr, "ciot replay: --batch %d needs a gemm kernel, and the %s layout has none\n", o->batch,
                    k->layout->name);
            return 2;
        }
        k = g;
    }
    if (!k) return fprintf(stderr, "ciot replay: no kernel for the t2p layout runs on this CPU\n"), 2;
    *out = k;
    return -1;
}

/* The refusals after the options, each in one line before any long work: --ops, --straggler, the kernels,
 * the model's shapes, the memory plan (replay_plan.h), the --json path; then --dump-ops. Returns -1 when
 * the replay may run, else the exit code. */
static int refuse(const replay_opts *o, ciot_model *m, int n_ops, int threads, size_t probe_bytes,
                  const ciot_kernel **kernel, ciot_replay_plan *plan) {
    char err[CIOT_WHY_MAX + CIOT_MODEL_ERR_MAX], b1[32], b2[32];
    int rc;
    if (o->ops > m->n_ops) return ciot_say("replay", "--ops %d, but %s has %d ops", o->ops, m->path, m->n_ops), 2;
    if (o->straggler >= threads) {
        fprintf(stderr, "ciot replay: --straggler thread %d, but the pool has threads 0..%d\n", o->straggler,
                threads - 1);
        return 2;
    }
    if ((rc = pick_kernel(o, threads, kernel)) >= 0) return rc;
    /* each op's kernel as a runtime picks it (op_kernels.h), unless --kernel names one for an op list */
    if (!(o->kernel && !m->gguf)) {
        const ciot_op op = o->batch > 1 ? CIOT_OP_GEMM : CIOT_OP_GEMV;
        if (ciot_pick_op_kernels(m, n_ops, op, o->batch, threads, o->kernel ? *kernel : NULL, err, sizeof err) != CIOT_OK)
            return ciot_say("replay", "%s", err), 2;
        *kernel = m->ops[0].kernel;
    }
    const ciot_layout *l = (*kernel)->layout;
    if (ciot_model_check(m, n_ops, l, err, sizeof err) != CIOT_OK) {
        fprintf(stderr, "ciot replay: %s (kernel %s)\n", err, (*kernel)->name);
        return 2;
    }
    const ciot_replay_ask ask = {o->matvecs_only, o->batch, o->context.v, o->context.n, o->memory, o->ring_bytes,
                                 probe_bytes};
    if (ciot_replay_plan_token(m, &ask, plan, err, sizeof err) != CIOT_OK) return ciot_say("replay", "%s", err), 2;
    size_t group;
    ciot_replay_sizes(m, n_ops, l, NULL, &group, NULL);
    if (o->ring_bytes && o->ring_bytes < group) {   /* --ring-size is what makes a ring smaller than a matvec */
        fprintf(stderr, "ciot replay: --ring-size %s is smaller than the largest matvec (%s)\n",
                ciot_format_bytes(o->ring_bytes, b1, sizeof b1), ciot_format_bytes(group, b2, sizeof b2));
        return 2;
    }
    if (ciot_replay_plan_memory(m, n_ops, l, &ask, plan, err, sizeof err) != CIOT_OK)
        return ciot_say("replay", "%s", err), 2;
    if (o->json && ciot_output_check(o->json, err, sizeof err) != CIOT_OK)
        return fprintf(stderr, "ciot replay: --json %s\n", err), 2;   /* refused now, not after the run */
    if (o->dump_ops) {
        const ciot_status st = ciot_model_write_ops(m, n_ops, o->dump_ops, err, sizeof err);
        if (st != CIOT_OK) return fprintf(stderr, "ciot replay: --dump-ops %s\n", err), st == CIOT_E_ARG ? 2 : 1;
        ciot_say("replay", "wrote the %d ops to %s", n_ops, o->dump_ops);
    }
    return -1;
}

/* What the run will be, before it starts: what is left out, why the matvecs only, the warnings. */
static void notes(const ciot_model *m, const ciot_replay_plan *plan, int threads, size_t probe_bytes) {
    if (m->left_out[0]) ciot_say("replay", "%s: left out: %s", m->path, m->left_out);
    if (plan->why_not[0]) ciot_say("replay", "%s", plan->why_not);
    if (m->gguf && plan->memory == CIOT_MEMORY_RING)
        fprintf(stderr, "ciot replay: the ring holds drawn bytes, not the file's (the whole model does not fit, or "
                        "--memory ring was asked)\n");
    ciot_warn_oversubscribed("replay", threads);
    if (!plan->cold)
        fprintf(stderr, "ciot replay: warning: %.2f GiB of weights is less than 4x the last-level cache plus the "
                        "largest matvec; ops may be served partly from cache\n", (double)plan->region_bytes / GIB);
    if (ciot_cache_resident(probe_bytes))
        fprintf(stderr, "ciot replay: warning: the probe buffer is below 4x the last-level cache: the ceiling is "
                        "cache-resident and flagged\n");
}

/* The replay itself (replay_session.h), then the table on stdout and the JSON file; returns the exit code. */
static int run(const replay_opts *o, const ciot_replay_session_opts *so) {
    ciot_context ctx;
    ciot_context_collect(&ctx);
    char why[CIOT_WHY_MAX];
    ciot_replay_session *s;
    ciot_status st = ciot_replay_session_open(so, stderr, &s, why, sizeof why);
    if (st != CIOT_OK) return fprintf(stderr, "ciot replay: %s\n", why), st == CIOT_E_ARG ? 2 : 1;
    ciot_replay_report rep;
    int rc = 0;
    if ((st = ciot_replay_session_run(s, stderr)) != CIOT_OK) {
        fprintf(stderr, "ciot replay: a probe sample failed: %s\n", ciot_status_str(st));
        rc = 1;
    } else if (ciot_replay_session_report(s, &rep) != CIOT_OK) {
        fprintf(stderr, "ciot replay: out of memory for the summaries\n");
        rc = 1;
    } else {
        ciot_replay_print(stdout, &rep, o->per_op);
        if (o->json) {
            ciot_context_finish(&ctx);
            if ((st = ciot_replay_write_json(o->json, &rep, &ctx, why, sizeof why)) != CIOT_OK)
                fprintf(stderr, "ciot replay: --json %s\n", why), rc = st == CIOT_E_ARG ? 2 : 1;
        }
    }
    ciot_replay_session_close(s);
    return rc;
}

int ciot_cmd_replay(int argc, char **argv) {
    replay_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    ciot_tuning_use("replay");
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
    if (ciot_model_load(o.model, &m, err, sizeof err) != CIOT_OK) return fprintf(stderr, "ciot replay: %s\n", err), 2;
    const ciot_kernel *kernel = NULL;
    ciot_replay_plan plan;
    const int threads = o.threads ? o.threads : ciot_topo_cores(), n_ops = o.ops ? o.ops : m.n_ops;
    const size_t probe_bytes = o.ceiling_bytes ? o.ceiling_bytes : ciot_cold_bytes();
    if ((rc = ciot_place_apply("replay", &o.place, o.no_pin, &threads, 1)) >= 0) return ciot_model_free(&m), rc;
    if ((rc = refuse(&o, &m, n_ops, threads, probe_bytes, &kernel, &plan)) < 0) {
        notes(&m, &plan, threads, probe_bytes);
        if (plan.whole && !o.dispatch_given) parse_dispatch("static", &o);
        const ciot_replay_session_opts so = {
            .engine = {.model = &m, .n_ops = n_ops, .kernel = kernel, .batch = o.batch, .chunk = o.chunk,
                       .straggler = o.straggler, .straggler_us = o.straggler_us, .small_pages = o.pages_small,
                       .prefetch = o.prefetch_off ? 0 : CIOT_PREFETCH_DEFAULT},
            .plan = &plan, .threads = threads, .pin = !o.no_pin, .tokens = o.tokens, .dispatch = o.dispatch,
            .n_dispatch = o.n_dispatch, .context = o.context.v, .n_context = o.context.n, .probe_bytes = probe_bytes};
        rc = run(&o, &so);
    }
    ciot_model_free(&m);
    return rc;
}
