/* ciot run: one kernel on a weight file (source format, repacked as the runtime would) and float32
 * activations (quantized by the kernel's reference quantizer); writes batch x rows float32 outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "fileio.h"
#include "quant.h"
#include "registry.h"

static int usage(FILE *f, int code) {
    fprintf(f, "usage: ciot run --kernel NAME --rows N --cols K [--batch B] --weights W.bin --act X.bin --out Y.bin\n"
               "  W.bin: N x K weights as row-major blocks of the kernel's source format: PQ2_0 (34 bytes per 128\n"
               "         weights) or PTQ1_0 (28 bytes per 128 weights); a block scale that is NaN or Inf is refused\n"
               "  X.bin: B x K float32 activations, all finite; Y.bin receives B x N float32 (row b, output n at\n"
               "         b * N + n); Y.bin may be a device, FIFO or symbolic link, which is written through\n"
               "  a gemv kernel given B > 1 runs once per activation row\n");
    return code;
}

static int parse_int(const char *opt, const char *s, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v <= 0 || v > (1 << 28)) {
        fprintf(stderr, "ciot run: %s takes a positive number, not '%s'\n", opt, s);
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int fail(const char *msg, int code) {
    fprintf(stderr, "ciot run: %s\n", msg);
    return code;
}

/* Reads the weights and activations and refuses what the kernel cannot take: returns 0, or the exit
 * code with the message in msg (2: bad input, 1: out of memory). */
static int read_inputs(const ciot_kernel *k, const char *wpath, const char *xpath, int rows, int K, int batch,
                       void **src, void **xf, char *msg, size_t len) {
    ciot_status st = ciot_read_exact(wpath, ciot_source_bytes(k->layout->source, rows, K), src, msg, len);
    if (st == CIOT_OK) st = ciot_read_exact(xpath, sizeof(float) * (size_t)batch * K, xf, msg, len);
    if (st != CIOT_OK) return st == CIOT_E_NOMEM ? 1 : 2;
    const size_t blocks = (size_t)rows * (size_t)(K / CIOT_QK);
    const size_t bad_block = ciot_source_first_bad_scale(k->layout->source, *src, rows, K);
    if (bad_block < blocks) {
        snprintf(msg, len, "%s: block %zu (row %zu, weights %zu..%zu) has a scale that is NaN or infinite", wpath,
                 bad_block, bad_block / (size_t)(K / CIOT_QK), bad_block % (size_t)(K / CIOT_QK) * CIOT_QK,
                 bad_block % (size_t)(K / CIOT_QK) * CIOT_QK + CIOT_QK - 1);
        return 2;
    }
    const size_t n = (size_t)batch * (size_t)K, bad = ciot_first_nonfinite(*xf, n);
    if (bad < n) {
        const float v = ((const float *)*xf)[bad];
        snprintf(msg, len, "%s: activation %zu (row %zu, column %zu) is %s", xpath, bad, bad / (size_t)K,
                 bad % (size_t)K, isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
        return 2;
    }
    return 0;
}

int ciot_cmd_run(int argc, char **argv) {
    const char *name = NULL, *wpath = NULL, *xpath = NULL, *ypath = NULL;
    int rows = 0, K = 0, batch = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0);
        if (i + 1 >= argc) {
            fprintf(stderr, "ciot run: %s needs a value\n", a);
            return usage(stderr, 2);
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--kernel")) name = v;
        else if (!strcmp(a, "--weights")) wpath = v;
        else if (!strcmp(a, "--act")) xpath = v;
        else if (!strcmp(a, "--out")) ypath = v;
        else if (!strcmp(a, "--rows")) { if (!parse_int(a, v, &rows)) return 2; }
        else if (!strcmp(a, "--cols")) { if (!parse_int(a, v, &K)) return 2; }
        else if (!strcmp(a, "--batch")) { if (!parse_int(a, v, &batch)) return 2; }
        else {
            fprintf(stderr, "ciot run: unknown option '%s'\n", a);
            return usage(stderr, 2);
        }
    }
    if (!name || !wpath || !xpath || !ypath || !rows || !K) {
        fprintf(stderr, "ciot run: --kernel, --rows, --cols, --weights, --act and --out are required\n");
        return usage(stderr, 2);
    }
    const ciot_kernel *k = ciot_kernel_find(name);
    char msg[CIOT_WHY_MAX];
    if (!k) {
        snprintf(msg, sizeof msg, "unknown kernel '%s' (ciot kernels lists them)", name);
        return fail(msg, 2);
    }
    const unsigned missing = ciot_kernel_missing(k, ciot_cpu_features());
    if (missing) {
        char buf[128];
        snprintf(msg, sizeof msg, "kernel %s needs %s, which this CPU lacks", name,
                 ciot_feature_list(missing, buf, sizeof buf));
        return fail(msg, 2);
    }
    if (ciot_layout_check(k->layout, rows, K) != CIOT_OK) {
        snprintf(msg, sizeof msg, "kernel %s cannot take %d x %d: rows must be a multiple of %d and K of %d", name,
                 rows, K, k->layout->tile_rows, k->layout->k_multiple);
        return fail(msg, 2);
    }
    if ((size_t)batch * rows > ((size_t)1 << 31)) return fail("batch x rows is too large", 2);
    char why[CIOT_WHY_MAX];
    if (ciot_output_check(ypath, why, sizeof why) != CIOT_OK) {
        snprintf(msg, sizeof msg, "--out %s", why);
        return fail(msg, 2);
    }
    void *src = NULL, *xf = NULL;
    int code = read_inputs(k, wpath, xpath, rows, K, batch, &src, &xf, msg, sizeof msg);
    if (code) {
        free(src), free(xf);
        return fail(msg, code);
    }
    const int steps = k->op == CIOT_OP_GEMM ? 1 : batch, step_batch = k->op == CIOT_OP_GEMM ? batch : 1;
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    void *xq = malloc(ciot_act_bytes(k->act, step_batch, K));
    float *y = malloc(sizeof(float) * (size_t)batch * rows);
    ciot_status st;
    if (!w || !xq || !y) code = fail("out of memory", 1);
    else if ((st = ciot_layout_pack(k->layout, src, w, rows, K)) != CIOT_OK) {
        snprintf(msg, sizeof msg, "repacking for %s failed: %s", name, ciot_status_str(st));
        code = fail(msg, 1);
    } else {
        for (int s = 0; s < steps; s++) {
            k->act->quantize((const float *)xf + (size_t)s * K, xq, step_batch, K);
            ciot_mm mm = {w, xq, y + (size_t)s * rows, rows, K, step_batch, rows, 0};
            k->compute(&mm, 0, rows / k->layout->tile_rows);
        }
        if ((st = ciot_write_atomic(ypath, y, sizeof(float) * (size_t)batch * rows, why, sizeof why)) != CIOT_OK) {
            snprintf(msg, sizeof msg, "--out %s", why);
            code = fail(msg, st == CIOT_E_ARG ? 2 : 1);
        }
    }
    free(src), free(xf), free(w), free(xq), free(y);
    return code;
}
