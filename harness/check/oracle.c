/* The exactness oracle. Every case compares outputs bit for bit, never with a tolerance:
 * unit mode against the exact integer dot, scaled mode against the canonical float order computed from
 * the drawn values and against the kernel's reference, over every slice a pool could cut. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "fp16.h"
#include "oracle.h"
#include "oracle_ops.h"
#include "prefetch.h"
#include "registry.h"
#include "testdata.h"

#define SENTINEL 0x7fc0deadu /* a NaN no kernel produces: marks outputs a slice must not touch */

static const int shape_rows[] = {4, 8, 12, 36, 4096};
static const int shape_k[] = {256, 512, 1024, 1280, 5120, 17408};

static int report(FILE *log, const ciot_kernel *k, int rows, int K, int batch, const char *label, const char *what,
                  int first, int count, size_t idx, uint32_t want, uint32_t got) {
    fprintf(log, "FAIL %s rows=%d K=%d batch=%d %s slice=[%d,+%d) %s index %zu (b=%zu n=%zu): expected %.9g (0x%08x) "
                 "got %.9g (0x%08x)\n",
            k->name, rows, K, batch, label, first, count, what, idx, idx / (size_t)(rows + 3), idx % (size_t)(rows + 3),
            ciot_bits_f32(want), want, ciot_bits_f32(got), got);
    return 0;
}

/* Runs `k` over tiles [first, first + count) into a sentinel-filled y with ldy = rows + 3, and checks
 * every in-slice output against want[b * rows + n] and every other output still holds the sentinel. */
static int check_slice(const ciot_kernel *k, const ciot_mm *in, const float *want, const char *label, const char *what,
                       int first, int count, float *y, FILE *log) {
    /* the full slice runs with the prefetch policy on, the others with it off: neither may change a bit */
    const size_t prefetch = strcmp(what, "full") ? 0 : CIOT_PREFETCH_DEFAULT;
    const int rows = in->rows, ldy = rows + 3, tr = k->layout->tile_rows;
    const size_t ny = (size_t)in->batch * ldy;
    for (size_t j = 0; j < ny; j++) memcpy(&y[j], &(uint32_t){SENTINEL}, 4);
    ciot_mm mm = {in->w, in->x, y, rows, in->K, in->batch, ldy, prefetch};
    k->compute(&mm, first, count);
    int bad = 0;
    for (int b = 0; b < in->batch; b++)
        for (int n = 0; n < ldy; n++) {
            const size_t j = (size_t)b * ldy + n;
            const int inside = n < rows && n >= first * tr && n < (first + count) * tr;
            uint32_t got, expect = SENTINEL;
            memcpy(&got, &y[j], 4);
            if (inside) memcpy(&expect, &want[(size_t)b * rows + n], 4);
            if (got != expect && bad++ < 3) report(log, k, rows, in->K, in->batch, label, what, first, count, j, expect, got);
        }
    return bad == 0;
}

int ciot_oracle_slices(const ciot_kernel *k, const void *w, const void *x, int rows, int K, int batch, const float *want,
                       const char *label, const char *what, FILE *log) {
    float *y = malloc(sizeof(float) * (size_t)batch * (rows + 3));
    if (!y) {
        fprintf(log, "FAIL %s rows=%d K=%d batch=%d: out of memory\n", k->name, rows, K, batch);
        return 0;
    }
    const ciot_mm in = {w, x, NULL, rows, K, batch, rows, 0};
    const int tiles = rows / k->layout->tile_rows;
    int ok;
    if (what) ok = check_slice(k, &in, want, label, what, 0, tiles, y, log);
    else {
        /* full, first, last, middle tile, and two halves (a pool of two) */
        ok = check_slice(k, &in, want, label, "full", 0, tiles, y, log);
        if (tiles > 1) {
            ok &= check_slice(k, &in, want, label, "first", 0, 1, y, log);
            ok &= check_slice(k, &in, want, label, "last", tiles - 1, 1, y, log);
            ok &= check_slice(k, &in, want, label, "middle", tiles / 3, tiles / 3 ? tiles / 3 : 1, y, log);
            ok &= check_slice(k, &in, want, label, "half", tiles / 2, tiles - tiles / 2, y, log);
        }
    }
    free(y);
    return ok;
}

int ciot_oracle_case(const ciot_kernel *k, int rows, int K, int batch, int pattern, int unit, FILE *log) {
    ciot_testdata t;
    const uint64_t seed = (uint64_t)rows * 1000003u + (uint64_t)K * 7919u + (uint64_t)batch * 131u + (uint64_t)unit;
    if (ciot_testdata_make(&t, k->layout->source, k->act, rows, K, batch, pattern, unit, seed) != CIOT_OK) {
        fprintf(log, "FAIL %s rows=%d K=%d batch=%d: out of memory making test data\n", k->name, rows, K, batch);
        return 0;
    }
    const size_t nout = (size_t)batch * rows;
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    float *want = malloc(sizeof(float) * nout), *ref_out = malloc(sizeof(float) * nout);
    int ok = w && want && ref_out;
    if (!ok) fprintf(log, "FAIL %s rows=%d K=%d batch=%d: out of memory\n", k->name, rows, K, batch);
    ciot_status st = ok ? ciot_layout_pack(k->layout, t.src, w, rows, K) : CIOT_E_NOMEM;
    if (ok && st != CIOT_OK) {
        fprintf(log, "FAIL %s rows=%d K=%d: pack refused (%s)\n", k->name, rows, K, ciot_status_str(st));
        ok = 0;
    }
    if (ok) {
        char label[64];
        snprintf(label, sizeof label, "%s %s", unit ? "unit" : "scaled", ciot_pattern_name(pattern));
        for (size_t j = 0; j < nout; j++) want[j] = unit ? (float)t.exact[j] : t.canonical[j];
        ok &= ciot_oracle_slices(k, w, t.x, rows, K, batch, want, label, NULL, log);
        /* the reference twin, bit for bit, on the same packed bytes */
        const ciot_kernel *ref = k->reference;
        if (ref != k) {
            ciot_mm mm = {w, t.x, ref_out, rows, K, batch, rows, 0};
            ref->compute(&mm, 0, rows / ref->layout->tile_rows);
            ok &= ciot_oracle_slices(k, w, t.x, rows, K, batch, ref_out, label, "vs-reference", log);
        }
    }
    free(w), free(want), free(ref_out);
    ciot_testdata_free(&t);
    return ok;
}

/* Edge patterns are meaningful with real scales only where the scale is the point (ties, tiny, large). */
static int pattern_has_unit(ciot_pattern p) {
    return p != CIOT_PAT_TIES && p != CIOT_PAT_TINY && p != CIOT_PAT_LARGE && p != CIOT_PAT_NEG_ZERO;
}

/* One case: run (and count as passed or failed), or only counted as skipped when the CPU cannot run k. */
static void one_case(const ciot_kernel *k, int rows, int K, int batch, int pattern, int unit, int skip,
                     ciot_oracle_result *res, FILE *log) {
    if (skip) res->skipped++;
    else if (ciot_oracle_case(k, rows, K, batch, pattern, unit, log)) res->passed++;
    else res->failed++;
}

/* Row counts for a layout: the fixed list, plus 1, 2, 3 and 7 tiles when the tile is larger than the fixed
 * list's steps (a lone tile, a pair, odd counts; the fixed list's 4096 is only 16 tiles of 256 rows), and a
 * full group of tiles plus a partial one for a blocked matrix order. Returns the count written to out. */
static int row_counts(const ciot_layout *l, int out[]) {
    int n = 0;
    for (size_t i = 0; i < sizeof shape_rows / sizeof *shape_rows; i++) out[n++] = shape_rows[i];
    if (l->tile_rows > 4) {
        static const int tiles[] = {1, 2, 3, 7};
        for (size_t i = 0; i < sizeof tiles / sizeof *tiles; i++) out[n++] = tiles[i] * l->tile_rows;
    }
    if (l->group_tiles > 1) out[n++] = (l->group_tiles + 3) * l->tile_rows;
    return n;
}

/* K values: the fixed list, plus three K multiples (an odd count of 128-blocks where the multiple is 128). */
static int k_values(const ciot_layout *l, int out[]) {
    int n = 0;
    for (size_t i = 0; i < sizeof shape_k / sizeof *shape_k; i++) out[n++] = shape_k[i];
    out[n++] = 3 * l->k_multiple;
    return n;
}

/* Every case of kernel k: its shapes, batches, edge patterns, units; skip: count them as skipped only. */
static void run_kernel(const ciot_kernel *k, const ciot_oracle_opts *o, long cap, int skip, ciot_oracle_result *res,
                       FILE *log) {
    static const int gemm_batches[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 64};
    const int before_pass = res->passed, before_fail = res->failed;
    int rows_list[sizeof shape_rows / sizeof *shape_rows + 5], k_list[sizeof shape_k / sizeof *shape_k + 1];
    const int nrows = row_counts(k->layout, rows_list), nk = k_values(k->layout, k_list);
    for (int ri = 0; ri < nrows; ri++)
        for (int ki = 0; ki < nk; ki++) {
            const int rows = rows_list[ri], K = k_list[ki];
            if (ciot_layout_check(k->layout, rows, K) != CIOT_OK) continue;
            const int small = (long)rows * K <= 36L * 1280;
            const int nb = k->op == CIOT_OP_GEMM ? (small ? 10 : 1) : 1;
            for (int bi = 0; bi < nb; bi++) {
                const int batch = k->op == CIOT_OP_GEMM ? (small ? gemm_batches[bi] : 5) : 1;
                if ((long)rows * K * batch > cap) continue;
                for (int unit = 1; unit >= 0; unit--) one_case(k, rows, K, batch, CIOT_PAT_RANDOM, unit, skip, res, log);
            }
        }
    /* every edge pattern on a small shape (two tiles of rows, at least 8; two Q8_K blocks), gemm at batch 3, 5,
     * and for a gemm whose inner loop changes at a batch (mac_batch: the TL16, TL3 and T2P ones) at that batch
     * plus one too */
    const int edge_batches[] = {1, 3, 5, k->mac_batch + 1}, edge_rows = k->layout->tile_rows > 4 ? 2 * k->layout->tile_rows : 8;
    for (int bi = k->op == CIOT_OP_GEMM ? 1 : 0; bi < (k->op != CIOT_OP_GEMM ? 1 : k->mac_batch ? 4 : 3); bi++)
        for (int p = CIOT_PAT_ZERO; p < CIOT_PAT_COUNT; p++)
            for (int unit = pattern_has_unit(p); unit >= 0; unit--)
                one_case(k, edge_rows, 512, edge_batches[bi], p, unit, skip, res, log);
    /* a gemm past 64 rows of activations on its smallest shape: the decoded-weight gemms (TL16 slices, TL3
     * quarters) take 64 at a time, so 67 runs a second pass and its leftover rows */
    if (k->op == CIOT_OP_GEMM)
        for (int unit = 1; unit >= 0; unit--)
            one_case(k, k->layout->tile_rows > 8 ? k->layout->tile_rows : 8, k->layout->k_multiple, 67, CIOT_PAT_RANDOM,
                     unit, skip, res, log);
    if (o->verbose && !skip)
        fprintf(log, "  %-28s %d passed, %d failed\n", k->name, res->passed - before_pass, res->failed - before_fail);
}

ciot_status ciot_oracle_run(const ciot_oracle_opts *o, ciot_oracle_result *res) {
    FILE *log = o->log ? o->log : stderr;
    const long cap = o->max_weights > 0 ? o->max_weights : o->quick ? 1L << 20 : 6L << 20;
    const unsigned cpu = ciot_cpu_features();
    memset(res, 0, sizeof *res);
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (o->filter && !strstr(k->name, o->filter)) continue;
        const unsigned missing = ciot_kernel_missing(k, cpu);
        const int before = res->skipped;
        run_kernel(k, o, cap, missing != 0, res, log);
        if (missing) {
            char buf[128];
            fprintf(log, "  %-28s skipped (%d cases): this CPU lacks %s\n", k->name, res->skipped - before,
                    ciot_feature_list(missing, buf, sizeof buf));
            res->kernels_skipped++;
        } else {
            res->kernels_run++;
        }
    }
    /* the token ops' versions after the matvec kernels, counted the same way */
    return ciot_oracle_ops_run(o, res);
}
