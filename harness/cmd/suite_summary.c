/* The markdown summary of a suite run (suite_summary.h): one row per benchmark case, each judged against
 * its own roof (roof.h), and the footnotes of the flags that appear. */
#include "suite_summary.h"

#include <string.h>
#include "measure.h"
#include "roof.h"

/* The stock kernel at the same threads and pool: the fastest pq2_0 gemv measured. */
static const ciot_bench_row *stock_for(const ciot_bench_row *rows, int n, const ciot_bench_row *r) {
    const ciot_bench_row *best = NULL;
    for (int i = 0; i < n; i++)
        if (!strncmp(rows[i].kernel, "pq2_0_gemv", 10) && rows[i].threads == r->threads && !strcmp(rows[i].pool, r->pool) &&
            (!best || rows[i].gw_median > best->gw_median))
            best = &rows[i];
    return best;
}

/* A row's compute roof and its ratio to its roof (roof.h), as the summary prints them. */
static void roof_cells(const ciot_bench_row *r, char *comp, size_t comp_len, char *roof, size_t roof_len, char *pct,
                       size_t pct_len) {
    snprintf(comp, comp_len, "-");
    snprintf(roof, roof_len, "-");
    snprintf(pct, pct_len, "-");
    if (r->family[0])
        snprintf(comp, comp_len, "%.1f (%.1f - %.1f) %s", r->compute_median, r->compute_min, r->compute_max, r->family);
    else if (r->no_family[0])
        snprintf(comp, comp_len, "none (%s)", r->no_family);
    if (r->bound == CIOT_ROOF_NONE) return;
    /* a compute roof names its row: which instruction sequence's peak the gemm is judged by */
    snprintf(roof, roof_len, "%s%s%s%s", ciot_roof_kind_name((ciot_roof_kind)r->bound),
             r->bound == CIOT_ROOF_COMPUTE && r->family[0] ? " " : "", r->bound == CIOT_ROOF_COMPUTE ? r->family : "",
             r->bound_mixed ? "\\*" : "");
    snprintf(pct, pct_len, "%.0f%% (%.0f - %.0f%%)", 100 * r->roof_median, 100 * r->roof_min, 100 * r->roof_max);
}

/* One line naming the instructions of every compute roof the rows were judged by, in the probe's order. */
static void sequences_used(FILE *f, const ciot_bench_row *rows, int n) {
    int any = 0;
    for (int fam = 0; fam < CIOT_COMPUTE_N_FAMILIES; fam++) {
        const char *name = ciot_compute_family_name((ciot_compute_family)fam);
        int used = 0;
        for (int i = 0; i < n && !used; i++) used = !strcmp(rows[i].family, name);
        if (!used) continue;
        fprintf(f, "%s`%s`: %s", any ? "; " : "\nCompute roofs, one per instruction sequence a kernel issues (ciot compute's "
                                                "rows): ", name, ciot_compute_instruction((ciot_compute_family)fam));
        any = 1;
    }
    if (any) fprintf(f, ".\n");
}

void ciot_suite_summary(FILE *f, const ciot_bench_row *rows, int n, const ciot_context *c, int quick) {
    fprintf(f, "## ciot suite%s: %s, %s, commit %s%s, %s\n\n", quick ? " --quick" : "", c->host, c->cpu, c->commit,
            c->dirty > 0 ? " (dirty)" : "", c->date);
    ciot_suite_files_summary(f, rows, n);
    fprintf(f, "\n### Every case\n\n| kernel | threads | pool | batch | Gweights/s median (min - max) | GB/s | paired probe GB/s | MAC/B | "
               "paired compute GMAC/s | roof | %% of roof median (min - max) | x stock |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int above = 0, cache = 0, compute = 0, mixed = 0, outlier = 0;
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i], *s = stock_for(rows, n, r);
        char speed[32] = "-", flags[64] = "", comp[64], roof[48], pct[48];
        if (s && r->batch == 1) snprintf(speed, sizeof speed, "%.2f", r->gw_median / s->gw_median);
        if (r->ratio_above_1) strcat(flags, " **[1]**"), above = 1;
        if (r->above_compute_roof) strcat(flags, " **[3]**"), compute = 1;
        if (r->cache_resident) strcat(flags, " **[2]**"), cache = 1;
        if (r->low_outlier) strcat(flags, " **[4]**"), outlier = 1;
        mixed |= r->bound_mixed;
        roof_cells(r, comp, sizeof comp, roof, sizeof roof, pct, sizeof pct);
        fprintf(f, "| %s | %d | %s | %d | %.1f (%.1f - %.1f) | %.2f | %.2f | %.1f | %s | %s | %s%s | %s |\n", r->kernel,
                r->threads, r->pool, r->batch, r->gw_median, r->gw_min, r->gw_max, r->gbs_median, r->probe_median,
                r->intensity, comp, roof, pct, flags, speed);
    }
    fprintf(f, "\nGB/s counts packed weight bytes (scales included). Every repetition pairs the kernel with a read-probe "
               "sample on the same pool and thread count (same pages, prefetch policy and buffer rule), and a gemm whose "
               "kernel multiplies with an int8 family with a compute-probe sample of that family too; ratios are taken "
               "per repetition. Gemm rows: Gweights/s = GMAC/s = rows x K x batch / s; MAC/B = rows x K x batch / "
               "weight bytes. roof: a gemv row's is the paired read ceiling (%% = kernel GB/s / paired probe GB/s); a "
               "gemm row's is the roofline bound at its MAC/B, the lower of bw = paired probe GB/s x MAC/B and compute "
               "= the paired compute sample (%% = GMAC/s over that bound). Lookup kernels (`mac=lookup` in `ciot kernels`) "
               "do no multiplies and scalar references have no vector family: their gemm rows "
               "have no compute roof and no %%. x stock: Gweights/s over the fastest pq2_0 gemv at the same threads "
               "and pool.\n");
    sequences_used(f, rows, n);
    if (mixed) fprintf(f, "\n\\* the repetitions differ in which roof bounds them (near the ridge; bench.json has each).\n");
    if (above) fprintf(f, "\n[1] a repetition read above 100%% of its paired ceiling: %s. A finding, not a result.\n", CIOT_RATIO_FLAG);
    if (cache) fprintf(f, "\n[2] %s.\n", CIOT_CACHE_FLAG);
    if (compute) fprintf(f, "\n[3] a compute-bound repetition above 100%% of its compute sample: %s. A finding, not a result.\n",
                         CIOT_COMPUTE_FLAG);
    if (outlier) fprintf(f, "\n[4] %s. That repetition's ratio is a finding, not a result.\n", CIOT_OUTLIER_FLAG);
}

/* The batch-4 row of the same kernel, threads and pool. */
static const ciot_bench_row *batch4_of(const ciot_bench_row *rows, int n, const ciot_bench_row *r) {
    for (int i = 0; i < n; i++)
        if (rows[i].batch == 4 && rows[i].threads == r->threads && !strcmp(rows[i].kernel, r->kernel) &&
            !strcmp(rows[i].pool, r->pool))
            return &rows[i];
    return NULL;
}

/* time(B) / (ceil(B / 4) x time(4)) of batch B run at gw_b Gweights/s against batch 4 at gw_4. */
static double padded_ratio(int batch, double gw_b, double gw_4) {
    return (batch / gw_b) / (((batch + 3) / 4) * 4 / gw_4);
}

/* Whether a row belongs in the speculative-verification table. */
static int spec_row(const ciot_bench_row *r, const char *kernels) {
    char key[80];
    snprintf(key, sizeof key, ",%s,", r->kernel);
    return r->batch >= 2 && r->batch <= 8 && !strcmp(r->pool, "persistent") && (!kernels || strstr(kernels, key));
}

void ciot_suite_spec_summary(FILE *f, const ciot_bench_row *rows, int n, const char *kernels) {
    int any = 0;
    for (int i = 0; i < n; i++) any |= spec_row(&rows[i], kernels);
    if (!any) return;
    fprintf(f, "\n### Speculative-verification batches\n\n"
               "| kernel | threads | batch | Gweights/s median (min - max) | ms per call | time(B) / (ceil(B/4) x time(4)) |\n"
               "|---|---|---|---|---|---|\n");
    int cliff = 0, spread = 0;
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i], *four = batch4_of(rows, n, r);
        if (!spec_row(r, kernels) || !(r->gw_median > 0)) continue;
        const double ms = 1e-6 * r->rows * (double)r->K * r->batch / r->gw_median; /* MACs / (GMAC/s) */
        char ratio[80] = "-";
        if (four && four->gw_median > 0 && r->gw_min > 0 && four->gw_min > 0) {
            /* the medians' ratio, and its range over the two rows' min - max: a cliff is a range wholly above 1.1,
             * since the rows were timed apart and the machine drifts between them */
            const double q = padded_ratio(r->batch, r->gw_median, four->gw_median),
                         lo = padded_ratio(r->batch, r->gw_max, four->gw_min), hi = padded_ratio(r->batch, r->gw_min, four->gw_max);
            snprintf(ratio, sizeof ratio, "%.2f (%.2f - %.2f)%s", q, lo, hi,
                     lo > 1.1 ? " **cliff**" : q > 1.1 ? " over 1.1 within the spread" : "");
            cliff |= lo > 1.1;
            spread |= q > 1.1 && lo <= 1.1;
        }
        fprintf(f, "| %s | %d | %d | %.1f (%.1f - %.1f) | %.2f | %s |\n", r->kernel, r->threads, r->batch, r->gw_median,
                r->gw_min, r->gw_max, ms, ratio);
    }
    fprintf(f, "\nEach source file's chosen gemm (the registry's highest-ranked on this CPU) at the batches a draft "
               "model's verification step meets, rows of the same bench run (bench.json), medians. A batch B pads to ceil(B/4) "
               "groups of 4 activation rows; the last column compares one call with that many calls at batch 4, the medians "
               "(and the range the two rows' min - max allow): %s%s.\n",
            cliff ? "a row whose whole range is over 1.1 (**cliff**) costs more than its padded groups"
                  : "no row's whole range is over 1.1, no cliff",
            spread ? "; a median over 1.1 whose range reaches 1.1 or below is the run's spread, not called a cliff (time "
                     "the two batches again)"
                   : "");
}
