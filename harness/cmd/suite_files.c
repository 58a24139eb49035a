/* The source files side by side (suite_summary.h): per operation, shape, batch and thread count, each file's
 * fastest kernel of the run, and a smaller file against the 2-bit file of the same model. */
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "suite_pick.h"
#include "suite_summary.h"

/* The 2-bit file each smaller file is an alternative to: Bonsai's PTQ1_0 to its PQ2_0, ggml's TQ1_0 to TQ2_0. */
static int two_bit_of(ciot_format f) {
    return f == CIOT_FMT_PTQ1_0 ? CIOT_FMT_PQ2_0 : f == CIOT_FMT_TQ1_0 ? CIOT_FMT_TQ2_0 : -1;
}

static double source_bits(ciot_format f) {
    return 8.0 * (double)ciot_format_block_bytes(f) / ciot_format_block_values(f);
}

/* Whether row i is the first of its cell (so each cell is printed once, in the rows' order). */
static int first_of_cell(const ciot_bench_row *rows, int i) {
    for (int j = 0; j < i; j++)
        if (!rows[j].peer && ciot_suite_same_cell(&rows[j], &rows[i])) return 0;
    return 1;
}

/* A gemv row whose speed follows the bus: at least this median fraction of its paired read ceiling. */
#define CIOT_BUS_BOUND 0.8

/* A ratio and the range the two rows' min - max allow; ok 0 when there is none. */
typedef struct { double median, min, max; int ok; } spread;

/* The smaller file's fastest row a against the 2-bit file's b: Gweights/s, the medians' ratio and the range the
 * two rows' min - max allow; and for two gemvs that both follow the bus, the same from each row's paired read
 * ratio (kernel GB/s over its probe sample, per repetition) times the layouts' bits: the speed ratio both would
 * have on one bus, so the drift between the two rows, timed apart, cancels. A kernel further from the bus runs
 * at its own pace, and dividing by the bus would credit it with the bus's drift. */
static void ratios(const ciot_bench_row *a, const ciot_bench_row *b, int gemv, spread *speed, spread *matched) {
    *speed = (spread){a->gw_median / b->gw_median, a->gw_min / b->gw_max, a->gw_max / b->gw_min, 1};
    *matched = (spread){0, 0, 0, 0};
    if (!gemv || !(a->ratio_min > 0) || !(b->ratio_min > 0) || !(a->ratio_median >= CIOT_BUS_BOUND) ||
        !(b->ratio_median >= CIOT_BUS_BOUND))
        return;
    const double bits = (b->gbs_median / b->gw_median) / (a->gbs_median / a->gw_median); /* bits_b / bits_a */
    *matched = (spread){bits * a->ratio_median / b->ratio_median, bits * a->ratio_min / b->ratio_max,
                        bits * a->ratio_max / b->ratio_min, 1};
}

static const char *spread_cell(const spread *s, char *buf, size_t len) {
    if (s->ok) snprintf(buf, len, "%.2f (%.2f - %.2f)", s->median, s->min, s->max);
    else snprintf(buf, len, "-");
    return buf;
}

static void spread_json(ciot_json *j, const char *key, const spread *s) {
    if (s->ok) ciot_suite_json_spread(j, key, s->min, s->median, s->max);
    else ciot_json_key(j, key), ciot_json_null(j);
}

/* One file's row of a cell, in markdown and (j not NULL) as a JSON object. */
static void file_row(FILE *f, ciot_json *j, int fmt, const ciot_suite_pick *p, const ciot_bench_row *b, int gemv) {
    const ciot_bench_row *a = p->best;
    const ciot_suite_ratio q = ciot_suite_ratio_of(a);
    spread speed = {0, 0, 0, 0}, matched = {0, 0, 0, 0};
    if (b) ratios(a, b, gemv, &speed, &matched);
    char name[16], pick[160], s1[48], s2[48];
    ciot_suite_file_name(fmt, name, sizeof name);
    snprintf(pick, sizeof pick, "%s%s%s%s", a->kernel, p->tie ? " (**tie** with " : "", p->tie ? p->next->kernel : "",
             p->tie ? ")" : "");
    fprintf(f, "| %s | %dx%d | %d | %d | %s (%g) | %s | %.1f (%.1f - %.1f) | %.0f%%%s | %s | %s |\n", gemv ? "gemv" : "gemm",
            a->rows, a->K, a->batch, a->threads, name, source_bits((ciot_format)fmt), pick, a->gw_median, a->gw_min,
            a->gw_max, 100 * q.median, q.read && !gemv ? " read" : "", spread_cell(&speed, s1, sizeof s1),
            spread_cell(&matched, s2, sizeof s2));
    if (!j) return;
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "op", gemv ? "gemv" : "gemm");
    ciot_json_kv_int(j, "rows", a->rows);
    ciot_json_kv_int(j, "K", a->K);
    ciot_json_kv_int(j, "batch", a->batch);
    ciot_json_kv_int(j, "threads", a->threads);
    ciot_json_kv_string(j, "file", name);
    ciot_json_kv_number(j, "bits_per_weight", source_bits((ciot_format)fmt));
    ciot_json_kv_string(j, "kernel", a->kernel);
    ciot_suite_json_spread(j, "gweights_s", a->gw_min, a->gw_median, a->gw_max);
    ciot_suite_json_roof(j, a);
    ciot_suite_json_kernel(j, "runner_up", p->next);
    ciot_json_kv_bool(j, "tie", p->tie);
    spread_json(j, "x_two_bit", &speed);
    spread_json(j, "x_two_bit_same_bus", &matched);
    ciot_json_end_object(j);
}

void ciot_suite_files_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n) {
    int any = 0;
    for (int i = 0; i < n && !any; i++) any = !strcmp(rows[i].pool, "persistent") && ciot_kernel_find(rows[i].kernel);
    if (j) ciot_json_key(j, "side_by_side"), ciot_json_begin_array(j);
    if (any)
        fprintf(f, "### The source files side by side\n\n"
                   "| op | shape | batch | threads | file (bits a weight) | fastest kernel | Gweights/s median (min - max) | "
                   "%% of roof median | x the 2-bit file | x the 2-bit file, same bus |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n && any; i++) {
        const ciot_bench_row *r = &rows[i];
        const ciot_kernel *kr = ciot_kernel_find(r->kernel);
        if (!kr || strcmp(r->pool, "persistent") || !first_of_cell(rows, i)) continue;
        for (int fmt = CIOT_FMT_PQ2_0; fmt <= CIOT_FMT_TQ2_0; fmt++) {
            const ciot_suite_pick p = ciot_suite_pick_of(rows, n, r, fmt);
            if (!p.best) continue;
            const int two = two_bit_of((ciot_format)fmt);
            file_row(f, j, fmt, &p, two >= 0 ? ciot_suite_pick_of(rows, n, r, two).best : NULL, kr->op == CIOT_OP_GEMV);
        }
    }
    if (j) ciot_json_end_array(j);
    if (!any) return;
    fprintf(f, "\nPer cell (operation, shape, batch, threads; the persistent pool), each source file's fastest kernel in "
               "this run by median Gweights/s, whatever its layout, marked **tie** with the runner-up when that is "
               "within noise (as in the first table), and its %% of its own roof (the table below); a gemm without a "
               "compute roof (lookup, scalar) shows its %% of the paired read ceiling instead, marked read. A "
               "smaller file is an alternative to its model's 2-bit file (PTQ1_0 to PQ2_0, TQ1_0 to TQ2_0): x the 2-bit "
               "file is its Gweights/s over that file's fastest in the same cell, the medians' ratio (and the range the "
               "two rows' min - max allow). The rows were timed apart and the machine drifts between them, so for two gemvs "
               "that both follow the bus (each at %.0f%% or more of its paired read ceiling) the last column takes the "
               "ratio from each row's paired read ratio instead (per repetition, kernel GB/s over the probe sampled beside "
               "it) times the two layouts' bytes a weight: the ratio of their speeds on one bus. A gemv further from the "
               "bus runs at its own pace, and a gemm row's roof is the peak of the instructions its kernel issues: they "
               "share no ruler, and show -.\n", 100 * CIOT_BUS_BOUND);
}
