/* Fuzz target: the file readers of `ciot run` and the run itself, in-process. The input picks a
 * kernel this CPU runs, a small shape, and the bytes of the weight and activation files (exactly the
 * sizes the shape needs, or any length). Whatever the bytes: exit 0, 1 or 2; exit 2 exactly when a file
 * has the wrong size or holds a NaN or infinite activation or weight scale; and on exit 0 the output
 * equals the kernel's scalar reference bit for bit.
 * ciot-fuzz-seconds: 20 */
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "cpu.h"
#include "fileio.h"
#include "fuzz.h"
#include "quant.h"
#include "registry.h"

static char dir[256], wpath[300], xpath[300], ypath[300];

static void remove_dir(void) {
    remove(wpath), remove(xpath), remove(ypath), rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ciot-fuzz-run-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    mkdir(dir, 0700);
    snprintf(wpath, sizeof wpath, "%s/w.bin", dir);
    snprintf(xpath, sizeof xpath, "%s/x.bin", dir);
    snprintf(ypath, sizeof ypath, "%s/y.bin", dir);
    atexit(remove_dir);
    return 0;
}

static void write_file(const char *path, const void *data, size_t n) {
    char why[CIOT_WHY_MAX];
    FUZZ_ASSERT(ciot_write_atomic(path, data, n, why, sizeof why) == CIOT_OK, "%s", why);
}

/* The reference kernel's output on the same files, as ciot run computes it. */
static void reference(const ciot_kernel *k, const void *src, const float *x, int rows, int K, int batch, float *y) {
    const ciot_kernel *ref = k->reference;
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    const int steps = k->op == CIOT_OP_GEMM ? 1 : batch, sb = k->op == CIOT_OP_GEMM ? batch : 1;
    void *q = malloc(ciot_act_bytes(k->act, sb, K));
    FUZZ_ASSERT(ciot_layout_pack(k->layout, src, w, rows, K) == CIOT_OK, "pack");
    for (int s = 0; s < steps; s++) {
        k->act->quantize(x + (size_t)s * K, q, sb, K);
        ciot_mm mm = {w, q, y + (size_t)s * rows, rows, K, sb, rows, 0};
        ref->compute(&mm, 0, rows / ref->layout->tile_rows);
    }
    free(w), free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    const unsigned cpu = ciot_cpu_features();
    int n_avail = 0;
    for (int i = 0; i < ciot_kernel_count(); i++) n_avail += !ciot_kernel_missing(ciot_kernel_at(i), cpu);
    int pick = fuzz_byte(&in) % n_avail;
    const ciot_kernel *k = NULL;
    for (int i = 0; !k; i++)
        if (!ciot_kernel_missing(ciot_kernel_at(i), cpu) && pick-- == 0) k = ciot_kernel_at(i);
    const uint8_t shape = fuzz_byte(&in), mode = fuzz_byte(&in);
    const int rows = k->layout->tile_rows * (1 + (shape & 3)), K = k->layout->k_multiple * (1 + ((shape >> 2) & 1));
    const int batch = 1 + ((shape >> 3) & 3);
    const size_t wbytes = ciot_source_bytes(k->layout->source, rows, K), xbytes = sizeof(float) * (size_t)batch * K;
    /* mode 0..191: files of exactly the right sizes; otherwise any lengths */
    size_t wlen = wbytes, xlen = xbytes;
    if (mode >= 192) {
        uint16_t a, b;
        fuzz_bytes(&in, &a, 2), fuzz_bytes(&in, &b, 2);
        wlen = a % (wbytes + 64), xlen = b % (xbytes + 64);
    }
    uint8_t *w = calloc(1, wlen + 1), *x = calloc(1, xlen + 1);
    fuzz_bytes(&in, w, wlen);
    fuzz_bytes(&in, x, xlen);
    write_file(wpath, w, wlen);
    write_file(xpath, x, xlen);
    remove(ypath);

    char r[16], c[16], b[16];
    snprintf(r, sizeof r, "%d", rows), snprintf(c, sizeof c, "%d", K), snprintf(b, sizeof b, "%d", batch);
    char *argv[] = {"run", "--kernel", (char *)k->name, "--rows", r, "--cols", c, "--batch", b,
                    "--weights", wpath, "--act", xpath, "--out", ypath, NULL};
    const int code = ciot_cmd_run(15, argv);

    const int sizes_ok = wlen == wbytes && xlen == xbytes;
    const size_t blocks = (size_t)rows * (size_t)(K / ciot_format_block_values(k->layout->source)), n_x = (size_t)batch * K;
    float *xf = NULL;
    int finite = 0;
    if (sizes_ok) {
        xf = malloc(xbytes);
        memcpy(xf, x, xbytes);
        finite = ciot_source_first_bad_scale(k->layout->source, w, rows, K) == blocks &&
            ciot_first_nonfinite(xf, n_x) == n_x;
    }
    FUZZ_ASSERT(code == 0 || code == 1 || code == 2, "exit %d", code);
    FUZZ_ASSERT((code == 2) == !(sizes_ok && finite), "%s %dx%d batch %d: exit %d, sizes %s, inputs %s", k->name,
                rows, K, batch, code, sizes_ok ? "right" : "wrong", finite ? "finite" : "not finite");
    if (code == 0) {
        void *got = NULL;
        char why[CIOT_WHY_MAX];
        const size_t ybytes = sizeof(float) * (size_t)batch * rows;
        FUZZ_ASSERT(ciot_read_exact(ypath, ybytes, &got, why, sizeof why) == CIOT_OK, "%s", why);
        float *want = malloc(ybytes);
        reference(k, w, xf, rows, K, batch, want);
        FUZZ_ASSERT(!memcmp(got, want, ybytes), "%s %dx%d batch %d: output differs from %s", k->name, rows, K, batch,
                    k->reference->name);
        free(got), free(want);
    }
    free(w), free(x), free(xf);
    return 0;
}
