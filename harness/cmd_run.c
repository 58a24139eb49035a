/* ciot run: one kernel on a weight file (source format, repacked as the runtime would) and float32
 * activations (quantized by the kernel's reference quantizer); writes batch x rows float32 outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "fileio.h"
#include "registry.h"

static int usage(FILE *f, int code) {
    fprintf(f, "usage: ciot run --kernel NAME --rows N --cols K [--batch B] --weights W.bin --act X.bin --out Y.bin\n"
               "  W.bin: N x K weights as row-major blocks of the kernel's source format (PQ2_0, or PTQ1_0)\n"
               "  X.bin: B x K float32 activations; Y.bin receives B x N float32 (row b, output n at b * N + n)\n"
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

static int fail(const char *msg) {
    fprintf(stderr, "ciot run: %s\n", msg);
    return 2;
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
    char msg[4200];
    if (!k) {
        snprintf(msg, sizeof msg, "unknown kernel '%s' (ciot kernels lists them)", name);
        return fail(msg);
    }
    const unsigned missing = ciot_kernel_missing(k, ciot_cpu_features());
    if (missing) {
        char buf[128];
        snprintf(msg, sizeof msg, "kernel %s needs %s, which this CPU lacks", name, ciot_feature_list(missing, buf, sizeof buf));
        return fail(msg);
    }
    if (ciot_layout_check(k->layout, rows, K) != CIOT_OK) {
        snprintf(msg, sizeof msg, "kernel %s cannot take %d x %d: rows must be a multiple of %d and K of %d", name, rows,
                 K, k->layout->tile_rows, k->layout->k_multiple);
        return fail(msg);
    }
    if ((size_t)batch * rows > ((size_t)1 << 31)) return fail("batch x rows is too large");
    void *src = NULL, *xf = NULL;
    ciot_status st = ciot_read_exact(wpath, ciot_source_bytes(k->layout->source, rows, K), &src, msg, sizeof msg);
    if (st == CIOT_OK) st = ciot_read_exact(xpath, sizeof(float) * (size_t)batch * K, &xf, msg, sizeof msg);
    if (st != CIOT_OK) {
        free(src);
        return fail(msg);
    }
    const int steps = k->op == CIOT_OP_GEMM ? 1 : batch, step_batch = k->op == CIOT_OP_GEMM ? batch : 1;
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    void *xq = malloc(ciot_act_bytes(k->act, step_batch, K));
    float *y = malloc(sizeof(float) * (size_t)batch * rows);
    int code = 0;
    if (!w || !xq || !y) code = fail("out of memory");
    else if ((st = ciot_layout_pack(k->layout, src, w, rows, K)) != CIOT_OK) {
        snprintf(msg, sizeof msg, "repacking for %s failed: %s", name, ciot_status_str(st));
        code = fail(msg);
    } else {
        for (int s = 0; s < steps; s++) {
            k->act->quantize((const float *)xf + (size_t)s * K, xq, step_batch, K);
            ciot_mm mm = {w, xq, y + (size_t)s * rows, rows, K, step_batch, rows, 0};
            k->compute(&mm, 0, rows / k->layout->tile_rows);
        }
        if (ciot_write_atomic(ypath, y, sizeof(float) * (size_t)batch * rows, msg, sizeof msg) != CIOT_OK)
            code = fail(msg);
    }
    free(src), free(xf), free(w), free(xq), free(y);
    return code;
}
