/* The pick of a cell, its runner-up and tie, and the ratio each row is judged by (suite_pick.h). */
#include "suite_pick.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "kernel.h"
#include "registry.h"
#include "roof.h"

int ciot_suite_same_cell(const ciot_bench_row *a, const ciot_bench_row *b) {
    return !strcmp(a->op, b->op) && a->rows == b->rows && a->K == b->K && a->batch == b->batch &&
           a->threads == b->threads && !strcmp(a->pool, b->pool);
}

ciot_suite_pick ciot_suite_pick_of(const ciot_bench_row *rows, int n, const ciot_bench_row *cell, int format) {
    ciot_suite_pick p = {NULL, NULL, 0};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            const ciot_bench_row *r = &rows[i];
            const ciot_kernel *k = ciot_kernel_find(r->kernel);
            const ciot_bench_row **slot = pass ? &p.next : &p.best;
            if (!k || (int)k->layout->source != format || !ciot_suite_same_cell(r, cell) ||
                !(r->gw_median > 0) || (pass && (!p.best || !strcmp(r->kernel, p.best->kernel))))
                continue;
            if (!*slot || r->gw_median > (*slot)->gw_median) *slot = r;
        }
    p.tie = p.best && p.next && p.best->gw_min <= p.next->gw_max;
    return p;
}

ciot_suite_ratio ciot_suite_ratio_of(const ciot_bench_row *r) {
    if (r->bound != CIOT_ROOF_NONE) return (ciot_suite_ratio){r->roof_min, r->roof_median, r->roof_max, 0};
    return (ciot_suite_ratio){r->ratio_min, r->ratio_median, r->ratio_max, 1};
}

static int is_gemv(const ciot_bench_row *r) {
    const ciot_kernel *k = ciot_kernel_find(r->kernel);
    return k && k->op == CIOT_OP_GEMV;
}

const char *ciot_suite_roof_words(const ciot_bench_row *r, char *buf, size_t len) {
    const char *mixed = r->bound_mixed ? ", repetitions differ in their bound" : "";
    if (is_gemv(r)) snprintf(buf, len, "paired read ceiling");
    else if (r->bound == CIOT_ROOF_NONE)
        snprintf(buf, len, "paired read ceiling (no compute roof: %s)", r->no_family[0] ? r->no_family : "none");
    else if (r->bound == CIOT_ROOF_BW) snprintf(buf, len, "bw roof at %.1f MAC/B%s", r->intensity, mixed);
    else snprintf(buf, len, "compute roof %s%s", r->family, mixed);
    return buf;
}

void ciot_suite_json_roof(ciot_json *j, const ciot_bench_row *r) {
    const ciot_suite_ratio q = ciot_suite_ratio_of(r);
    ciot_json_kv_string(j, "roof", q.read || is_gemv(r) ? "read" : ciot_roof_kind_name((ciot_roof_kind)r->bound));
    ciot_json_kv_string(j, "compute_family", r->family[0] ? r->family : NULL);
    ciot_json_kv_string(j, "no_compute_roof", !is_gemv(r) && r->no_family[0] ? r->no_family : NULL);
    ciot_json_kv_bool(j, "bound_mixed", r->bound_mixed);
    ciot_suite_json_spread(j, "roof_ratio", q.min, q.median, q.max);
}

const char *ciot_suite_flag_marks(const ciot_bench_row *r, char *buf, size_t len) {
    snprintf(buf, len, "%s%s%s%s", r->ratio_above_1 ? " **[1]**" : "", r->above_compute_roof ? " **[3]**" : "",
             r->cache_resident ? " **[2]**" : "", r->low_outlier ? " **[4]**" : "");
    return buf;
}

const char *ciot_suite_file_name(int format, char *buf, size_t len) {
    snprintf(buf, len, "%s", ciot_format_name((ciot_format)format));
    for (char *c = buf; *c; c++) *c = (char)toupper((unsigned char)*c);
    return buf;
}

void ciot_suite_json_spread(ciot_json *j, const char *key, double min, double median, double max) {
    ciot_json_key(j, key);
    ciot_json_begin_object(j);
    ciot_json_kv_number(j, "min", min);
    ciot_json_kv_number(j, "median", median);
    ciot_json_kv_number(j, "max", max);
    ciot_json_end_object(j);
}

void ciot_suite_json_kernel(ciot_json *j, const char *key, const ciot_bench_row *r) {
    ciot_json_key(j, key);
    if (!r) {
        ciot_json_null(j);
        return;
    }
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "kernel", r->kernel);
    ciot_suite_json_spread(j, "gweights_s", r->gw_min, r->gw_median, r->gw_max);
    ciot_json_end_object(j);
}
