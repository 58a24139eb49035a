/* The tuning file: winners from bench rows, written whole, read back against this machine's key (tuning.h). */
#include "tuning.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "context.h"
#include "cpu.h"
#include "json.h"
#include "json_read.h"
#include "opts.h"
#include "registry.h"

void ciot_tuning_key_here(ciot_tuning_key *k) {
    ciot_context c;
    ciot_context_collect(&c);
    snprintf(k->cpu, sizeof k->cpu, "%s", c.cpu);
    snprintf(k->features, sizeof k->features, "%s", c.features);
    snprintf(k->commit, sizeof k->commit, "%s", c.commit);
}

const char *ciot_tuning_path(const char *dir, char *buf, size_t len) {
    const char *env = getenv("CIOT_TUNING"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (dir) snprintf(buf, len, "%s/tuning.json", dir);
    else if (env && *env) snprintf(buf, len, "%s", strcmp(env, "none") ? env : "");
    else if (xdg && *xdg) snprintf(buf, len, "%s/ciot/tuning.json", xdg);
    else if (home && *home) snprintf(buf, len, "%s/.cache/ciot/tuning.json", home);
    else buf[0] = 0;
    return buf;
}

static int same_case(const ciot_bench_row *a, const ciot_bench_row *b) {
    const ciot_kernel *ka = ciot_kernel_find(a->kernel), *kb = ciot_kernel_find(b->kernel);
    return ka && kb && ka->layout->source == kb->layout->source && ka->op == kb->op && a->batch == b->batch &&
           a->threads == b->threads && !strcmp(a->pool, b->pool);
}

/* The winner of the case of rows[at] (see tuning.h) into *t. */
static void winner(const ciot_bench_row *rows, int n, int at, ciot_tuned *t, double *margin) {
    const ciot_bench_row *best = NULL, *next = NULL, *pick;
    for (int i = 0; i < n; i++)
        if (same_case(&rows[i], &rows[at]) && rows[i].gw_median > 0 && (!best || rows[i].gw_median > best->gw_median))
            best = &rows[i];
    pick = best;
    for (int i = 0; i < n; i++) {
        const ciot_bench_row *r = &rows[i];
        if (r == best || !same_case(r, &rows[at]) || !(r->gw_median > 0)) continue;
        if (!next || r->gw_median > next->gw_median) next = r;
        if (r->gw_max >= best->gw_min &&
            ciot_kernel_rank(ciot_kernel_find(r->kernel)) > ciot_kernel_rank(ciot_kernel_find(pick->kernel)))
            pick = r;
    }
    const ciot_bench_row *other = pick == best ? next : best;
    const ciot_kernel *k = ciot_kernel_find(pick->kernel);
    *t = (ciot_tuned){k->layout->source, k->op, rows[at].batch, rows[at].batch, rows[at].threads, k, pick->gw_median,
                      other ? ciot_kernel_find(other->kernel) : NULL, other ? other->gw_median : 0,
                      next && next->gw_max >= best->gw_min};
    const double spread = (pick->gw_max - pick->gw_min) / pick->gw_median;
    if (spread > *margin) *margin = spread;
}

/* Each gemm regime runs up to the next measured batch of its file and thread count; the lowest from 1. */
static void regimes(ciot_tuned *t, int n) {
    for (int i = 0; i < n; i++) {
        if (t[i].op != CIOT_OP_GEMM) continue;
        int lower = 0, upper = 4096;
        for (int j = 0; j < n; j++) {
            if (j == i || t[j].op != CIOT_OP_GEMM || t[j].format != t[i].format || t[j].threads != t[i].threads) continue;
            if (t[j].batch_min < t[i].batch_min) lower = 1;
            if (t[j].batch_min > t[i].batch_min && t[j].batch_min - 1 < upper) upper = t[j].batch_min - 1;
        }
        t[i].batch_max = upper;
        if (!lower) t[i].batch_min = 1;
    }
}

int ciot_tuning_from_rows(const ciot_bench_row *rows, int n, ciot_tuned *out, int max, double *margin) {
    int m = 0;
    *margin = 0;
    for (int i = 0; i < n && m < max; i++) {
        if (!ciot_kernel_find(rows[i].kernel) || !(rows[i].gw_median > 0) || strcmp(rows[i].pool, "persistent")) continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = same_case(&rows[j], &rows[i]) && rows[j].gw_median > 0;
        if (!seen) winner(rows, n, i, &out[m++], margin);
    }
    regimes(out, m);
    return m;
}

/* mkdir -p of path's folder. */
static void make_folder(const char *path) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return;
    *slash = 0;
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') *p = 0, ciot_os_mkdir(dir), *p = '/';
    ciot_os_mkdir(dir);
}

static void write_entry(ciot_json *j, const ciot_tuned *t) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "file", ciot_format_name(t->format));
    ciot_json_kv_string(j, "op", t->op == CIOT_OP_GEMM ? "gemm" : "gemv");
    ciot_json_kv_int(j, "batch_min", t->batch_min);
    ciot_json_kv_int(j, "batch_max", t->batch_max);
    ciot_json_kv_int(j, "threads", t->threads);
    ciot_json_kv_string(j, "kernel", t->kernel->name);
    ciot_json_kv_fixed(j, "gweights_s", t->gweights_s, 3);
    ciot_json_kv_string(j, "runner_up", t->runner_up ? t->runner_up->name : NULL);
    ciot_json_kv_fixed(j, "runner_up_gweights_s", t->runner_up_gweights_s, 3);
    ciot_json_kv_bool(j, "tie", t->tie);
    ciot_json_end_object(j);
}

ciot_status ciot_tuning_open(const char *path, ciot_json **out, char *why, size_t why_len) {
    make_folder(path);
    return ciot_json_create(path, out, why, why_len);
}

ciot_status ciot_tuning_write(const char *path, const ciot_tuning_key *key, const char *date, int quick, double margin,
                              const ciot_tuned *t, int n, char *why, size_t why_len) {
    ciot_json *j;
    const ciot_status st = ciot_tuning_open(path, &j, why, why_len);
    return st != CIOT_OK ? st : ciot_tuning_commit(j, key, date, quick, margin, t, n, why, why_len);
}

ciot_status ciot_tuning_commit(ciot_json *j, const ciot_tuning_key *key, const char *date, int quick, double margin,
                               const ciot_tuned *t, int n, char *why, size_t why_len) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "schema", CIOT_TUNING_SCHEMA);
    ciot_json_kv_string(j, "cpu", key->cpu);
    ciot_json_kv_string(j, "features", key->features);
    ciot_json_kv_string(j, "commit", key->commit);
    ciot_json_kv_string(j, "date", date);
    ciot_json_kv_bool(j, "quick", quick);
    ciot_json_kv_fixed(j, "margin", margin, 4);
    ciot_json_key(j, "choices");
    ciot_json_begin_array(j);
    for (int i = 0; i < n; i++) write_entry(j, &t[i]);
    ciot_json_end_array(j);
    ciot_json_end_object(j);
    return ciot_json_commit(j, why, why_len);
}
