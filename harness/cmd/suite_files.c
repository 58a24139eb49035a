/* The source files side by side (suite_summary.h): per operation, shape, batch and thread count, each file's
 * fastest kernel of the run, and a smaller file against the 2-bit file of the same model. */
#include <ctype.h>
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "roof.h"
#include "suite_summary.h"

/* The 2-bit file each smaller file is an alternative to: Bonsai's PTQ1_0 to its PQ2_0, ggml's TQ1_0 to TQ2_0. */
static int two_bit_of(ciot_format f) {
    return f == CIOT_FMT_PTQ1_0 ? CIOT_FMT_PQ2_0 : f == CIOT_FMT_TQ1_0 ? CIOT_FMT_TQ2_0 : -1;
}

static double source_bits(ciot_format f) {
    return 8.0 * (double)ciot_format_block_bytes(f) / ciot_format_block_values(f);
}

/* Whether rows a and b are cells of the same comparison: operation, shape, batch, threads, the persistent pool. */
static int same_cell(const ciot_bench_row *a, const ciot_kernel *ka, const ciot_bench_row *b, const ciot_kernel *kb) {
    return ka->op == kb->op && a->rows == b->rows && a->K == b->K && a->batch == b->batch && a->threads == b->threads &&
           !strcmp(a->pool, b->pool);
}

/* The fastest row (median Gweights/s) of format f in the cell of row r, or NULL. */
static const ciot_bench_row *fastest(const ciot_bench_row *rows, int n, const ciot_bench_row *r, const ciot_kernel *kr,
                                     int f) {
    const ciot_bench_row *best = NULL;
    for (int i = 0; i < n; i++) {
        const ciot_kernel *k = ciot_kernel_find(rows[i].kernel);
        if (k && (int)k->layout->source == f && same_cell(&rows[i], k, r, kr) && rows[i].gw_median > 0 &&
            (!best || rows[i].gw_median > best->gw_median))
            best = &rows[i];
    }
    return best;
}

/* Whether row i is the first of its cell (so each cell is printed once, in the rows' order). */
static int first_of_cell(const ciot_bench_row *rows, int i) {
    const ciot_kernel *k = ciot_kernel_find(rows[i].kernel);
    for (int j = 0; j < i; j++) {
        const ciot_kernel *kj = ciot_kernel_find(rows[j].kernel);
        if (kj && same_cell(&rows[j], kj, &rows[i], k)) return 0;
    }
    return 1;
}

/* A gemv row whose speed follows the bus: at least this median fraction of its paired read ceiling. */
#define CIOT_BUS_BOUND 0.8

/* The two ratio cells of the smaller file's fastest row a against the 2-bit file's b: Gweights/s, the medians'
 * ratio and the range the two rows' min - max allow; and for two gemvs that both follow the bus, the same from
 * each row's paired read ratio (kernel GB/s over its probe sample, per repetition) times the layouts' bits: the
 * speed ratio both would have on one bus, so the drift between the two rows, timed apart, cancels. A kernel
 * further from the bus runs at its own pace, and dividing by the bus would credit it with the bus's drift. */
static void ratio_cells(const ciot_bench_row *a, const ciot_bench_row *b, int gemv, char *speed, size_t speed_len,
                        char *matched, size_t matched_len) {
    snprintf(speed, speed_len, "%.2f (%.2f - %.2f)", a->gw_median / b->gw_median, a->gw_min / b->gw_max,
             a->gw_max / b->gw_min);
    snprintf(matched, matched_len, "-");
    if (!gemv || !(a->ratio_min > 0) || !(b->ratio_min > 0) || !(a->ratio_median >= CIOT_BUS_BOUND) ||
        !(b->ratio_median >= CIOT_BUS_BOUND))
        return;
    const double bits = (b->gbs_median / b->gw_median) / (a->gbs_median / a->gw_median); /* bits_b / bits_a */
    snprintf(matched, matched_len, "%.2f (%.2f - %.2f)", bits * a->ratio_median / b->ratio_median,
             bits * a->ratio_min / b->ratio_max, bits * a->ratio_max / b->ratio_min);
}

void ciot_suite_files_summary(FILE *f, const ciot_bench_row *rows, int n) {
    int any = 0;
    for (int i = 0; i < n && !any; i++) any = !strcmp(rows[i].pool, "persistent") && ciot_kernel_find(rows[i].kernel);
    if (!any) return;
    fprintf(f, "### The source files side by side\n\n"
               "| op | shape | batch | threads | file (bits a weight) | fastest kernel | Gweights/s median (min - max) | "
               "%% of roof median | x the 2-bit file | x the 2-bit file, same bus |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i];
        const ciot_kernel *kr = ciot_kernel_find(r->kernel);
        if (!kr || strcmp(r->pool, "persistent") || !first_of_cell(rows, i)) continue;
        for (int fmt = CIOT_FMT_PQ2_0; fmt <= CIOT_FMT_TQ2_0; fmt++) {
            const ciot_bench_row *a = fastest(rows, n, r, kr, fmt);
            if (!a) continue;
            const int two = two_bit_of((ciot_format)fmt);
            const ciot_bench_row *b = two >= 0 ? fastest(rows, n, r, kr, two) : NULL;
            char name[16], pct[16] = "-", speed[48] = "-", matched[48] = "-";
            snprintf(name, sizeof name, "%s", ciot_format_name((ciot_format)fmt));
            for (char *c = name; *c; c++) *c = (char)toupper((unsigned char)*c);
            if (a->bound != CIOT_ROOF_NONE) snprintf(pct, sizeof pct, "%.0f%%", 100 * a->roof_median);
            if (b) ratio_cells(a, b, kr->op == CIOT_OP_GEMV, speed, sizeof speed, matched, sizeof matched);
            fprintf(f, "| %s | %dx%d | %d | %d | %s (%g) | %s | %.1f (%.1f - %.1f) | %s | %s | %s |\n",
                    kr->op == CIOT_OP_GEMV ? "gemv" : "gemm", r->rows, r->K, r->batch, r->threads, name,
                    source_bits((ciot_format)fmt), a->kernel, a->gw_median, a->gw_min, a->gw_max, pct, speed, matched);
        }
    }
    fprintf(f, "\nPer cell (operation, shape, batch, threads; the persistent pool), each source file's fastest kernel in "
               "this run by median Gweights/s, whatever its layout, and its %% of its own roof (the table below). A "
               "smaller file is an alternative to its model's 2-bit file (PTQ1_0 to PQ2_0, TQ1_0 to TQ2_0): x the 2-bit "
               "file is its Gweights/s over that file's fastest in the same cell, the medians' ratio (and the range the "
               "two rows' min - max allow). The rows were timed apart and the machine drifts between them, so for two gemvs "
               "that both follow the bus (each at %.0f%% or more of its paired read ceiling) the last column takes the "
               "ratio from each row's paired read ratio instead (per repetition, kernel GB/s over the probe sampled beside "
               "it) times the two layouts' bytes a weight: the ratio of their speeds on one bus. A gemv further from the "
               "bus runs at its own pace, and a gemm row's roof is the peak of the instructions its kernel issues: they "
               "share no ruler, and show -.\n", 100 * CIOT_BUS_BOUND);
}
