/* The ciot program in-process: `run` reproduces the reference for every registered kernel this CPU runs
 * (files written, run, read back, compared bit for bit), and every bad input exits non-zero. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "commands.h"
#include "cpu.h"
#include "fileio.h"
#include "registry.h"
#include "testdata.h"

static char dir[256];

static int run(const char *kernel, int rows, int K, int batch, const char *w, const char *x, const char *y) {
    char r[16], k[16], b[16];
    snprintf(r, sizeof r, "%d", rows), snprintf(k, sizeof k, "%d", K), snprintf(b, sizeof b, "%d", batch);
    char *argv[] = {"run", "--kernel", (char *)kernel, "--rows", r, "--cols", k, "--batch", b,
                    "--weights", (char *)w, "--act", (char *)x, "--out", (char *)y, NULL};
    return ciot_cmd_run(15, argv);
}

static void path(char *out, const char *name) { snprintf(out, 512, "%s/%s", dir, name); }

/* Expected output of `k`: its reference on the same repacked weights and reference-quantized rows. */
static void expected(const ciot_kernel *k, const void *src, const float *x, int rows, int K, int batch, float *y) {
    const ciot_kernel *ref = ciot_kernel_find(k->reference);
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    void *q = malloc(ciot_act_bytes(k->act, batch, K));
    ciot_layout_pack(k->layout, src, w, rows, K);
    const int steps = k->op == CIOT_OP_GEMM ? 1 : batch, sb = k->op == CIOT_OP_GEMM ? batch : 1;
    for (int s = 0; s < steps; s++) {
        k->act->quantize(x + (size_t)s * K, q, sb, K);
        ciot_mm mm = {w, q, y + (size_t)s * rows, rows, K, sb, rows, 0};
        ref->compute(&mm, 0, rows / ref->layout->tile_rows);
    }
    free(w), free(q);
}

static void round_trip(const ciot_kernel *k, int rows, int K, int batch) {
    ciot_testdata t;
    ciot_testdata_make(&t, k->layout->source, k->act, rows, K, 1, CIOT_PAT_RANDOM, 0, 42);
    float *x = malloc(sizeof(float) * (size_t)batch * K), *want = malloc(sizeof(float) * (size_t)batch * rows);
    for (int j = 0; j < batch * K; j++) x[j] = (float)((j * 7919) % 2001 - 1000) * 1e-3f;
    char wp[512], xp[512], yp[512], why[256];
    path(wp, "w.bin"), path(xp, "x.bin"), path(yp, "y.bin");
    ciot_write_atomic(wp, t.src, ciot_source_bytes(k->layout->source, rows, K), why, sizeof why);
    ciot_write_atomic(xp, x, sizeof(float) * (size_t)batch * K, why, sizeof why);
    remove(yp);
    const int code = run(k->name, rows, K, batch, wp, xp, yp);
    CHECK(code == 0, "ciot run --kernel %s %dx%d batch %d exited %d", k->name, rows, K, batch, code);
    void *got = NULL;
    if (ciot_read_exact(yp, sizeof(float) * (size_t)batch * rows, &got, why, sizeof why) == CIOT_OK) {
        expected(k, t.src, x, rows, K, batch, want);
        size_t at = 0;
        while (at < (size_t)batch * rows && !memcmp((float *)got + at, want + at, 4)) at++;
        CHECK(at == (size_t)batch * rows, "%s %dx%d batch %d: output %zu expected %.9g got %.9g", k->name, rows, K, batch,
              at, at < (size_t)batch * rows ? want[at] : 0, at < (size_t)batch * rows ? ((float *)got)[at] : 0);
    } else
        CHECK(0, "%s: %s", k->name, why);
    free(got), free(x), free(want);
    ciot_testdata_free(&t);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/ciot-test-cli-%ld", (long)getpid());
    if (mkdir(dir, 0700) != 0) return printf("cannot create %s\n", dir), 1;
    const unsigned cpu = ciot_cpu_features();
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (ciot_kernel_missing(k, cpu)) {
            printf("SKIP %s: this CPU lacks a feature it needs (not counted)\n", k->name);
            continue;
        }
        const int u = k->layout->tile_rows > 4 ? k->layout->tile_rows : 4; /* 8 and 12 rows, or 2 and 3 tiles */
        round_trip(k, 2 * u, 512, 1);
        round_trip(k, 3 * u, 1280, 3);
        round_trip(k, 2 * u, 256, 5);
    }
    /* bad input: one clear message, non-zero exit */
    char wp[512], xp[512], yp[512], why[256];
    path(wp, "w.bin"), path(xp, "x.bin"), path(yp, "y.bin");
    static unsigned char zeros[34 * 8 * 4];
    static float xs[4 * 512];
    ciot_write_atomic(wp, zeros, 34 * 8 * 4, why, sizeof why); /* 8 rows x 512 of PQ2_0 */
    ciot_write_atomic(xp, xs, sizeof(float) * 512, why, sizeof why);
    CHECK(run("pq2_0_gemv_ref", 8, 512, 1, wp, xp, yp) == 0, "the good case runs");
    CHECK(run("no_such_kernel", 8, 512, 1, wp, xp, yp) != 0, "unknown kernel");
    CHECK(run("pq2_0_gemv_ref", 8, 768, 1, wp, xp, yp) != 0, "weights file of the wrong size");
    CHECK(run("pq2_0_gemv_ref", 8, 512, 2, wp, xp, yp) != 0, "activation file too short");
    CHECK(run("pq2_0_gemv_ref", 8, 384, 1, wp, xp, yp) != 0, "K not a multiple of 256");
    CHECK(run("t2p_gemv_ref", 6, 512, 1, wp, xp, yp) != 0, "rows not a multiple of 4 for T2P");
    CHECK(run("pq2_0_gemv_ref", 8, 512, 1, "/nonexistent/w.bin", xp, yp) != 0, "missing weights file");
    CHECK(run("pq2_0_gemv_ref", 8, 512, 1, wp, xp, "/nonexistent/dir/y.bin") != 0, "unwritable output");
    char *zero_rows[] = {"run", "--kernel", "pq2_0_gemv_ref", "--rows", "0", "--cols", "512", NULL};
    CHECK(ciot_cmd_run(7, zero_rows) != 0, "--rows 0");
    char *missing[] = {"run", "--kernel", NULL};
    CHECK(ciot_cmd_run(2, missing) != 0, "option without a value");
    for (int i = 0; i < ciot_kernel_count(); i++)
        if (ciot_kernel_at(i)->features) {
            setenv("CIOT_CPU", "none", 1);
            CHECK(run(ciot_kernel_at(i)->name, 8, 512, 1, wp, xp, yp) != 0, "%s with CIOT_CPU=none", ciot_kernel_at(i)->name);
            unsetenv("CIOT_CPU");
            break;
        }
    remove(wp), remove(xp), remove(yp), rmdir(dir);
    return check_summary();
}
