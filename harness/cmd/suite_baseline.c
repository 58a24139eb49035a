/* Each kernel of a richer ISA against its baseline (suite_summary.h; ciot_kernel_baseline, registry.h: an
 * AVX-512 or AVX-VNNI kernel against the AVX2 kernel of the same layout and operation), per thread count over
 * the run's batches. The rows were timed minutes apart on a machine that can drift by more than a row's own
 * spread (results/kernel-bounds.md, "Probes and the ruler"), so a cell below 1 is a lead to time the two again
 * side by side, not a finding. */
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "suite_pick.h"
#include "suite_summary.h"

/* The persistent-pool row of kernel name in the cell of row r (threads, batch, shape), among rows[0 .. n), or NULL. */
static const ciot_bench_row *row_of(const ciot_bench_row *rows, int n, const char *name, const ciot_bench_row *r) {
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].kernel, name) && !strcmp(rows[i].pool, "persistent") && rows[i].threads == r->threads &&
            rows[i].batch == r->batch && rows[i].rows == r->rows && rows[i].K == r->K && rows[i].gw_min > 0)
            return &rows[i];
    return NULL;
}

/* Row a's cells beside its baseline's row b: a persistent row of a kernel with a baseline, and b found. */
static const ciot_bench_row *baseline_row(const ciot_bench_row *rows, int n, const ciot_bench_row *a, const ciot_kernel **k,
                                          const ciot_kernel **t) {
    *k = ciot_kernel_find(a->kernel);
    *t = *k ? ciot_kernel_baseline(*k) : NULL;
    if (!*t || strcmp(a->pool, "persistent") || !(a->gw_min > 0)) return NULL;
    return row_of(rows, n, (*t)->name, a);
}

/* Whether row i is the first of its kernel and thread count with a baseline row beside it (each pair printed once,
 * though its first batch may have none). */
static int first_of_pair(const ciot_bench_row *rows, int n, int i) {
    const ciot_kernel *k, *t;
    for (int j = 0; j < i; j++)
        if (!strcmp(rows[j].kernel, rows[i].kernel) && rows[j].threads == rows[i].threads && baseline_row(rows, n, &rows[j], &k, &t))
            return 0;
    return 1;
}

/* A row's place in its kernel's list: "gemv", or "bB" for a gemm at batch B. */
static const char *where(const ciot_kernel *k, const ciot_bench_row *a, char *buf, size_t len) {
    if (k->op == CIOT_OP_GEMV) snprintf(buf, len, "gemv");
    else snprintf(buf, len, "b%d", a->batch);
    return buf;
}

/* A cell as JSON: where, Gweights/s over the baseline's (medians, and the range the two rows' min - max allow). */
static void cell_json(ciot_json *j, const ciot_kernel *k, const ciot_bench_row *a, const ciot_bench_row *b, int lead) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "op", k->op == CIOT_OP_GEMV ? "gemv" : "gemm");
    ciot_json_kv_int(j, "batch", a->batch);
    ciot_suite_json_spread(j, "x_baseline", a->gw_min / b->gw_max, a->gw_median / b->gw_median, a->gw_max / b->gw_min);
    ciot_json_kv_bool(j, "lead", lead);
    ciot_json_end_object(j);
}

void ciot_suite_baseline_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n) {
    int any = 0, leads = 0;
    if (j) ciot_json_key(j, "baselines"), ciot_json_begin_array(j);
    for (int i = 0; i < n; i++) {
        const ciot_kernel *k, *t;
        if (!baseline_row(rows, n, &rows[i], &k, &t) || !first_of_pair(rows, n, i)) continue;
        const char *ranked = ciot_kernel_rank(k) > ciot_kernel_rank(t) ? "above" : "below";
        if (j) {
            ciot_json_begin_object(j);
            ciot_json_kv_string(j, "kernel", k->name);
            ciot_json_kv_string(j, "baseline", t->name);
            ciot_json_kv_string(j, "ranked", ranked);
            ciot_json_kv_int(j, "threads", rows[i].threads);
            ciot_json_key(j, "cells"), ciot_json_begin_array(j);
        }
        char cells[640] = "", below[320] = "";
        size_t used = 0, bused = 0;
        /* this kernel's rows at the thread count, in the run's order, each beside its baseline's */
        for (int m = i; m < n; m++) {
            const ciot_bench_row *a = &rows[m], *b;
            const ciot_kernel *kj, *tj;
            if (strcmp(a->kernel, rows[i].kernel) || a->threads != rows[i].threads || !(b = baseline_row(rows, n, a, &kj, &tj)))
                continue;
            char at[16];
            const double q = a->gw_median / b->gw_median;
            if (used < sizeof cells)
                used += (size_t)snprintf(cells + used, sizeof cells - used, "%s%s %.2f", used ? ", " : "", where(k, a, at, sizeof at), q);
            const int lead = q < 0.995; /* below 1 as printed */
            if (lead && bused < sizeof below)
                bused += (size_t)snprintf(below + bused, sizeof below - bused, "%s%s %.2f (%.2f - %.2f)", bused ? ", " : "",
                                          where(k, a, at, sizeof at), q, a->gw_min / b->gw_max, a->gw_max / b->gw_min);
            leads |= lead;
            if (j) cell_json(j, k, a, b, lead);
        }
        if (j) ciot_json_end_array(j), ciot_json_end_object(j);
        if (!any)
            fprintf(f, "\n### Each kernel against its baseline\n\n"
                       "| kernel | baseline | ranked | threads | x baseline by batch (medians) | below 1: time the two again |\n"
                       "|---|---|---|---|---|---|\n");
        any = 1;
        fprintf(f, "| %s | %s | %s | %d | %s | %s |\n", k->name, t->name, ranked, rows[i].threads, cells, bused ? below : "-");
    }
    if (j) ciot_json_end_array(j);
    if (!any) return;
    fprintf(f, "\nA kernel of a richer ISA (AVX-VNNI or AVX-512 on x86; i8mm or SVE on ARM) against its baseline, the vector "
               "kernel of the same layout and operation whose features are a strict subset of its own, the fewest (its AVX2 "
               "twin on x86); persistent pool; whether the registry ranks the kernel above its baseline (chooses it where "
               "both run) or below; per batch (bB: a gemm at batch B) Gweights/s over the baseline's, the medians. These "
               "rows were timed minutes apart, and this machine's drift between them can exceed either row's spread (the "
               "same code has read 0.83x of itself that way), so a cell below 1 (with the range the two rows' min - max allow) is a "
               "lead, not a finding: time the two side by side, `ciot bench --kernels KERNEL,BASELINE --batches B "
               "--threads T` (repetitions interleaved within seconds)%s.\n",
            leads ? "" : "; there is none");
}
