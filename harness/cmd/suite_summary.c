/* The summary of a suite run (suite_summary.h): the derived tables in order, then one row per benchmark case,
 * each judged against its own roof (roof.h), with the footnotes of the flags that appear; and the two files. */
#include "suite_summary.h"

#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "os.h"
#include "output.h"
#include "roof.h"
#include "suite_pick.h"

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

/* The table of every case (bench.json has its rows; summary.json does not repeat them) and its footnotes. */
static void every_case(FILE *f, const ciot_bench_row *rows, int n) {
    fprintf(f, "\n### Every case\n\n| kernel | threads | pool | batch | Gweights/s median (min - max) | GB/s | paired probe GB/s | MAC/B | "
               "paired compute GMAC/s | roof | %% of roof median (min - max) | x stock |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int above = 0, cache = 0, compute = 0, mixed = 0, outlier = 0;
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i], *s = stock_for(rows, n, r);
        char speed[32] = "-", flags[64] = "", comp[64], roof[48], pct[48];
        if (s && r->batch == 1) snprintf(speed, sizeof speed, "%.2f", r->gw_median / s->gw_median);
        ciot_suite_flag_marks(r, flags, sizeof flags);
        above |= r->ratio_above_1, compute |= r->above_compute_roof, cache |= r->cache_resident, outlier |= r->low_outlier;
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


void ciot_suite_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n, const ciot_context *c, int quick,
                        const char *spec_kernels) {
    fprintf(f, "## ciot suite%s: %s, %s, commit %s%s, %s\n\n", quick ? " --quick" : "", c->host, c->cpu, c->commit,
            c->dirty > 0 ? " (dirty)" : "", c->date);
    if (j) {
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "summary", "ciot suite");
        ciot_json_kv_int(j, "schema", 1);
        ciot_json_kv_bool(j, "quick", quick);
        ciot_json_key(j, "context");
        ciot_json_begin_object(j);
        ciot_context_write(j, c);
        ciot_json_end_object(j);
    }
    ciot_suite_answer(f, j, rows, n, c->topo.cores);
    ciot_suite_files_summary(f, j, rows, n);
    ciot_suite_peers_summary(f, j, rows, n);
    every_case(f, rows, n);
    ciot_suite_baseline_summary(f, j, rows, n);
    ciot_suite_spec_summary(f, j, rows, n, spec_kernels);
    if (j) ciot_json_end_object(j);
}

int ciot_suite_write_summaries(const char *dir, const ciot_bench_row *rows, int n, const ciot_context *c, int quick,
                               const char *spec_kernels) {
    char path[2200], why[CIOT_WHY_MAX];
    int failed = 0;
    ciot_json *j = NULL;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (ciot_json_create(path, &j, why, sizeof why) != CIOT_OK) fprintf(stderr, "ciot suite: %s\n", why), j = NULL, failed = 1;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = ciot_os_memstream_open(&text, &len);
    if (!mem) {
        if (j) ciot_json_discard(j);
        fprintf(stderr, "ciot suite: no memory for the summary\n");
        return 1;
    }
    ciot_suite_summary(mem, j, rows, n, c, quick, spec_kernels);
    if (ciot_os_memstream_close(mem, &text, &len) != 0) {
        if (j) ciot_json_discard(j);
        free(text);
        fprintf(stderr, "ciot suite: no memory for the summary\n");
        return 1;
    }
    if (j && ciot_json_commit(j, why, sizeof why) != CIOT_OK) fprintf(stderr, "ciot suite: %s\n", why), failed = 1;
    /* summary.md through a temporary name, like every other file of the run */
    snprintf(path, sizeof path, "%s/summary.md", dir);
    if (ciot_write_atomic(path, text, len, why, sizeof why) != CIOT_OK) fprintf(stderr, "ciot suite: %s\n", why), failed = 1;
    printf("\n%s", text ? text : "");
    free(text);
    return failed;
}
