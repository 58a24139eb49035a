/* The replay's table on stdout and the attention/matvec crossover (the JSON document: replay_json.c). */
#include "replay_report.h"

#include <stdlib.h>
#include <string.h>

enum { LIST_THREADS = 8 };     /* up to this many threads, per-thread values are listed one by one */

/* Per-thread values as "12/180" (up to LIST_THREADS threads) or "min..max" beyond. */
static const char *per_thread(const double *v, int threads, char *buf, size_t len) {
    if (threads > LIST_THREADS) {
        double lo = v[0], hi = v[0];
        for (int t = 1; t < threads; t++) lo = v[t] < lo ? v[t] : lo, hi = v[t] > hi ? v[t] : hi;
        snprintf(buf, len, "%.0f..%.0f", lo, hi);
        return buf;
    }
    size_t used = 0;
    buf[0] = 0;
    for (int t = 0; t < threads && used < len; t++) {
        int w = snprintf(buf + used, len - used, "%s%.0f", t ? "/" : "", v[t]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return buf;
}

static const char *shape(int rows, int K, char *buf, size_t len) {
    if (rows == 0 && K == 0) snprintf(buf, len, "-");   /* an op between the matvecs */
    else if (rows < 0 || K < 0) snprintf(buf, len, "mixed");
    else snprintf(buf, len, "%dx%d", rows, K);
    return buf;
}

/* A percentage above 100 is flagged with "!": the probe read slower than the op (see the footnote). */
static void print_row(FILE *f, const char *name, int count, const char *shp, double mb, double ms, double gbs,
                      double pct, const double *busy, const double *wait, int threads) {
    char b[160], w[160];
    fprintf(f, "%-28s %4d %-12s %9.2f %9.3f %7.2f %6.1f%s %-20s %s\n", name, count, shp, mb, ms, gbs, pct,
            pct > 100 ? "!" : " ", per_thread(busy, threads, b, sizeof b), per_thread(wait, threads, w, sizeof w));
}

/* The whole token of one run: per kind ms per token with its spread, bytes by what they are, GB/s, the
 * paired share of its own ruler (with its spread) and of the read ruler beside it, and of the token; the
 * headline split; the ops' sum against the wall time. */
static void print_whole(FILE *f, const ciot_run_stats *run) {
    ciot_kind_stats *k;
    const int n = ciot_kind_stats_compute(run, &k);
    fprintf(f, "\n== %s, context %d: per op kind, ms per token median (min-max over %d tokens); %%ruler: paired with "
               "the kind's own ruler, %%read: with the read probe\n",
            ciot_dispatch_name(run->dispatch), run->context, run->tokens);
    fprintf(f, "%-16s %4s %22s %9s %9s %9s %9s %8s %-7s %19s %7s %7s\n", "kind", "ops", "ms/token (min-max)",
            "weights MB", "state MB", "KV MB", "act MB", "GB/s", "ruler", "%ruler (min-max)", "%read", "%token");
    for (int i = 0; i < n; i++) {
        const ciot_op_traffic *t = &k[i].traffic;
        char ms[64], pct[64];
        snprintf(ms, sizeof ms, "%.3f (%.3f-%.3f)", k[i].ms_median, k[i].ms_min, k[i].ms_max);
        snprintf(pct, sizeof pct, "%.1f (%.0f-%.0f)%s", k[i].pct_paired, k[i].pct_paired_min, k[i].pct_paired_max,
                 k[i].pct_paired_max > 100 ? "!" : " ");
        fprintf(f, "%-16s %4d %22s %9.2f %9.2f %9.2f %9.3f %8.2f %-7s %19s %6.1f%s %6.1f%%\n", k[i].kind, k[i].count,
                ms, (double)t->weights * 1e-6, (double)(t->state_read + t->state_written) * 1e-6,
                (double)(t->kv_read + t->kv_written) * 1e-6, (double)(t->act_read + t->act_written) * 1e-6,
                k[i].ms_median > 0 ? (double)k[i].bytes / k[i].ms_median * 1e-6 : 0,
                ciot_bw_kind_name(k[i].ruler), pct, k[i].pct_read_paired, ciot_kind_read_flagged(&k[i]) ? "!" : " ",
                k[i].pct_token);
    }
    if (n < 0) fprintf(f, "(out of memory for the per-kind table)\n");
    ciot_kind_stats_free(k, n);
    ciot_token_split sp;
    if (ciot_token_split_compute(run, &sp) == CIOT_OK) {
        fprintf(f, "token %.2f ms:", run->ms_median);
        for (int p = 0; p < CIOT_PARTS; p++)
            fprintf(f, "%s %s %.2f ms (%.1f%%)", p ? "," : "", ciot_token_part_name((ciot_token_part)p),
                    sp.ms_median[p], sp.pct[p]);
        fprintf(f, "\n");
    }
    fprintf(f, "the ops' times summed: %.2f%% of the token's wall time (median; %.2f%% - %.2f%% over tokens)\n",
            100 * run->sum_ratio, 100 * run->sum_ratio_min, 100 * run->sum_ratio_max);
}

static void print_run(FILE *f, const ciot_replay_report *rep, const ciot_run_stats *run, int per_op) {
    char s[64];
    if (rep->whole_token && !per_op) {
        print_whole(f, run);
        return;
    }
    fprintf(f, "\n== %s: per %s (median over %d tokens); busy and wait in us per op, thread 0/1/...\n",
            ciot_dispatch_name(run->dispatch), per_op ? "op" : "op kind", run->tokens);
    fprintf(f, "%-28s %4s %-12s %9s %9s %7s %6s  %-20s %s\n", per_op ? "op" : "kind", "ops", "rows x K",
            per_op ? "MB" : "MB total", per_op ? "ms" : "ms total", "GB/s", "%ceil", "busy us/op", "wait us/op");
    if (per_op) {
        for (int i = 0; i < run->n_steps; i++) {
            const ciot_replay_step *st = &run->steps[i];
            const ciot_step_stats *x = &run->step[i];
            print_row(f, st->name, st->n_ops, shape(st->rows, st->K, s, sizeof s), (double)st->bytes * 1e-6,
                      x->wall_us * 1e-3, x->gbs, x->pct_ceiling, x->busy_us, x->wait_us, run->threads);
        }
    } else {
        ciot_kind_stats *k;
        const int n = ciot_kind_stats_compute(run, &k);
        for (int i = 0; i < n; i++)
            print_row(f, k[i].kind, k[i].count, shape(k[i].rows, k[i].K, s, sizeof s), (double)k[i].bytes * 1e-6,
                      k[i].wall_us * 1e-3, k[i].gbs, k[i].pct_ceiling, k[i].busy_us, k[i].wait_us, run->threads);
        if (n < 0) fprintf(f, "(out of memory for the per-kind table)\n");
        ciot_kind_stats_free(k, n);
    }
    fprintf(f, "slowest (lowest GB/s):");
    for (int i = 0; i < run->n_slowest; i++) {
        const ciot_step_stats *x = &run->step[run->slowest[i]];
        fprintf(f, "%s %s %.0f us %.2f GB/s", i ? "," : "", run->steps[run->slowest[i]].name, x->wall_us, x->gbs);
    }
    fprintf(f, "\n");
    if (rep->straggler >= 0)
        fprintf(f, "straggler: thread %d injected %.0f us per op (%.1f%% of thread time); the other threads waited "
                   "%.1f%% of it (median over ops of the least-waiting thread)\n",
                rep->straggler, rep->straggler_us, 100 * run->injected_share,
                100 * ciot_straggler_wait_ratio(run, rep->straggler));
}

/* A spread that holds zero is noise, whatever the median's sign: said so rather than a signed figure. */
void ciot_replay_print_overhead(FILE *f, const ciot_replay_report *rep) {
    const ciot_overhead *ov = &rep->overhead;
    fprintf(f, "\nprofiler overhead (%s, %d pairs of a timed and an untimed token side by side): ",
            ciot_dispatch_name(rep->overhead_dispatch), ov->pairs);
    if (ov->within_noise)
        fprintf(f, "within noise, %+.2f%% to %+.2f%% (median %+.2f%%)", ov->min_pct, ov->max_pct, ov->median_pct);
    else
        fprintf(f, "%+.2f%% median, %+.2f%% to %+.2f%%: every pair %s with timing", ov->median_pct, ov->min_pct,
                ov->max_pct, ov->min_pct > 0 ? "slower" : "faster");
    fprintf(f, "; medians %.2f vs %.2f ms/token\n", rep->overhead_on_ms, rep->overhead_off_ms);
}

/* Where attention's time would equal the matvecs': a line through (L, attention ms) fitted over the runs of
 * the first dispatch, against their median matvec time. */
static void print_crossover(FILE *f, const ciot_replay_report *rep) {
    ciot_crossover c;
    if (ciot_replay_crossover(rep, &c) != CIOT_OK) return;
    fprintf(f, "\nattention vs the matvecs (%s, %d contexts): attention %.4f ms + %.3f us per position; matvecs %.2f "
               "ms; ", ciot_dispatch_name(rep->runs[0].dispatch), c.points, c.intercept_ms, c.slope_ms * 1e3,
            c.matvec_ms);
    if (c.crossover_L > 0) fprintf(f, "attention would equal them at a context of %.0f positions\n", c.crossover_L);
    else fprintf(f, "no crossover (attention does not grow with the context here)\n");
}

void ciot_replay_print(FILE *f, const ciot_replay_report *rep, int per_op) {
    const double gb = (double)rep->weight_bytes * 1e-9;
    fprintf(f, "# ciot replay: %s (%s), %d of %d ops, kernel %s, %d thread%s [%s], batch %d\n", rep->model->name,
            rep->model->path, rep->n_ops, rep->model->n_ops, rep->kernel->name, rep->threads,
            rep->threads > 1 ? "s" : "", rep->pinning, rep->batch);
    if (rep->real_ops) fprintf(f, "# the file's real bytes for %d of %d ops%s\n", rep->real_ops, rep->n_ops,
                               rep->real_ops < rep->n_ops ? " (the others drawn)" : "");
    if (rep->left_out && rep->left_out[0]) fprintf(f, "# left out: %s\n", rep->left_out);
    fprintf(f, "# weights %.3f GB per pass; memory %s (%.2f GiB%s); %d tokens after 1 warm-up, interleaved\n", gb,
            rep->memory == CIOT_MEMORY_FULL ? "full" : "ring", (double)rep->memory_bytes / (1 << 30),
            rep->cold ? ", every op starts cold" : ", smaller than 4x the LLC: ops may hit the cache", rep->tokens);
    const ciot_spread probe = ciot_spread_of(rep->probe_gbs, rep->tokens);
    fprintf(f, "# ceiling: one read-probe sample per token round on the same pool (%s buffer, prefetch %s; "
               CIOT_BW_PLANS_TEXT "), median "
               "%.2f (%.2f - %.2f) GB/s; %% of ceiling per token is paired, per op against the median; GB/s = packed "
               "weight bytes (scales included) / s\n",
            rep->ceiling_buffer >= ciot_cold_bytes() ? "DRAM-sized" : "SMALL", rep->prefetch ? "on" : "off",
            probe.median, probe.min, probe.max);
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) {
        if (p == CIOT_BW_READ || !rep->paired.gbs[p]) continue;
        const ciot_spread sp = ciot_spread_of(rep->paired.gbs[p], rep->tokens);
        fprintf(f, "# ruler of %s: one %s-probe sample per token round beside the read sample (same buffer, pages, "
                   "prefetch policy and sample length; %.0f MB of it, the working set of those ops), median %.2f "
                   "(%.2f - %.2f) GB/s; %s\n",
                ciot_ruler_use((ciot_bw_kind)p), ciot_bw_kind_name((ciot_bw_kind)p), rep->paired.span[p] / 1e6,
                sp.median, sp.min, sp.max, ciot_bw_traffic((ciot_bw_kind)p));
    }
    if (rep->whole_token)
        fprintf(f, "# the whole token: every op between the matvecs too (ops %s); bytes = read + written (a state "
                   "updated in place counts twice, a copy its source and destination; write-allocate reads are not "
                   "counted, as the probes count theirs); each kind is paired with the probe of its traffic, and the "
                   "bound is every byte a token moves at its kind's paired ruler\n", rep->token_ops);
    else if (rep->token_note && rep->token_note[0])
        fprintf(f, "# the matvecs only: %s\n", rep->token_note);
    fprintf(f, "\n%-8s %8s %28s %8s %11s %8s %22s %10s\n", "dispatch", "context", "ms/token median (min-max)", "tok/s",
            "bound tok/s", "GB/s", "%ceiling paired (min-max)", "wait share");
    int flagged = 0;
    for (int i = 0; i < rep->n_runs; i++) {
        const ciot_run_stats *r = &rep->runs[i];
        char ms[64], pct[64];
        snprintf(ms, sizeof ms, "%.2f (%.2f-%.2f)", r->ms_median, r->ms_min, r->ms_max);
        snprintf(pct, sizeof pct, "%.1f%% (%.0f-%.0f%%)%s", r->pct_ceiling, 100 * r->ratio_min, 100 * r->ratio_max,
                 r->ratio_above_1 ? "!" : "");
        flagged |= r->ratio_above_1;
        char context[16] = "-";
        if (rep->whole_token) snprintf(context, sizeof context, "%d", r->context);
        fprintf(f, "%-8s %8s %28s %8.2f %11.2f %8.2f %22s %9.1f%%\n", ciot_dispatch_name(r->dispatch), context, ms,
                r->tok_s, r->bound_tok_s, r->gbs, pct, 100 * r->wait_share);
    }
    fprintf(f, "!: above 100%% of the paired ceiling (a kind: of its own ruler), %s: a finding, not a result%s\n", CIOT_RATIO_FLAG,
            flagged ? " (present above)" : " (none above; op rows may carry it)");
    if (rep->batch > 1)
        fprintf(f, "(batch %d: a pass replays %d tokens; per-token figures are per pass / %d)\n", rep->batch,
                rep->batch, rep->batch);
    for (int i = 0; i < rep->n_runs; i++) print_run(f, rep, &rep->runs[i], per_op);
    if (rep->whole_token) print_crossover(f, rep);
    ciot_replay_print_overhead(f, rep);
}

ciot_status ciot_replay_crossover(const ciot_replay_report *rep, ciot_crossover *out) {
    memset(out, 0, sizeof *out);
    if (!rep->whole_token || rep->n_runs < 2) return CIOT_E_ARG;
    double x[64], y[64], mv[64];
    int n = 0;
    for (int i = 0; i < rep->n_runs && n < 64; i++) {
        const ciot_run_stats *r = &rep->runs[i];
        ciot_token_split sp;
        if (r->dispatch != rep->runs[0].dispatch || ciot_token_split_compute(r, &sp) != CIOT_OK) continue;
        x[n] = r->context, y[n] = sp.ms_median[CIOT_PART_ATTENTION], mv[n] = sp.ms_median[CIOT_PART_MATVECS];
        n++;
    }
    if (n < 2) return CIOT_E_ARG;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    const double d = n * sxx - sx * sx;
    if (d <= 0) return CIOT_E_ARG;
    out->points = n;
    out->slope_ms = (n * sxy - sx * sy) / d;
    out->intercept_ms = (sy - out->slope_ms * sx) / n;
    out->matvec_ms = ciot_median(mv, n);
    out->crossover_L = out->slope_ms > 0 ? (out->matvec_ms - out->intercept_ms) / out->slope_ms : 0;
    return CIOT_OK;
}
