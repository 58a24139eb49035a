/* Each kernel of a richer ISA against its baseline (suite_summary.h; ciot_kernel_baseline, registry.h: an
 * AVX-512 or AVX-VNNI kernel against the AVX2 kernel of the same layout and operation), per thread count over
 * the run's batches. A richer kernel slower than its baseline is one the registry should not choose. */
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "suite_summary.h"

/* The persistent-pool row of kernel name at (threads, batch, rows, K), or NULL. */
static const ciot_bench_row *row_of(const ciot_bench_row *rows, int n, const char *name, const ciot_bench_row *r) {
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].kernel, name) && !strcmp(rows[i].pool, "persistent") && rows[i].threads == r->threads &&
            rows[i].batch == r->batch && rows[i].rows == r->rows && rows[i].K == r->K && rows[i].gw_min > 0)
            return &rows[i];
    return NULL;
}

/* A row's place in its kernel's list: "gemv", or "bB" for a gemm at batch B. */
static const char *where(const ciot_kernel *k, const ciot_bench_row *a, char *buf, size_t len) {
    if (k->op == CIOT_OP_GEMV) snprintf(buf, len, "gemv");
    else snprintf(buf, len, "b%d", a->batch);
    return buf;
}

/* Whether row i is the first persistent row of its kernel and thread count (each pair printed once). */
static int first_of_pair(const ciot_bench_row *rows, int i) {
    for (int j = 0; j < i; j++)
        if (!strcmp(rows[j].kernel, rows[i].kernel) && !strcmp(rows[j].pool, "persistent") && rows[j].threads == rows[i].threads)
            return 0;
    return 1;
}

void ciot_suite_baseline_summary(FILE *f, const ciot_bench_row *rows, int n) {
    int any = 0, slower = 0, spread = 0;
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i];
        const ciot_kernel *k = ciot_kernel_find(r->kernel), *t = k ? ciot_kernel_baseline(k) : NULL;
        if (!t || strcmp(r->pool, "persistent") || !first_of_pair(rows, i)) continue;
        char cells[512] = "", low[96] = "-";
        size_t used = 0;
        double lowest = 0;
        /* this kernel's rows at the thread count, in the run's order, each beside its baseline's */
        for (int j = i; j < n; j++) {
            const ciot_bench_row *a = &rows[j], *b;
            if (strcmp(a->kernel, r->kernel) || strcmp(a->pool, "persistent") || a->threads != r->threads || !(a->gw_min > 0) ||
                !(b = row_of(rows, n, t->name, a)))
                continue;
            char at[16];
            const double q = a->gw_median / b->gw_median, lo = a->gw_min / b->gw_max, hi = a->gw_max / b->gw_min;
            if (used < sizeof cells)
                used += (size_t)snprintf(cells + used, sizeof cells - used, "%s%s %.2f", used ? ", " : "", where(k, a, at, sizeof at), q);
            if (!(lowest > 0) || q < lowest) {
                lowest = q;
                /* slower: the whole range the two rows' min - max allow is below 1 (they were timed apart) */
                snprintf(low, sizeof low, "%.2f at %s (%.2f - %.2f)%s", q, where(k, a, at, sizeof at), lo, hi,
                         hi < 1 ? " **slower**" : q < 1 ? " below 1 within the spread" : "");
            }
            slower |= hi < 1;
            spread |= q < 1 && hi >= 1;
        }
        if (!(lowest > 0)) continue;
        if (!any)
            fprintf(f, "\n### Each kernel against its baseline\n\n"
                       "| kernel | baseline | ranked | threads | x baseline by batch (medians) | lowest median (range) |\n"
                       "|---|---|---|---|---|---|\n");
        any = 1;
        fprintf(f, "| %s | %s | %s | %d | %s | %s |\n", k->name, t->name,
                ciot_kernel_rank(k) > ciot_kernel_rank(t) ? "above" : "below", r->threads, cells, low);
    }
    if (!any) return;
    fprintf(f, "\nA kernel of a richer ISA (AVX-VNNI or AVX-512 on x86; i8mm or SVE on ARM) against its baseline: the "
               "vector kernel of the same layout and operation whose features are a strict subset of its own, the fewest "
               "(its AVX2 twin on x86), rows of the same bench run, "
               "persistent pool: Gweights/s over the baseline's at each batch both ran (bB: a gemm at batch B), whether the registry ranks the kernel above its baseline (chooses it where both run) or below, and the lowest with the range the two rows' min - max allow: %s%s.\n",
            slower ? "a kernel whose whole range is below 1 (**slower**) is slower than its baseline there"
                   : "no kernel's whole range is below 1, none is slower than its baseline",
            spread ? "; a median below 1 whose range reaches 1 is the run's spread (time the two again)" : "");
}
