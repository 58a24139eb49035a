/* The replay's JSON document, in the schema of profiles/README.md. */
#include "replay_report.h"

#include "json.h"
#include "place.h"
#include "prefetch.h"

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

/* Every ruler sampled, with its samples per token and their spread. */
static void json_rulers(ciot_json *j, const ciot_replay_report *rep) {
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
}

/* The profiler's own cost, from its pairs of timed and untimed tokens. */
static void json_overhead(ciot_json *j, const ciot_replay_report *rep) {
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
}

/* The whole token's contexts and where attention overtakes the matvecs. */
static void json_whole_token(ciot_json *j, const ciot_replay_report *rep) {
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
    ciot_json_key(j, "pus");   /* the PU each pool thread ran on after its binding; null where unknown */
    ciot_json_begin_array(j);
    for (int th = 0; th < rep->threads; th++) {
        const int pu = rep->pinned ? ciot_place_ran_on(th) : -1;
        if (pu >= 0) ciot_json_int(j, pu);
        else ciot_json_null(j);
    }
    ciot_json_end_array(j);
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
    json_rulers(j, rep);
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
    json_overhead(j, rep);
    ciot_json_key(j, "straggler");
    if (rep->straggler < 0) {
        ciot_json_null(j);
    } else {
        ciot_json_begin_object(j);
        ciot_json_kv_int(j, "thread", rep->straggler);
        ciot_json_kv_number(j, "us", rep->straggler_us);
        ciot_json_end_object(j);
    }
    if (rep->whole_token) json_whole_token(j, rep);
    else if (rep->token_note && rep->token_note[0]) ciot_json_kv_string(j, "matvecs_only_because", rep->token_note);
    ciot_json_key(j, "runs");
    ciot_json_begin_array(j);
    for (int i = 0; i < rep->n_runs; i++) json_run(j, rep, &rep->runs[i]);
    ciot_json_end_array(j);
    ciot_json_end_object(j);
    return ciot_json_commit(j, why, why_len);
}

