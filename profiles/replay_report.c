/* The replay's table on stdout and its JSON document. */
#include "replay_report.h"

#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "prefetch.h"

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

static const char rep_kernel_unknown[] = "unknown";

static void json_traffic(ciot_json *j, const ciot_op_traffic *t) {
    ciot_json_key(j, "bytes_by");
    ciot_json_begin_object(j);
    ciot_json_kv_int(j, "weights", (long long)t->weights);
    ciot_json_kv_int(j, "state_read", (long long)t->state_read);
    ciot_json_kv_int(j, "state_written", (long long)t->state_written);
    ciot_json_kv_int(j, "kv_read", (long long)t->kv_read);
    ciot_json_kv_int(j, "kv_written", (long long)t->kv_written);
    ciot_json_kv_int(j, "act_read", (long long)t->act_read);
    ciot_json_kv_int(j, "act_written", (long long)t->act_written);
    ciot_json_end_object(j);
}

static void json_spread(ciot_json *j, const char *key, double lo, double mid, double hi, int places) {
    ciot_json_key(j, key);
    ciot_json_begin_object(j);
    ciot_json_kv_fixed(j, "min", lo, places);
    ciot_json_kv_fixed(j, "median", mid, places);
    ciot_json_kv_fixed(j, "max", hi, places);
    ciot_json_end_object(j);
}

/* The whole token's figures of a run: per kind, the headline split and the ops' sum against the wall. */
static void json_whole(ciot_json *j, const ciot_run_stats *run) {
    ciot_json_kv_int(j, "context", run->context);
    ciot_json_kv_int(j, "bytes_per_token", (long long)run->bytes);
    json_spread(j, "ops_sum_over_wall", run->sum_ratio_min, run->sum_ratio, run->sum_ratio_max, 5);
    ciot_json_key(j, "kinds");
    ciot_json_begin_array(j);
    ciot_kind_stats *k;
    const int n = ciot_kind_stats_compute(run, &k);
    for (int i = 0; i < n; i++) {
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "kind", k[i].kind);
        ciot_json_kv_string(j, "op_kind", ciot_step_kind_name(k[i].tok));
        ciot_json_kv_string(j, "part", ciot_token_part_name(ciot_token_part_of(k[i].tok)));
        ciot_json_kv_int(j, "ops", k[i].count);
        json_spread(j, "ms_per_token", k[i].ms_min, k[i].ms_median, k[i].ms_max, 5);
        ciot_json_kv_int(j, "bytes", (long long)k[i].bytes);
        json_traffic(j, &k[i].traffic);
        ciot_json_kv_fixed(j, "gbs", k[i].ms_median > 0 ? (double)k[i].bytes / k[i].ms_median * 1e-6 : 0, 4);
        ciot_json_kv_string(j, "ruler", ciot_bw_kind_name(k[i].ruler));
        ciot_json_kv_fixed(j, "pct_ceiling_paired", k[i].pct_paired, 3);
        json_spread(j, "pct_ruler_paired", k[i].pct_paired_min, k[i].pct_paired, k[i].pct_paired_max, 3);
        ciot_json_kv_fixed(j, "pct_read_paired", k[i].pct_read_paired, 3);
        ciot_json_kv_fixed(j, "pct_token", k[i].pct_token, 3);
        ciot_json_end_object(j);
    }
    ciot_kind_stats_free(k, n);
    ciot_json_end_array(j);
    ciot_token_split sp;
    ciot_json_key(j, "split");
    ciot_json_begin_object(j);
    if (ciot_token_split_compute(run, &sp) == CIOT_OK)
        for (int p = 0; p < CIOT_PARTS; p++) {
            ciot_json_key(j, ciot_token_part_name((ciot_token_part)p));
            ciot_json_begin_object(j);
            ciot_json_kv_fixed(j, "ms_min", sp.ms_min[p], 5);
            ciot_json_kv_fixed(j, "ms_median", sp.ms_median[p], 5);
            ciot_json_kv_fixed(j, "ms_max", sp.ms_max[p], 5);
            ciot_json_kv_fixed(j, "pct_token", sp.pct[p], 3);
            ciot_json_kv_int(j, "bytes", (long long)sp.bytes[p]);
            ciot_json_end_object(j);
        }
    ciot_json_end_object(j);
}

static void json_op(ciot_json *j, const ciot_run_stats *run, int i, int whole) {
    const ciot_replay_step *st = &run->steps[i];
    const ciot_step_stats *x = &run->step[i];
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "name", st->name);
    ciot_json_kv_string(j, "kind", st->kind);
    if (whole) {
        ciot_json_kv_string(j, "op_kind", ciot_step_kind_name(st->tok));
        ciot_json_kv_string(j, "ruler", ciot_bw_kind_name(run->paired.gbs[st->ruler] ? st->ruler : CIOT_BW_READ));
        json_traffic(j, &st->traffic);
    }
    ciot_json_kv_int(j, "rows", st->rows);
    ciot_json_kv_int(j, "K", st->K);
    ciot_json_kv_int(j, "fused_ops", st->n_ops);
    ciot_json_kv_string(j, "op_kernel", st->kernel ? st->kernel->name : st->tok != CIOT_STEP_MATVEC ? "token_ops"
                                                                                                 : rep_kernel_unknown);
    ciot_json_kv_int(j, "bytes", (long long)st->bytes);
    ciot_json_kv_bool(j, "lm_head", st->lm_head);
    ciot_json_kv_fixed(j, "wall_us", x->wall_us, 3);
    ciot_json_kv_fixed(j, "gbs", x->gbs, 4);
    ciot_json_kv_fixed(j, "pct_ceiling", x->pct_ceiling, 3);
    ciot_json_kv_bool(j, "ratio_above_1", x->pct_ceiling > 100);
    ciot_json_key(j, "threads");
    ciot_json_begin_array(j);
    for (int t = 0; t < run->threads; t++) {
        ciot_json_begin_object(j);
        ciot_json_kv_fixed(j, "busy_us", x->busy_us[t], 3);
        ciot_json_kv_fixed(j, "wait_us", x->wait_us[t], 3);
        ciot_json_kv_fixed(j, "start_us", x->start_us[t], 3);
        ciot_json_kv_fixed(j, "injected_us", x->injected_us[t], 3);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

static void json_run(ciot_json *j, const ciot_replay_report *rep, const ciot_run_stats *run) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "dispatch", ciot_dispatch_name(run->dispatch));
    ciot_json_key(j, "ms_per_token");
    ciot_json_begin_object(j);
    ciot_json_kv_fixed(j, "min", run->ms_min, 4);
    ciot_json_kv_fixed(j, "median", run->ms_median, 4);
    ciot_json_kv_fixed(j, "max", run->ms_max, 4);
    ciot_json_end_object(j);
    ciot_json_kv_fixed(j, "tok_s", run->tok_s, 4);
    ciot_json_kv_fixed(j, "bound_tok_s", run->bound_tok_s, 4);
    ciot_json_kv_fixed(j, "gbs", run->gbs, 4);
    ciot_json_kv_fixed(j, "pct_ceiling", run->pct_ceiling, 3);
    ciot_json_kv_fixed(j, "ceiling_gbs", run->ceiling_gbs, 4);
    ciot_json_kv_fixed(j, "bound_gbs", run->bound_gbs, 4);
    ciot_json_key(j, "ratio");
    ciot_json_begin_object(j);
    ciot_json_kv_fixed(j, "min", run->ratio_min, 4);
    ciot_json_kv_fixed(j, "median", run->pct_ceiling / 100, 4);
    ciot_json_kv_fixed(j, "max", run->ratio_max, 4);
    ciot_json_end_object(j);
    ciot_json_key(j, "ratio_per_token");
    ciot_json_begin_array(j);
    for (int k = 0; k < run->tokens; k++) ciot_json_fixed(j, run->ratio[k], 4);
    ciot_json_end_array(j);
    ciot_json_kv_bool(j, "ratio_above_1", run->ratio_above_1);
    ciot_json_kv_fixed(j, "wait_share", run->wait_share, 5);
    if (rep->straggler >= 0) {
        ciot_json_kv_fixed(j, "injected_share", run->injected_share, 5);
        ciot_json_kv_fixed(j, "straggler_wait_ratio", ciot_straggler_wait_ratio(run, rep->straggler), 4);
    }
    if (rep->whole_token) json_whole(j, run);
    ciot_json_kv_int(j, "steps", run->n_steps);
    ciot_json_key(j, "ops");
    ciot_json_begin_array(j);
    for (int i = 0; i < run->n_steps; i++) json_op(j, run, i, rep->whole_token);
    ciot_json_end_array(j);
    ciot_json_key(j, "slowest");
    ciot_json_begin_array(j);
    for (int i = 0; i < run->n_slowest; i++) ciot_json_string(j, run->steps[run->slowest[i]].name);
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

ciot_status ciot_replay_write_json(const char *path, const ciot_replay_report *rep, const ciot_context *ctx, char *why,
                                   size_t why_len) {
    ciot_json *j;
    ciot_status st = ciot_json_create(path, &j, why, why_len);
    if (st != CIOT_OK) return st;
    ciot_json_begin_object(j);
    ciot_json_key(j, "context");
    ciot_json_begin_object(j);
    ciot_context_write(j, ctx);
    ciot_json_end_object(j);
    ciot_json_kv_string(j, "model", rep->model->name);
    ciot_json_kv_string(j, "model_file", rep->model->path);
    ciot_json_kv_int(j, "ops_replayed", rep->n_ops);
    ciot_json_kv_int(j, "ops_in_model", rep->model->n_ops);
    ciot_json_kv_int(j, "ops_with_real_bytes", rep->real_ops);
    ciot_json_kv_string(j, "left_out", rep->left_out ? rep->left_out : "");
    ciot_json_kv_string(j, "kernel", rep->kernel->name);
    ciot_json_kv_string(j, "layout", rep->kernel->layout->name);
    ciot_json_kv_int(j, "threads", rep->threads);
    ciot_json_kv_bool(j, "pinned", rep->pinned);
    ciot_json_kv_string(j, "pinning", rep->pinning);
    ciot_json_kv_int(j, "batch", rep->batch);
    ciot_json_kv_int(j, "chunk_tiles", rep->chunk);
    ciot_json_kv_string(j, "memory", rep->memory == CIOT_MEMORY_FULL ? "full" : "ring");
    ciot_json_kv_int(j, "memory_bytes", (long long)rep->memory_bytes);
    ciot_json_kv_bool(j, "cold", rep->cold);
    ciot_json_kv_int(j, "tokens", rep->tokens);
    ciot_json_kv_int(j, "warmup_tokens", 1);
    ciot_json_kv_fixed(j, "ceiling_gbs", rep->ceiling_gbs, 4);
    ciot_json_key(j, "probe_gbs_per_token");
    ciot_json_begin_array(j);
    for (int k = 0; k < rep->tokens; k++) ciot_json_fixed(j, rep->probe_gbs[k], 4);
    ciot_json_end_array(j);
    ciot_json_kv_string(j, "pairing", "one sample of every ruler per token round (every dispatch of that token), on "
                                      "the same pool; the probes go first on odd tokens (the read probe last, beside "
                                      "the round) and after it on even tokens (the read probe first)");
    ciot_json_key(j, "rulers");
    ciot_json_begin_array(j);
    for (int p = 0; p < CIOT_BW_N_KINDS; p++) {
        if (!rep->paired.gbs[p]) continue;
        const ciot_spread sp = ciot_spread_of(rep->paired.gbs[p], rep->tokens);
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "ruler", ciot_bw_kind_name((ciot_bw_kind)p));
        ciot_json_kv_string(j, "traffic", ciot_bw_traffic((ciot_bw_kind)p));
        ciot_json_kv_string(j, "for", ciot_ruler_use((ciot_bw_kind)p));
        ciot_json_kv_int(j, "span_bytes", (long long)rep->paired.span[p]);
        ciot_json_key(j, "gbs_per_token");
        ciot_json_begin_array(j);
        for (int k = 0; k < rep->tokens; k++) ciot_json_fixed(j, rep->paired.gbs[p][k], 4);
        ciot_json_end_array(j);
        json_spread(j, "gbs", sp.min, sp.median, sp.max, 4);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_kv_int(j, "ceiling_buffer_bytes", (long long)rep->ceiling_buffer);
    ciot_json_kv_bool(j, "ceiling_buffer_cache_resident", ciot_cache_resident(rep->ceiling_buffer));
    ciot_json_kv_int(j, "prefetch_bytes", (long long)rep->prefetch);
    ciot_json_kv_string(j, "prefetch_hint", rep->prefetch ? CIOT_PREFETCH_HINT : "none");
    ciot_json_kv_string(j, "probe_plans", CIOT_BW_PLANS_TEXT);
    ciot_json_key(j, "huge_page_fraction");
    ciot_json_begin_object(j);
    ciot_json_kv_number(j, "weights", rep->weights_huge_fraction);
    ciot_json_kv_number(j, "probe", rep->probe_huge_fraction);
    ciot_json_end_object(j);
    ciot_json_key(j, "flags");
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "ratio_above_1", CIOT_RATIO_FLAG);
    ciot_json_kv_string(j, "cold_false", "weights smaller than 4 x LLC plus the largest matvec: ops may hit the cache");
    ciot_json_end_object(j);
    ciot_json_kv_int(j, "weight_bytes_per_token", (long long)rep->weight_bytes);
    ciot_json_key(j, "timing_overhead");
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "dispatch", ciot_dispatch_name(rep->overhead_dispatch));
    ciot_json_kv_string(j, "method", "pairs of a token with the pool's per-thread timing and one without, side by "
                                     "side; the timed one first on pairs 0, 1, 4, 5, ... (the probe alternates every "
                                     "token, so each order meets it before and after alike); per pair timed / "
                                     "untimed - 1");
    ciot_json_kv_int(j, "pairs", rep->overhead.pairs);
    ciot_json_key(j, "pct_per_pair");
    ciot_json_begin_array(j);
    for (int p = 0; p < rep->overhead.pairs; p++) ciot_json_fixed(j, rep->overhead_pct[p], 4);
    ciot_json_end_array(j);
    ciot_json_kv_fixed(j, "overhead_pct", rep->overhead.median_pct, 4);
    ciot_json_kv_fixed(j, "min_pct", rep->overhead.min_pct, 4);
    ciot_json_kv_fixed(j, "max_pct", rep->overhead.max_pct, 4);
    ciot_json_kv_bool(j, "within_noise", rep->overhead.within_noise);
    ciot_json_kv_fixed(j, "on_ms_per_token", rep->overhead_on_ms, 4);
    ciot_json_kv_fixed(j, "off_ms_per_token", rep->overhead_off_ms, 4);
    ciot_json_end_object(j);
    ciot_json_key(j, "straggler");
    if (rep->straggler < 0) {
        ciot_json_null(j);
    } else {
        ciot_json_begin_object(j);
        ciot_json_kv_int(j, "thread", rep->straggler);
        ciot_json_kv_number(j, "us", rep->straggler_us);
        ciot_json_end_object(j);
    }
    if (rep->whole_token) {
        ciot_json_kv_bool(j, "whole_token", 1);
        ciot_json_kv_string(j, "token_ops", rep->token_ops);
        ciot_json_key(j, "contexts");
        ciot_json_begin_array(j);
        for (int i = 0; i < rep->n_runs; i++)
            if (rep->runs[i].dispatch == rep->runs[0].dispatch) ciot_json_int(j, rep->runs[i].context);
        ciot_json_end_array(j);
        ciot_crossover c;
        ciot_json_key(j, "crossover");
        if (ciot_replay_crossover(rep, &c) != CIOT_OK) {
            ciot_json_null(j);
        } else {
            ciot_json_begin_object(j);
            ciot_json_kv_string(j, "dispatch", ciot_dispatch_name(rep->runs[0].dispatch));
            ciot_json_kv_int(j, "points", c.points);
            ciot_json_kv_fixed(j, "attention_intercept_ms", c.intercept_ms, 5);
            ciot_json_kv_fixed(j, "attention_ms_per_position", c.slope_ms, 9);
            ciot_json_kv_fixed(j, "matvecs_ms", c.matvec_ms, 4);
            ciot_json_kv_fixed(j, "context", c.crossover_L, 1);
            ciot_json_end_object(j);
        }
    } else if (rep->token_note && rep->token_note[0]) {
        ciot_json_kv_string(j, "matvecs_only_because", rep->token_note);
    }
    ciot_json_key(j, "runs");
    ciot_json_begin_array(j);
    for (int i = 0; i < rep->n_runs; i++) json_run(j, rep, &rep->runs[i]);
    ciot_json_end_array(j);
    ciot_json_end_object(j);
    return ciot_json_commit(j, why, why_len);
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
