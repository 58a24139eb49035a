/* The runtime's own types beside ciot's (suite_summary.h): per cell, each peer row against the fastest ciot
 * kernel of its bit class, both timed in this run with their own paired probes. */
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "suite_pick.h"
#include "suite_summary.h"

/* The bit classes the files compete in: 2-bit (PQ2_0, TQ2_0) and at most 1.75 bits (PTQ1_0, TQ1_0). */
#define CIOT_SMALL_CLASS_BITS 1.8

/* Bits a weight of a row: its bytes over the weights it read (a gemm reads each weight once for the batch). */
static double row_bits(const ciot_bench_row *r) {
    return r->gw_median > 0 ? 8 * r->gbs_median * r->batch / r->gw_median : 0;
}
static int small_class(double bits) { return bits <= CIOT_SMALL_CLASS_BITS; }

/* The fastest ciot row of the class in the cell of row c (same op, shape, batch, threads), or NULL. */
static const ciot_bench_row *best_of_class(const ciot_bench_row *rows, int n, const ciot_bench_row *c, int small) {
    const ciot_bench_row *best = NULL;
    for (int f = CIOT_FMT_PQ2_0; f <= CIOT_FMT_TQ2_0; f++) {
        const double bits = 8.0 * (double)ciot_format_block_bytes((ciot_format)f) / ciot_format_block_values((ciot_format)f);
        if (small_class(bits) != small) continue;
        const ciot_suite_pick p = ciot_suite_pick_of(rows, n, c, f);
        if (p.best && (!best || p.best->gw_median > best->gw_median)) best = p.best;
    }
    return best;
}

void ciot_suite_peers_summary(FILE *f, ciot_json *j, const ciot_bench_row *rows, int n) {
    int any = 0;
    for (int i = 0; i < n; i++) any |= rows[i].peer;
    if (j) ciot_json_key(j, "peers"), ciot_json_begin_array(j);
    if (any)
        fprintf(f, "\n### The runtime's own types beside\n\n"
                   "| op | shape | batch | threads | runtime type (bits a weight) | Gweights/s median (min - max) | "
                   "%% of the paired read ceiling | fastest ciot kernel of its class | Gweights/s | ciot / runtime |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n && any; i++) {
        const ciot_bench_row *r = &rows[i];
        if (!r->peer) continue;
        const int small = small_class(row_bits(r));
        const ciot_bench_row *b = best_of_class(rows, n, r, small);
        const char *op = r->op;
        char ours[96] = "-", speed[48] = "-", ratio[48] = "-";
        if (b) {
            snprintf(ours, sizeof ours, "%s", b->kernel);
            snprintf(speed, sizeof speed, "%.1f", b->gw_median);
            snprintf(ratio, sizeof ratio, "%.2f (%.2f - %.2f)", b->gw_median / r->gw_median, b->gw_min / r->gw_max,
                     b->gw_max / r->gw_min);
        }
        fprintf(f, "| %s | %dx%d | %d | %d | %s (%.2f) | %.1f (%.1f - %.1f) | %.0f%% | %s | %s | %s |\n", op, r->rows, r->K,
                r->batch, r->threads, r->kernel, row_bits(r), r->gw_median, r->gw_min, r->gw_max, 100 * r->ratio_median,
                ours, speed, ratio);
        if (!j) continue;
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "op", op);
        ciot_json_kv_int(j, "rows", r->rows);
        ciot_json_kv_int(j, "K", r->K);
        ciot_json_kv_int(j, "batch", r->batch);
        ciot_json_kv_int(j, "threads", r->threads);
        ciot_json_kv_string(j, "peer", r->kernel);
        ciot_json_kv_number(j, "bits_per_weight", row_bits(r));
        ciot_json_kv_string(j, "class", small ? "<=1.75-bit" : "2-bit");
        ciot_suite_json_spread(j, "gweights_s", r->gw_min, r->gw_median, r->gw_max);
        ciot_suite_json_kernel(j, "ciot_best", b);
        if (b) ciot_suite_json_spread(j, "x_peer", b->gw_min / r->gw_max, b->gw_median / r->gw_median, b->gw_max / r->gw_min);
        else ciot_json_key(j, "x_peer"), ciot_json_null(j);
        ciot_json_end_object(j);
    }
    if (j) ciot_json_end_array(j);
    if (!any) return;
    fprintf(f, "\nEach row is a runtime's own type (ciot bench --peer: its quantized weights, its mul_mat with its own "
               "activation quantization, on its own threads), timed by the same protocol as ciot's kernels: the same "
               "shapes, weights rotating through the same cold region, every repetition paired with a read-probe sample. "
               "The class is by bytes a weight: at most 1.75 bits (PTQ1_0, TQ1_0) or 2-bit (PQ2_0, TQ2_0). ciot / runtime "
               "is the fastest ciot kernel of the class in the same cell over the runtime's type, the medians' ratio "
               "(and the range the two rows' min - max allow).\n");
}
