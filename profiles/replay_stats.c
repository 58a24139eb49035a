/* Medians of replayed tokens per step and per thread, the run's totals, and the per-kind rollup. */
#include "replay_stats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ciot_overhead ciot_overhead_of(const double *pct, int n) {
    ciot_overhead o = {.within_noise = 1};   /* no pairs: nothing to claim */
    double *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
    if (!v) return o;
    o.pairs = n;
    memcpy(v, pct, (size_t)n * sizeof *v);
    const ciot_spread s = ciot_spread_sort(v, n);
    o.median_pct = s.median, o.min_pct = s.min, o.max_pct = s.max;
    o.within_noise = o.min_pct <= 0 && 0 <= o.max_pct;
    free(v);
    return o;
}

static double gbs_of(size_t bytes, double us) { return us > 0 ? (double)bytes / us * 1e-3 : 0; }

/* ns the bytes timed by each ruler take at its rate gbs[ruler] (B/ns); 0 when a ruler with bytes has no rate. */
static double bound_ns(const size_t *by_ruler, const double *gbs) {
    double ns = 0;
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) {
        if (!by_ruler[p]) continue;
        if (!(gbs[p] > 0)) return 0;
        ns += (double)by_ruler[p] / gbs[p];
    }
    return ns;
}

/* The median over tokens of one cell of a per-thread field (given by its offset in the record, so the
 * four fields share this loop), in microseconds. */
static double cell_median(const ciot_replay_record *recs, int tokens, size_t offset, size_t cell, double *tmp) {
    for (int k = 0; k < tokens; k++) {
        const uint64_t *field = *(uint64_t *const *)((const char *)&recs[k] + offset);
        tmp[k] = (double)field[cell] * 1e-3;
    }
    return ciot_median(tmp, tokens);
}

/* Each ruler's median over the tokens; the read probe's is the ceiling. */
static void ruler_medians(const ciot_paired_samples *paired, int tokens, double *tmp, ciot_run_stats *out) {
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) {
        if (!paired->gbs[p]) continue;
        out->paired.gbs[p] = paired->gbs[p];
        memcpy(tmp, paired->gbs[p], (size_t)tokens * sizeof *tmp);
        out->ruler_median[p] = ciot_median(tmp, tokens);
    }
    out->ceiling_gbs = out->ruler_median[CIOT_BW_READ];
}

/* The bytes each ruler times: a sampled ruler its steps' bytes, the read probe the rest of the weights. */
static void bytes_by_ruler(const ciot_run_stats *out, size_t weight_bytes, size_t *by_ruler) {
    size_t others = 0;
    for (int s = 0; s < out->n_steps; s++)
        if (out->steps[s].ruler != CIOT_BW_READ && out->paired.gbs[out->steps[s].ruler]) {
            by_ruler[out->steps[s].ruler] += out->steps[s].bytes;
            others += out->steps[s].bytes;
        }
    by_ruler[CIOT_BW_READ] = weight_bytes > others ? weight_bytes - others : 0;
}

/* Per step: its median wall time against its ruler's median, and the median of each per-thread cell, the
 * four per-thread fields laid out one after the other in CELLS. */
static void step_medians(const ciot_replay_record *recs, double *cells, double *tmp, ciot_run_stats *out) {
    const int tokens = out->tokens, threads = out->threads;
    const size_t per = (size_t)out->n_steps * (size_t)threads;
    for (int s = 0; s < out->n_steps; s++) {
        const ciot_replay_step *step = &out->steps[s];
        ciot_step_stats *st = &out->step[s];
        const double ceiling = out->ruler_median[out->paired.gbs[step->ruler] ? step->ruler : CIOT_BW_READ];
        for (int k = 0; k < tokens; k++) tmp[k] = (double)recs[k].wall_ns[s] * 1e-3;
        st->wall_us = ciot_median(tmp, tokens);
        st->gbs = gbs_of(step->bytes, st->wall_us);
        st->pct_ceiling = ceiling > 0 ? 100 * st->gbs / ceiling : 0;
        st->busy_us = cells + (size_t)s * threads;
        st->wait_us = st->busy_us + per;
        st->start_us = st->wait_us + per;
        st->injected_us = st->start_us + per;
        for (int t = 0; t < threads; t++) {
            const size_t c = (size_t)s * threads + (size_t)t;
            st->busy_us[t] = cell_median(recs, tokens, offsetof(ciot_replay_record, busy_ns), c, tmp);
            st->wait_us[t] = cell_median(recs, tokens, offsetof(ciot_replay_record, wait_ns), c, tmp);
            st->start_us[t] = cell_median(recs, tokens, offsetof(ciot_replay_record, start_ns), c, tmp);
            st->injected_us[t] = cell_median(recs, tokens, offsetof(ciot_replay_record, injected_ns), c, tmp);
        }
    }
}

/* Totals per token (a replayed pass covers `batch` tokens): the spread of the token times, and the shares of
 * all thread time spent waiting and injected. */
static ciot_spread token_times(const ciot_replay_record *recs, double *tmp, ciot_run_stats *out) {
    const size_t per = (size_t)out->n_steps * (size_t)out->threads;
    double wait = 0, injected = 0, time = 0;
    for (int k = 0; k < out->tokens; k++) {
        tmp[k] = (double)recs[k].token_ns * 1e-6 / out->batch;
        time += (double)recs[k].token_ns * out->threads;
        for (size_t c = 0; c < per; c++) wait += (double)recs[k].wait_ns[c], injected += (double)recs[k].injected_ns[c];
    }
    out->wait_share = time > 0 ? wait / time : 0;
    out->injected_share = time > 0 ? injected / time : 0;
    return ciot_spread_sort(tmp, out->tokens);
}

/* Each token against its own probe samples: the time its bytes take at them over its time. */
static void token_ratios(const ciot_replay_record *recs, const size_t *by_ruler, ciot_run_stats *out) {
    for (int k = 0; k < out->tokens; k++) {
        double at[CIOT_BW_N_KINDS] = {0};
        for (int p = 0; p < CIOT_BW_N_KINDS; p++) at[p] = out->paired.gbs[p] ? out->paired.gbs[p][k] : 0;
        const double bound = bound_ns(by_ruler, at);
        const double r = bound > 0 && recs[k].token_ns ? bound / (double)recs[k].token_ns : 0;
        out->ratio[k] = r;
        out->ratio_above_1 |= r > 1;
    }
}

/* Nothing hides between the steps: their times summed against the token's, per token. */
static void sum_ratios(const ciot_replay_record *recs, ciot_run_stats *out) {
    double *sum = malloc((size_t)out->tokens * sizeof *sum);
    if (!sum) return;
    for (int k = 0; k < out->tokens; k++) {
        uint64_t ns = 0;
        for (int s = 0; s < out->n_steps; s++) ns += recs[k].wall_ns[s];
        sum[k] = recs[k].token_ns ? (double)ns / (double)recs[k].token_ns : 0;
    }
    const ciot_spread sr = ciot_spread_sort(sum, out->tokens);
    out->sum_ratio = sr.median, out->sum_ratio_min = sr.min, out->sum_ratio_max = sr.max;
    free(sum);
}

/* The run's rates: tokens/s and GB/s at the median token, the paired share of the ceiling, and the bound. */
static void run_rates(const ciot_spread ms, const size_t *by_ruler, double *tmp, ciot_run_stats *out) {
    const int batch = out->batch;
    out->ms_min = ms.min, out->ms_median = ms.median, out->ms_max = ms.max;
    out->tok_s = out->ms_median > 0 ? 1e3 / out->ms_median : 0;
    out->gbs = gbs_of(out->bytes, out->ms_median * batch * 1e3);
    memcpy(tmp, out->ratio, (size_t)out->tokens * sizeof *tmp);
    const ciot_spread ratio = ciot_spread_sort(tmp, out->tokens);
    out->pct_ceiling = out->probe_gbs ? 100 * ratio.median : 0;
    out->ratio_min = out->probe_gbs ? ratio.min : 0;
    out->ratio_max = out->probe_gbs ? ratio.max : 0;
    const double bound = bound_ns(by_ruler, out->ruler_median);
    out->bound_gbs = bound > 0 ? (double)out->bytes / bound : 0;
    out->bound_tok_s = bound > 0 ? 1e9 / bound * batch : 0;
}

/* The slowest steps: lowest GB/s, i.e. furthest below what their bytes would allow. */
static void rank_slowest(ciot_run_stats *out) {
    for (int s = 0; s < out->n_steps; s++) {
        int pos = out->n_slowest < CIOT_SLOWEST ? out->n_slowest++ : CIOT_SLOWEST;
        while (pos > 0 && out->step[s].gbs < out->step[out->slowest[pos - 1]].gbs) {
            if (pos < CIOT_SLOWEST) out->slowest[pos] = out->slowest[pos - 1];
            pos--;
        }
        if (pos < CIOT_SLOWEST) out->slowest[pos] = s;
    }
}

ciot_status ciot_run_stats_compute(ciot_dispatch d, const ciot_replay_record *recs, int tokens,
                                   const ciot_replay_step *steps, int n_steps, int threads, int batch,
                                   size_t weight_bytes, const ciot_paired_samples *paired, ciot_run_stats *out) {
    memset(out, 0, sizeof *out);
    const double *probe_gbs = paired ? paired->gbs[CIOT_BW_READ] : NULL;
    if (tokens < 1 || n_steps < 1 || threads < 1 || batch < 1) return CIOT_E_ARG;
    *out = (ciot_run_stats){.dispatch = d, .n_steps = n_steps, .threads = threads, .tokens = tokens,
                            .batch = batch, .steps = steps, .bytes = weight_bytes};
    double *tmp = malloc((size_t)tokens * sizeof *tmp);
    double *cells = calloc((size_t)n_steps * (size_t)threads * 4, sizeof *cells);
    out->step = calloc((size_t)n_steps, sizeof *out->step);
    out->ratio = calloc((size_t)tokens, sizeof *out->ratio);
    if (!tmp || !cells || !out->step || !out->ratio) {
        free(tmp), free(cells), free(out->step), free(out->ratio);
        out->step = NULL, out->ratio = NULL;
        return CIOT_E_NOMEM;
    }
    /* a step whose ruler was not sampled is paired with the read probe */
    if (probe_gbs) ruler_medians(paired, tokens, tmp, out);
    size_t by_ruler[CIOT_BW_N_KINDS] = {0};
    bytes_by_ruler(out, weight_bytes, by_ruler);
    step_medians(recs, cells, tmp, out);
    const ciot_spread ms = token_times(recs, tmp, out);
    if (probe_gbs) token_ratios(recs, by_ruler, out);
    sum_ratios(recs, out);
    out->recs = recs, out->probe_gbs = probe_gbs;
    run_rates(ms, by_ruler, tmp, out);
    free(tmp);
    rank_slowest(out);
    return CIOT_OK;
}

void ciot_run_stats_free(ciot_run_stats *s) {
    if (s->step) free(s->step[0].busy_us);    /* one block holds every step's per-thread cells */
    free(s->step);
    free(s->ratio);
    memset(s, 0, sizeof *s);
}

static void traffic_add(ciot_op_traffic *a, const ciot_op_traffic *b) {
    a->weights += b->weights, a->state_read += b->state_read, a->state_written += b->state_written;
    a->kv_read += b->kv_read, a->kv_written += b->kv_written;
    a->act_read += b->act_read, a->act_written += b->act_written;
    a->fmas += b->fmas, a->widened += b->widened;
}

/* ns of token k spent in the steps that match (kind, or part when kind is NULL). */
static uint64_t token_ns_of(const ciot_run_stats *run, int k, const char *kind, int part) {
    uint64_t ns = 0;
    for (int s = 0; s < run->n_steps; s++)
        if (kind ? !strcmp(run->steps[s].kind, kind) : (int)ciot_token_part_of(run->steps[s].tok) == part)
            ns += run->recs[k].wall_ns[s];
    return ns;
}

/* A kind's per-token spread, its paired share of the ceiling and its share of the token. */
static void kind_spread(const ciot_run_stats *run, ciot_kind_stats *k) {
    if (!run->recs || run->tokens < 1) return;
    double *ms = malloc((size_t)run->tokens * 3 * sizeof *ms);
    if (!ms) return;
    double *pct = ms + run->tokens, *pct_read = pct + run->tokens;
    const double *own = run->paired.gbs[k->ruler], *read = run->paired.gbs[CIOT_BW_READ];
    for (int t = 0; t < run->tokens; t++) {
        const uint64_t ns = token_ns_of(run, t, k->kind, 0);
        const double gbs = ns ? (double)k->bytes / (double)ns : 0;
        ms[t] = (double)ns * 1e-6 / run->batch;
        pct[t] = own && own[t] > 0 ? 100 * gbs / own[t] : 0;
        pct_read[t] = read && read[t] > 0 ? 100 * gbs / read[t] : 0;
    }
    k->pct_read_paired = ciot_median(pct_read, run->tokens);
    const ciot_spread pp = ciot_spread_sort(pct, run->tokens);
    k->pct_paired = pp.median, k->pct_paired_min = pp.min, k->pct_paired_max = pp.max;
    const ciot_spread sp = ciot_spread_sort(ms, run->tokens);
    k->ms_min = sp.min, k->ms_median = sp.median, k->ms_max = sp.max;
    k->pct_token = run->ms_median > 0 ? 100 * k->ms_median / run->ms_median : 0;
    free(ms);
}

const char *ciot_token_part_name(ciot_token_part p) {
    static const char *const names[CIOT_PARTS] = {"matvecs", "deltanet", "attention", "state_copies", "rest"};
    return (unsigned)p < CIOT_PARTS ? names[p] : "unknown";
}

ciot_token_part ciot_token_part_of(ciot_step_kind k) {
    switch (k) {
    case CIOT_STEP_MATVEC: return CIOT_PART_MATVECS;
    case CIOT_STEP_DELTANET: return CIOT_PART_DELTANET;
    case CIOT_STEP_ATTENTION: return CIOT_PART_ATTENTION;
    case CIOT_STEP_STATE_COPY: return CIOT_PART_STATE_COPIES;
    default: return CIOT_PART_REST;
    }
}

ciot_status ciot_token_split_compute(const ciot_run_stats *run, ciot_token_split *out) {
    memset(out, 0, sizeof *out);
    double *ms = malloc((size_t)run->tokens * sizeof *ms);
    if (!ms || !run->recs) {
        free(ms);
        return CIOT_E_NOMEM;
    }
    for (int s = 0; s < run->n_steps; s++) out->bytes[ciot_token_part_of(run->steps[s].tok)] += run->steps[s].bytes;
    for (int p = 0; p < CIOT_PARTS; p++) {
        for (int t = 0; t < run->tokens; t++) ms[t] = (double)token_ns_of(run, t, NULL, p) * 1e-6 / run->batch;
        const ciot_spread sp = ciot_spread_sort(ms, run->tokens);
        out->ms_min[p] = sp.min, out->ms_median[p] = sp.median, out->ms_max[p] = sp.max;
        out->pct[p] = run->ms_median > 0 ? 100 * sp.median / run->ms_median : 0;
    }
    free(ms);
    return CIOT_OK;
}

int ciot_kind_stats_compute(const ciot_run_stats *run, ciot_kind_stats **out) {
    const int T = run->threads;
    ciot_kind_stats *k = calloc((size_t)run->n_steps, sizeof *k);
    double *cells = calloc((size_t)run->n_steps * (size_t)T * 3, sizeof *cells);
    *out = NULL;
    if (!k || !cells) {
        free(k), free(cells);
        return -1;
    }
    int n = 0;
    for (int s = 0; s < run->n_steps; s++) {
        const ciot_replay_step *st = &run->steps[s];
        int i = 0;
        while (i < n && strcmp(k[i].kind, st->kind)) i++;
        if (i == n) {
            n++;
            snprintf(k[i].kind, sizeof k[i].kind, "%s", st->kind);
            k[i].rows = st->rows, k[i].K = st->K;
            k[i].busy_us = cells + (size_t)i * T * 3;
            k[i].wait_us = k[i].busy_us + T;
            k[i].injected_us = k[i].wait_us + T;
        }
        if (k[i].rows != st->rows) k[i].rows = -1;
        if (k[i].K != st->K) k[i].K = -1;
        k[i].tok = st->tok;
        k[i].ruler = run->paired.gbs[st->ruler] ? st->ruler : CIOT_BW_READ;
        k[i].count++;
        k[i].bytes += st->bytes;
        traffic_add(&k[i].traffic, &st->traffic);
        k[i].wall_us += run->step[s].wall_us;
        for (int t = 0; t < T; t++) {
            k[i].busy_us[t] += run->step[s].busy_us[t];
            k[i].wait_us[t] += run->step[s].wait_us[t];
            k[i].injected_us[t] += run->step[s].injected_us[t];
        }
    }
    for (int i = 0; i < n; i++) kind_spread(run, &k[i]);
    for (int i = 0; i < n; i++) {
        k[i].gbs = gbs_of(k[i].bytes, k[i].wall_us);
        const double ceiling = run->ruler_median[k[i].ruler];
        k[i].pct_ceiling = ceiling > 0 ? 100 * k[i].gbs / ceiling : 0;
        for (int t = 0; t < T; t++) {
            k[i].busy_us[t] /= k[i].count;
            k[i].wait_us[t] /= k[i].count;
            k[i].injected_us[t] /= k[i].count;
        }
    }
    *out = k;
    return n;
}

void ciot_kind_stats_free(ciot_kind_stats *k, int n) {
    if (k && n > 0) free(k[0].busy_us);
    free(k);
}

double ciot_straggler_wait_ratio(const ciot_run_stats *run, int straggler) {
    if (straggler < 0 || straggler >= run->threads || run->threads < 2) return 0;
    double *r = malloc((size_t)run->n_steps * sizeof *r);
    if (!r) return 0;
    int n = 0;
    for (int s = 0; s < run->n_steps; s++) {
        const ciot_step_stats *st = &run->step[s];
        if (st->injected_us[straggler] <= 0) continue;
        double least = -1;
        for (int t = 0; t < run->threads; t++)
            if (t != straggler && (least < 0 || st->wait_us[t] < least)) least = st->wait_us[t];
        r[n++] = least / st->injected_us[straggler];
    }
    const double m = ciot_median(r, n);
    free(r);
    return m;
}

int ciot_kind_read_flagged(const ciot_kind_stats *k) { return k->ruler == CIOT_BW_READ && k->pct_read_paired > 100; }
