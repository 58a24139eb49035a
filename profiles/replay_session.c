/* The replay's measurement protocol (replay_session.h). */
#include "replay_session.h"

#include <stdlib.h>
#include <string.h>
#include "context.h"
#include "measure.h"
#include "replay_stats.h"

enum { MAX_RUNS = CIOT_DISPATCH_N * CIOT_REPLAY_MAX_CONTEXTS };
static const double GIB = (double)((size_t)1 << 30);

/* One replayed run: a dispatch at a KV length (0 with the matvecs only). */
typedef struct {
    ciot_dispatch d;
    int L;
} run_id;

struct ciot_replay_session {
    ciot_replay_session_opts o;
    ciot_replay_opts engine;
    ciot_pool *pool;
    ciot_pool_info info;
    ciot_token_exec *exec;                      /* the whole token's ops, NULL: the matvecs only */
    ciot_ruler ruler;
    ciot_replay *r;
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
    ciot_run_stats stats[MAX_RUNS];             /* the summaries, and what they point into */
    ciot_replay_step *steps_at[MAX_RUNS];
    double *pct;
    char pinning[128];
};

/* The runs: every dispatch at every context (the whole token), or every dispatch (the matvecs only). */
static void runs_of(ciot_replay_session *s) {
    const int whole = s->o.plan->whole;
    s->n_runs = 0;
    for (int c = 0; c < (whole ? s->o.n_context : 1); c++)
        for (int i = 0; i < s->o.n_dispatch; i++)
            s->run[s->n_runs++] = (run_id){s->o.dispatch[i], whole ? s->o.context[c] : 0};
}

/* The probes: read, and the ruler of every step that writes (none for the matvecs only), with the bytes
 * each moves in a token. */
static ciot_status rulers_alloc(ciot_replay_session *s) {
    int need[CIOT_BW_N_KINDS] = {[CIOT_BW_READ] = 1};
    for (int i = 0; i < s->n_runs; i++) {
        const ciot_replay_step *steps;
        size_t moved[CIOT_BW_N_KINDS] = {0};
        for (int k = 0, n = ciot_replay_steps(s->r, s->run[i].d, &steps); k < n; k++) {
            need[steps[k].ruler] = 1;
            moved[steps[k].ruler] += ciot_op_traffic_total(&steps[k].traffic);
        }
        for (int p = 0; p < CIOT_BW_N_KINDS; p++)
            if (p != CIOT_BW_READ && moved[p] > s->ruler_traffic[p]) s->ruler_traffic[p] = moved[p];
    }
    for (int p = 0; p < CIOT_BW_N_KINDS; p++)
        if (need[p] && !(s->ruler_gbs[p] = calloc((size_t)s->o.tokens, sizeof *s->ruler_gbs[p]))) return CIOT_E_NOMEM;
    return CIOT_OK;
}

static ciot_status records_alloc(ciot_replay_session *s) {
    const int tokens = s->o.tokens;
    int most = 0;
    ciot_status st = CIOT_OK;
    for (int i = 0; i < s->n_runs && st == CIOT_OK; i++) {
        const int steps = ciot_replay_steps(s->r, s->run[i].d, NULL);
        most = steps > most ? steps : most;
        if (!(s->recs[i] = calloc((size_t)tokens, sizeof *s->recs[i]))) return CIOT_E_NOMEM;
        for (int k = 0; k < tokens && st == CIOT_OK; k++)
            st = ciot_replay_record_alloc(&s->recs[i][k], steps, s->o.threads);
    }
    if (st == CIOT_OK) st = ciot_replay_record_alloc(&s->warm, most, s->o.threads);
    s->pairs = tokens > CIOT_OVERHEAD_PAIRS_MIN ? tokens : CIOT_OVERHEAD_PAIRS_MIN;
    if (st == CIOT_OK && !(s->on_ms = calloc((size_t)s->pairs, sizeof *s->on_ms))) st = CIOT_E_NOMEM;
    if (st == CIOT_OK && !(s->off_ms = calloc((size_t)s->pairs, sizeof *s->off_ms))) st = CIOT_E_NOMEM;
    return st == CIOT_OK ? rulers_alloc(s) : st;
}

/* The whole token's ops, their memory at the largest context filled by the pool. */
static ciot_status open_token(ciot_replay_session *s, FILE *log, char *why, size_t why_len) {
    const ciot_replay_plan *plan = s->o.plan;
    const ciot_token_ops *ops = ciot_token_ops_best();
    fprintf(log, "ciot replay: the whole token (ops %s): %.2f GiB of DeltaNet states, %.2f GiB of their copies, "
                 "%.2f GiB of KV cache (%d positions filled before the timed tokens), filled by the pool\n",
            ops->name, (double)plan->token.state / GIB, (double)plan->token.snapshot / GIB,
            (double)plan->token.kv / GIB, plan->largest_context);
    const ciot_status st = ciot_token_exec_create(s->engine.model, plan->largest_context, ops, s->pool, &s->exec,
                                                  why, why_len);
    if (st != CIOT_OK) return st;
    ciot_token_exec_set_prefetch(s->exec, s->engine.prefetch);
    s->engine.exec = s->exec;
    return CIOT_OK;
}

ciot_status ciot_replay_session_open(const ciot_replay_session_opts *o, FILE *log, ciot_replay_session **out,
                                     char *why, size_t why_len) {
    *out = NULL;
    if (o->n_dispatch < 1 || o->n_dispatch > CIOT_DISPATCH_N || o->n_context > CIOT_REPLAY_MAX_CONTEXTS ||
        (o->plan->whole && o->n_context < 1) || o->tokens < 1)
        return ciot_error(CIOT_E_ARG, why, why_len, "a replay session needs 1 to %d dispatches, at most %d contexts "
                          "and a token", CIOT_DISPATCH_N, CIOT_REPLAY_MAX_CONTEXTS);
    ciot_replay_session *s = calloc(1, sizeof *s);
    if (!s) return ciot_error(CIOT_E_NOMEM, why, why_len, "out of memory for the replay");
    s->o = *o;
    s->engine = o->engine;
    s->engine.memory = o->plan->memory;
    s->engine.ring_bytes = o->plan->ring_bytes;
    ciot_pool_opts po = {.threads = o->threads, .pin = o->pin};
    ciot_status st = ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &s->pool);
    if (st != CIOT_OK) {
        free(s);
        /* the options were checked: a pool that fails is the system's refusal, never the user's */
        return ciot_error(st == CIOT_E_ARG ? CIOT_E_SYS : st, why, why_len, "cannot create a pool of %d threads: %s",
                          o->threads, ciot_status_str(st));
    }
    ciot_pool_get_info(s->pool, &s->info);
    s->engine.fill_pool = s->pool;
    if (o->plan->whole && (st = open_token(s, log, why, why_len)) != CIOT_OK) {
        ciot_replay_session_close(s);
        return st;
    }
    runs_of(s);
    fprintf(log, "ciot replay: allocating %.2f GiB of weights (%s: %s) and a %.2f GiB probe buffer, filled by the "
                 "pool\n", (double)o->plan->region_bytes / GIB, s->engine.memory == CIOT_MEMORY_FULL ? "full" : "ring",
            s->engine.memory == CIOT_MEMORY_FULL ? "the whole model, one place per op" : "ops take turns through it",
            (double)o->probe_bytes / GIB);
    st = ciot_ruler_init(&s->ruler, s->pool, o->probe_bytes, !s->engine.small_pages, s->engine.prefetch,
                         CIOT_PROBE_SECONDS, 1);
    if (st == CIOT_OK) st = ciot_replay_create(&s->engine, o->threads, &s->r);
    if (st == CIOT_OK) st = records_alloc(s);
    if (st != CIOT_OK) {
        ciot_replay_session_close(s);
        return ciot_error(st == CIOT_E_ARG ? CIOT_E_NOMEM : st, why, why_len, "cannot allocate the weights, probe "
                          "buffer and activations: %s", ciot_status_str(st));
    }
    *out = s;
    return CIOT_OK;
}

void ciot_replay_session_close(ciot_replay_session *s) {
    if (!s) return;
    for (int i = 0; i < MAX_RUNS; i++) ciot_run_stats_free(&s->stats[i]), free(s->steps_at[i]);
    free(s->pct);
    for (int i = 0; i < s->n_runs; i++) {
        for (int k = 0; s->recs[i] && k < s->o.tokens; k++) ciot_replay_record_free(&s->recs[i][k]);
        free(s->recs[i]);
    }
    ciot_replay_record_free(&s->warm);
    free(s->on_ms);
    free(s->off_ms);
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) free(s->ruler_gbs[p]);
    ciot_replay_destroy(s->r);
    ciot_token_exec_destroy(s->exec);
    ciot_ruler_free(&s->ruler);
    ciot_pool_destroy(s->pool);
    free(s);
}

/* ---- the tokens ---- */

/* The probe samples of one token, side by side with its round: before it, the read probe last; after it,
 * the read probe first. The read sample sits beside the round as always, and each other ruler at the same
 * distance from it before as after. */
static ciot_status sample_rulers(const ciot_replay_session *s, int before, double *gbs, int *order, int *n) {
    ciot_status st = CIOT_OK;
    *n = 0;
    for (int i = 0; i < CIOT_BW_N_KINDS && st == CIOT_OK; i++) {
        const int p = before ? CIOT_BW_N_KINDS - 1 - i : i;
        if (!s->ruler_gbs[p]) continue;
        const ciot_bw_kind kind = (ciot_bw_kind)p;
        st = p == CIOT_BW_READ ? ciot_ruler_sample(&s->ruler, s->pool, &gbs[p])
                               : ciot_ruler_sample_kind(&s->ruler, s->pool, kind, s->ruler_traffic[p], &gbs[p]);
        order[(*n)++] = p;
    }
    return st;
}

/* One overhead pair: a token of dispatch d with timing on (into rec) and one with it off, side by side,
 * in the order ciot_overhead_timed_first gives; both kept, in ms per token, unless pair < 0 (the warm-up).
 * Returns the untimed ns. */
static uint64_t run_pair(ciot_replay_session *s, ciot_dispatch d, ciot_replay_record *rec, int pair, uint64_t *on) {
    const int timed_first = pair < 0 || ciot_overhead_timed_first(pair);
    uint64_t off = timed_first ? 0 : ciot_replay_token(s->r, s->pool, d, NULL);
    *on = ciot_replay_token(s->r, s->pool, d, rec);
    if (timed_first) off = ciot_replay_token(s->r, s->pool, d, NULL);
    const int batch = s->engine.batch;
    if (pair >= 0) s->on_ms[pair] = (double)*on * 1e-6 / batch, s->off_ms[pair] = (double)off * 1e-6 / batch;
    return off;
}

/* Token k's round (0: the warm-up): every run once, the first beside its untimed twin; returns that
 * untimed ns. */
static uint64_t run_round(ciot_replay_session *s, int k, FILE *log) {
    uint64_t off = 0;
    for (int i = 0; i < s->n_runs; i++) {
        const ciot_dispatch d = s->run[i].d;
        ciot_replay_record *rec = k ? &s->recs[i][k - 1] : &s->warm;
        uint64_t ns;
        ciot_replay_set_context(s->r, s->run[i].L);
        if (i) ns = ciot_replay_token(s->r, s->pool, d, rec);
        else off = run_pair(s, d, rec, k - 1, &ns);
        if (s->run[i].L) fprintf(log, "%s %s L=%d %.1f ms", i ? "," : "", ciot_dispatch_name(d), s->run[i].L,
                                 (double)ns * 1e-6);
        else fprintf(log, "%s %s %.1f ms", i ? "," : "", ciot_dispatch_name(d), (double)ns * 1e-6);
    }
    return off;
}

/* Token 0 warms up; then every token runs each dispatch with timing on, interleaved so drift hits all
 * alike, the first dispatch's beside an untimed one of the same dispatch (an overhead pair: the
 * profiler's own cost), and one sample of every probe the steps need on the same pool, before the round on
 * odd tokens and after it on even ones. With fewer than CIOT_OVERHEAD_PAIRS_MIN tokens, extra pairs follow,
 * so that the overhead's spread means something. */
ciot_status ciot_replay_session_run(ciot_replay_session *s, FILE *log) {
    const ciot_dispatch d0 = s->run[0].d;
    const int tokens = s->o.tokens;
    for (int k = 0; k <= tokens; k++) {
        const int probe_first = k && ciot_probe_first(k - 1);
        double gbs[CIOT_BW_N_KINDS] = {0};
        int order[CIOT_BW_N_KINDS], sampled = 0;   /* the probes in the order they ran */
        ciot_status st = probe_first ? sample_rulers(s, 1, gbs, order, &sampled) : CIOT_OK;
        if (k) fprintf(log, "ciot replay: token %d/%d:", k, tokens);
        else fprintf(log, "ciot replay: warm-up:");
        const uint64_t off = run_round(s, k, log);
        if (k && !probe_first && st == CIOT_OK) st = sample_rulers(s, 0, gbs, order, &sampled);
        if (st != CIOT_OK) return st;
        for (int p = 0; k && p < CIOT_BW_N_KINDS; p++)
            if (s->ruler_gbs[p]) s->ruler_gbs[p][k - 1] = gbs[p];
        fprintf(log, "; %s without timing %.1f ms (%s)", ciot_dispatch_name(d0), (double)off * 1e-6,
                !k || ciot_overhead_timed_first(k - 1) ? "after the timed one" : "before the timed one");
        if (k) {
            fprintf(log, "; probe%s", probe_first ? " (before)" : " (after)");
            for (int i = 0; i < sampled; i++)
                fprintf(log, " %s %.2f GB/s", ciot_bw_kind_name((ciot_bw_kind)order[i]), gbs[order[i]]);
        }
        fprintf(log, "\n");
    }
    ciot_replay_set_context(s->r, s->run[0].L);
    for (int p = tokens; p < s->pairs; p++) {
        uint64_t on;
        const uint64_t off = run_pair(s, d0, &s->warm, p, &on);
        fprintf(log, "ciot replay: overhead pair %d/%d: %s %.1f ms; without timing %.1f ms (%s)\n", p + 1, s->pairs,
                ciot_dispatch_name(d0), (double)on * 1e-6, (double)off * 1e-6,
                ciot_overhead_timed_first(p) ? "after the timed one" : "before the timed one");
    }
    return CIOT_OK;
}

/* ---- the summaries ---- */

/* Each run's summary over its measured tokens, the whole token's bytes at the run's context. */
static ciot_status summarize_runs(ciot_replay_session *s, const ciot_paired_samples *paired, size_t weight_bytes) {
    ciot_status st = CIOT_OK;
    for (int i = 0; i < s->n_runs && st == CIOT_OK; i++) {
        const ciot_dispatch d = s->run[i].d;
        const int n = ciot_replay_steps(s->r, d, NULL);
        /* the whole token at this run's context: every step's bytes, the bound's input */
        if ((st = ciot_replay_steps_at(s->r, d, s->run[i].L, &s->steps_at[i])) != CIOT_OK) break;
        size_t bytes = 0;
        for (int k = 0; k < n; k++) bytes += s->steps_at[i][k].bytes;
        if (!ciot_replay_whole_token(s->r)) bytes = weight_bytes;
        st = ciot_run_stats_compute(d, s->recs[i], s->o.tokens, s->steps_at[i], n, s->o.threads, s->engine.batch,
                                    bytes, paired, &s->stats[i]);
        s->stats[i].context = s->run[i].L;
    }
    return st;
}

ciot_status ciot_replay_session_report(ciot_replay_session *s, ciot_replay_report *rep) {
    const ciot_replay_opts *e = &s->engine;
    if (!s->pct && !(s->pct = calloc((size_t)s->pairs, sizeof *s->pct))) return CIOT_E_NOMEM;
    for (int p = 0; p < s->pairs; p++) s->pct[p] = s->off_ms[p] > 0 ? 100 * (s->on_ms[p] / s->off_ms[p] - 1) : 0;
    const ciot_spread probe = ciot_spread_of(s->ruler_gbs[CIOT_BW_READ], s->o.tokens);
    ciot_paired_samples paired = {{0}, {0}};
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) {
        paired.gbs[p] = s->ruler_gbs[p];
        paired.span[p] = p == CIOT_BW_READ ? s->ruler.bytes
                                           : ciot_ruler_span(&s->ruler, (ciot_bw_kind)p, s->ruler_traffic[p]);
    }
    const int whole = ciot_replay_whole_token(s->r);
    *rep = (ciot_replay_report){
        .model = e->model, .n_ops = e->n_ops, .kernel = e->kernel, .threads = s->info.threads,
        .pinned = s->info.pinned,
        .pinning = ciot_pinning_note(s->o.pin, s->info.pinned, s->info.threads, s->pinning, sizeof s->pinning),
        .batch = e->batch, .tokens = s->o.tokens, .chunk = e->chunk, .memory = e->memory, .cold = s->o.plan->cold,
        .memory_bytes = ciot_replay_memory_bytes(s->r), .weight_bytes = ciot_replay_weight_bytes(s->r),
        .probe_gbs = s->ruler_gbs[CIOT_BW_READ], .paired = paired, .ceiling_gbs = probe.median,
        .ceiling_buffer = s->ruler.bytes, .probe_huge_fraction = s->ruler.huge_fraction,
        .weights_huge_fraction = ciot_replay_huge_fraction(s->r), .prefetch = e->prefetch,
        .real_ops = ciot_replay_real_ops(s->r), .left_out = e->model->left_out, .overhead_dispatch = s->run[0].d,
        .overhead_pct = s->pct, .overhead = ciot_overhead_of(s->pct, s->pairs),
        .overhead_on_ms = ciot_median(s->on_ms, s->pairs), .overhead_off_ms = ciot_median(s->off_ms, s->pairs),
        .straggler = e->straggler, .straggler_us = e->straggler_us, .runs = s->stats, .n_runs = s->n_runs,
        .whole_token = whole, .token_ops = whole ? ciot_token_ops_best()->name : "",
        .token_note = e->model->token_note,
    };
    return summarize_runs(s, &rep->paired, rep->weight_bytes);
}
