/* The tuning file (harness/cmd/tuning.h) and the one choice (kernels/choice.h), without timing anything: winners
 * and ties from made-up bench rows, the batch regimes, a round trip through the file, the choice and its why,
 * and each refusal (another CPU, features or commit, a kernel this build has not, not JSON), after which the
 * static rank chooses. Catches a tie not broken by the static rank, regimes that leave a batch uncovered, a key
 * part not compared, a kernel name taken on trust, and a refused file still installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "choice.h"
#include "cpu.h"
#include "registry.h"
#include "json_read.h"
#include "tuning.h"

static ciot_bench_row row(const char *k, int batch, int threads, double lo, double med, double hi) {
    ciot_bench_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.kernel, sizeof r.kernel, "%s", k);
    snprintf(r.pool, sizeof r.pool, "persistent");
    r.batch = batch, r.threads = threads, r.rows = 4096, r.K = 4096, r.reps = 3;
    r.gw_min = lo, r.gw_median = med, r.gw_max = hi;
    return r;
}

static const ciot_tuned *find(const ciot_tuned *t, int n, ciot_op op, int batch, int threads) {
    for (int i = 0; i < n; i++)
        if (t[i].op == op && t[i].batch_min <= batch && batch <= t[i].batch_max && t[i].threads == threads) return &t[i];
    return NULL;
}

/* The file's text with the first `from` replaced by `to`, written to path. */
static void edited(const char *src, const char *path, const char *from, const char *to) {
    FILE *f = fopen(src, "rb");
    char text[1 << 16];
    const size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = 0;
    char *at = strstr(text, from);
    FILE *o = fopen(path, "wb");
    if (!o) return;
    if (at) fwrite(text, 1, (size_t)(at - text), o), fputs(to, o), fputs(at + strlen(from), o);
    else fputs(text, o);
    fclose(o);
}

static void refused(const char *good, const char *dir, const char *name, const char *from, const char *to,
                    const char *says, const ciot_tuning_key *key) {
    char path[512], why[1400], date[32];
    ciot_tuned t[CIOT_TUNING_MAX];
    int n = -1;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    edited(good, path, from, to);
    const ciot_status st = ciot_tuning_read(path, key, t, CIOT_TUNING_MAX, &n, date, sizeof date, why, sizeof why);
    CHECK(st == CIOT_E_FORMAT && strstr(why, says) && strstr(why, "ignored") && !strchr(why, '\n'),
          "%s: status %d, why: %s", name, st, why);
    setenv("CIOT_TUNING", path, 1);
    ciot_choice_install(NULL, 0, NULL);
    CHECK(ciot_tuning_use("test") == 0 && ciot_choice_installed() == 0, "%s: a refused file is not installed", name);
}

/* The reader behind the tuning file: values it must take, and text it must refuse with where. */
static void reader(void) {
    static const char *const good[] = {"{\"a\": [1, -2.5e3, true, null, \"x\\\"y\"], \"b\": {}}", "[]", " 7 "};
    static const char *const bad[] = {"{\"a\": 1", "{\"a\" 1}", "[1,]", "{\"a\": 1} x", "\"open", "tru", "{1: 2}",
                                      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", ""};
    char why[128];
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        ciot_jv *v = ciot_jv_parse(good[i], strlen(good[i]), why, sizeof why);
        CHECK(v != NULL, "parses %s: %s", good[i], v ? "" : why);
        if (i == 0 && v) {
            const ciot_jv *a = ciot_jv_get(v, "a");
            CHECK(a && a->n == 5 && a->items[1].number == -2500 && !strcmp(a->items[4].string, "x\"y"), "values of %s", good[i]);
        }
        ciot_jv_free(v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = 0;
        ciot_jv *v = ciot_jv_parse(bad[i], strlen(bad[i]), why, sizeof why);
        CHECK(!v && !strncmp(why, "byte ", 5), "refuses %s (%s)", bad[i], why);
        ciot_jv_free(v);
    }
}

int main(void) {
    reader();
    const ciot_bench_row rows[] = {
        /* gemv: the lower-ranked t2p_gemv_ref clearly fastest; tl2_gemv_ref (rank 4) overlaps pq2_0_gemv_ref */
        row("pq2_0_gemv_ref", 1, 1, 1.0, 1.1, 1.2), row("t2p_gemv_ref", 1, 1, 3.0, 3.1, 3.2),
        /* gemm at 4: pq2_0_gemm_ref (rank 1) fastest by median, tl2_gemm_ref (rank 4) within noise: tl2 wins */
        row("pq2_0_gemm_ref", 4, 1, 1.8, 2.1, 2.4), row("tl2_gemm_ref", 4, 1, 1.7, 2.0, 2.3),
        /* gemm at 64: t2x4_gemm_ref clearly fastest */
        row("t2x4_gemm_ref", 64, 1, 5.0, 5.1, 5.2), row("tl2_gemm_ref", 64, 1, 2.0, 2.1, 2.2),
    };
    ciot_tuned t[CIOT_TUNING_MAX];
    double margin = 0;
    const int n = ciot_tuning_from_rows(rows, 6, t, CIOT_TUNING_MAX, &margin);
    CHECK(n == 3, "three cases, %d winners", n);
    const ciot_tuned *v = find(t, n, CIOT_OP_GEMV, 1, 1), *g4 = find(t, n, CIOT_OP_GEMM, 4, 1),
                     *g64 = find(t, n, CIOT_OP_GEMM, 64, 1);
    CHECK(v && !strcmp(v->kernel->name, "t2p_gemv_ref") && !v->tie, "gemv winner %s", v ? v->kernel->name : "none");
    CHECK(g4 && !strcmp(g4->kernel->name, "tl2_gemm_ref") && g4->tie, "the tie at batch 4 goes to the static rank: %s",
          g4 ? g4->kernel->name : "none");
    CHECK(g4 && g4->batch_min == 1 && g4->batch_max == 63, "regime of batch 4: %d-%d", g4 ? g4->batch_min : 0,
          g4 ? g4->batch_max : 0);
    CHECK(g64 && g64->batch_min == 64 && g64->batch_max == 4096 && !strcmp(g64->kernel->name, "t2x4_gemm_ref"),
          "regime of batch 64");
    CHECK(margin > 0.28 && margin < 0.3, "margin %.3f: the widest winner spread (pq2_0 at 4: 0.6 / 2.1)", margin);

    char dir[] = "/tmp/ciot-tuning-XXXXXX", good[512], why[1400], date[32];
    if (!mkdtemp(dir)) return printf("mkdtemp failed\n"), 1;
    ciot_tuning_key key;
    ciot_tuning_key_here(&key);
    snprintf(good, sizeof good, "%s/sub/tuning.json", dir);
    CHECK(ciot_tuning_write(good, &key, "2026-12-07", 1, margin, t, n, why, sizeof why) == CIOT_OK, "write: %s", why);
    ciot_tuned back[CIOT_TUNING_MAX];
    int m = 0;
    CHECK(ciot_tuning_read(good, &key, back, CIOT_TUNING_MAX, &m, date, sizeof date, why, sizeof why) == CIOT_OK &&
              m == n && !strcmp(date, "2026-12-07"), "read back: %s", why);
    setenv("CIOT_TUNING", good, 1);
    CHECK(ciot_tuning_use("test") == n, "installed");
    const ciot_choice_ask a = {CIOT_FMT_PQ2_0, NULL, CIOT_OP_GEMM, 5, 2, 0, 0, ciot_cpu_features()};
    ciot_choice c = ciot_kernel_choose(&a);
    CHECK(c.tuned && !strcmp(c.kernel->name, "tl2_gemm_ref"), "batch 5 at 2 threads takes the 1-thread regime 1-63: %s",
          c.kernel ? c.kernel->name : "none");
    CHECK(strstr(ciot_choice_why(&c, why, sizeof why), "measured here, 2026-12-07, 2.0 against 2.1") != NULL, "why: %s", why);
    const ciot_choice_ask b100 = {CIOT_FMT_PQ2_0, NULL, CIOT_OP_GEMM, 100, 1, 0, 0, ciot_cpu_features()};
    c = ciot_kernel_choose(&b100);
    CHECK(c.tuned && !strcmp(c.kernel->name, "t2x4_gemm_ref"), "batch 100 takes the regime from 64: %s",
          c.kernel ? c.kernel->name : "none");
    const ciot_choice_ask tq = {CIOT_FMT_TQ2_0, NULL, CIOT_OP_GEMM, 4, 1, 0, 0, ciot_cpu_features()};
    c = ciot_kernel_choose(&tq);
    CHECK(!c.tuned && c.kernel && strstr(ciot_choice_why(&c, why, sizeof why), "static rank"), "uncovered: %s", why);
    const ciot_choice_ask shape = {CIOT_FMT_PQ2_0, NULL, CIOT_OP_GEMM, 4, 1, 4, 256, ciot_cpu_features()};
    c = ciot_kernel_choose(&shape);
    CHECK(!c.tuned && c.kernel && strcmp(c.kernel->name, "tl2_gemm_ref"), "a shape tl2 cannot take falls back: %s",
          c.kernel ? c.kernel->name : "none");

    char cpu[200], feat[200], commit[80];
    snprintf(cpu, sizeof cpu, "\"cpu\": \"%s\"", key.cpu);
    snprintf(feat, sizeof feat, "\"features\": \"%s\"", key.features);
    snprintf(commit, sizeof commit, "\"commit\": \"%s\"", key.commit);
    refused(good, dir, "other-cpu", cpu, "\"cpu\": \"Another CPU 9000\"", "measured on CPU 'Another CPU 9000'", &key);
    refused(good, dir, "other-features", feat, "\"features\": \"sse2\"", "measured with features sse2", &key);
    refused(good, dir, "other-commit", commit, "\"commit\": \"000000000000\"", "measured by ciot commit 000000000000", &key);
    refused(good, dir, "absent-kernel", "\"tl2_gemm_ref\"", "\"tl2_gemm_nosuch\"", "kernel 'tl2_gemm_nosuch', which this build has not", &key);
    refused(good, dir, "wrong-op", "\"kernel\": \"t2p_gemv_ref\"", "\"kernel\": \"t2p_gemm_ref\"", "is no pq2_0 gemv kernel", &key);
    refused(good, dir, "not-json", "\"choices\"", "choices", "is not JSON", &key);
    c = ciot_kernel_choose(&a);
    CHECK(!c.tuned && c.kernel, "after a refusal the static rank chooses");
    setenv("CIOT_TUNING", "none", 1);
    char path[64];
    CHECK(!ciot_tuning_path(NULL, path, sizeof path)[0], "CIOT_TUNING=none: no file");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("could not remove %s\n", dir);
    return check_summary();
}
