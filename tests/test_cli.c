/* The ciot program in-process: `run` reproduces the reference for every registered kernel this CPU runs
 * (files written, run, read back, compared bit for bit), and every bad input exits non-zero. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "cpu_mask.h"
#include "commands.h"
#include "cpu.h"
#include "canonical.h"
#include "fileio.h"
#include "fp16.h"
#include "quant.h"
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

/* Expected output of any kernel reading `format`, from the format's definition and the canonical float
 * order (harness/check/canonical.c), never through a kernel: codes and scales read byte by byte from the source
 * blocks, activations through the reference quantizer (Q8_Kx4 is four Q8_K rows, so Q8_K stands for it). */
static void expected(ciot_format format, const void *src, const float *x, int rows, int K, int batch, float *y) {
    const int per_block = format == CIOT_FMT_PTQ1_0 ? CIOT_QK8_0 : CIOT_QK_K;   /* values per activation scale */
    uint8_t *codes = malloc((size_t)rows * K);
    uint16_t *scales = malloc(sizeof(uint16_t) * (size_t)rows * K / 128);
    int8_t *a = malloc((size_t)K);
    float *dy = malloc(sizeof(float) * (size_t)(K / per_block));
    block_q8_K *yk = malloc(sizeof(block_q8_K) * (size_t)(K / CIOT_QK_K));
    block_q8_0 *y0 = malloc(sizeof(block_q8_0) * (size_t)(K / CIOT_QK8_0));
    ciot_source_codes(format, src, rows, K, codes, scales);
    const size_t scales_per_row = (size_t)K / ciot_format_block_values(format);
    for (int b = 0; b < batch; b++) {
        for (int i = 0; i < K / per_block; i++) {
            if (format == CIOT_FMT_PTQ1_0) {
                ciot_quantize_q8_0(x + (size_t)b * K + (size_t)i * per_block, &y0[i], per_block);
                memcpy(a + (size_t)i * per_block, y0[i].qs, (size_t)per_block);
                dy[i] = ciot_fp16_to_fp32(y0[i].d);
            } else {
                ciot_quantize_q8_K(x + (size_t)b * K + (size_t)i * per_block, &yk[i], per_block);
                memcpy(a + (size_t)i * per_block, yk[i].qs, (size_t)per_block);
                dy[i] = yk[i].d;
            }
        }
        for (int n = 0; n < rows; n++)
            y[(size_t)b * rows + n] =
                ciot_canonical_row(format, K, codes + (size_t)n * K, scales + (size_t)n * scales_per_row, a, dy);
    }
    free(codes), free(scales), free(a), free(dy), free(yk), free(y0);
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
        expected(k->layout->source, t.src, x, rows, K, batch, want);
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
            SKIP("%s: this CPU lacks a feature it needs", k->name);
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
            test_mask_cpu("none");
            CHECK(run(ciot_kernel_at(i)->name, 8, 512, 1, wp, xp, yp) != 0, "%s with CIOT_CPU=none", ciot_kernel_at(i)->name);
            test_unmask_cpu();
            break;
        }
    remove(wp), remove(xp), remove(yp), rmdir(dir);
    return check_summary();
}
