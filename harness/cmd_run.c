/* ciot run: one kernel on a weight file or a GGUF tensor (source format, repacked as the runtime would)
 * and float32 activations (quantized by the kernel's reference quantizer); writes batch x rows float32
 * outputs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "fileio.h"
#include "gguf.h"
#include "registry.h"

static int usage(FILE *f, int code) {
    fprintf(f, "usage: ciot run --kernel NAME --rows N --cols K [--batch B] --weights W.bin --act X.bin --out Y.bin\n"
               "       ciot run --kernel NAME --gguf FILE --tensor NAME [--batch B] --act X.bin --out Y.bin\n"
               "  W.bin: N x K weights as row-major blocks of the kernel's source format (PQ2_0, PTQ1_0, TQ1_0,\n"
               "  TQ2_0); a GGUF tensor gives N = ne[1] and K = ne[0] and must be of that format\n"
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

/* The tensor's bytes as source weights for kernel k: rows and K from the tensor, a copy when the file's
 * alignment leaves them misaligned for the block structs (*copy is what to free). 0 after a message. */
static int gguf_weights(const ciot_kernel *k, const ciot_gguf *g, const char *path, const char *tensor,
                        const void **src, void **copy, int *rows, int *K) {
    const ciot_gguf_tensor *t = ciot_gguf_find_tensor(g, tensor);
    if (!t) {
        fprintf(stderr, "ciot run: %s holds no tensor '%s' (ciot gguf lists them)\n", path, tensor);
        return 0;
    }
    ciot_format f;
    char tb[32];
    const char *type = ciot_ggml_type_name(t->type);
    if (!type) snprintf(tb, sizeof tb, "type %u", t->type), type = tb;
    if (!ciot_gguf_tensor_matrix(t, &f, rows, K)) {
        fprintf(stderr, "ciot run: tensor '%s' (%s, %d-D) is not a 2-D ternary matrix\n", tensor, type, t->n_dims);
        return 0;
    }
    if (f != k->layout->source) {
        fprintf(stderr, "ciot run: tensor '%s' is %s; kernel %s reads %s (ciot gguf %s lists the kernels per tensor)\n",
                tensor, type, k->name, ciot_format_name(k->layout->source), path);
        return 0;
    }
    *src = t->data;
    if ((uintptr_t)t->data % 16) {
        if (!(*copy = malloc(t->bytes))) {
            fprintf(stderr, "ciot run: out of memory\n");
            return 0;
        }
        *src = memcpy(*copy, t->data, t->bytes);
    }
    return 1;
}

/* Whether the kernel takes rows x K and the batch (a message when not). */
static int shape_ok(const ciot_kernel *k, int rows, int K, int batch) {
    if (ciot_layout_check(k->layout, rows, K) != CIOT_OK) {
        fprintf(stderr, "ciot run: kernel %s cannot take %d x %d: rows must be a multiple of %d and K of %d\n", k->name,
                rows, K, k->layout->tile_rows, k->layout->k_multiple);
        return 0;
    }
    if ((size_t)batch * rows > ((size_t)1 << 31)) {
        fprintf(stderr, "ciot run: batch x rows is too large\n");
        return 0;
    }
    return 1;
}

/* Packs src (rows x K source blocks) into the kernel's layout, runs it on the activations of xpath and
 * writes the outputs to ypath. Returns the exit code. */
static int run_kernel(const ciot_kernel *k, const void *src, int rows, int K, int batch, const char *xpath,
                      const char *ypath) {
    char msg[4200];
    void *xf = NULL;
    ciot_status st = ciot_read_exact(xpath, sizeof(float) * (size_t)batch * K, &xf, msg, sizeof msg);
    if (st != CIOT_OK) return fail(msg);
    const int steps = k->op == CIOT_OP_GEMM ? 1 : batch, step_batch = k->op == CIOT_OP_GEMM ? batch : 1;
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    void *xq = malloc(ciot_act_bytes(k->act, step_batch, K));
    float *y = malloc(sizeof(float) * (size_t)batch * rows);
    int code = 0;
    if (!w || !xq || !y) {
        fprintf(stderr, "ciot run: out of memory\n");
        code = 1;
    } else if ((st = ciot_layout_pack(k->layout, src, w, rows, K)) != CIOT_OK) {
        snprintf(msg, sizeof msg, "repacking for %s failed: %s", k->name, ciot_status_str(st));
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
    free(xf), free(w), free(xq), free(y);
    return code;
}

int ciot_cmd_run(int argc, char **argv) {
    const char *name = NULL, *wpath = NULL, *xpath = NULL, *ypath = NULL, *gpath = NULL, *tensor = NULL;
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
        else if (!strcmp(a, "--gguf")) gpath = v;
        else if (!strcmp(a, "--tensor")) tensor = v;
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
    if (gpath || tensor ? !gpath || !tensor || wpath || rows || K : !wpath || !rows || !K) {
        fprintf(stderr, "ciot run: give --weights with --rows and --cols, or --gguf with --tensor\n");
        return usage(stderr, 2);
    }
    if (!name || !xpath || !ypath) {
        fprintf(stderr, "ciot run: --kernel, --act and --out are required\n");
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
    if (!gpath) {
        if (!shape_ok(k, rows, K, batch)) return 2;
        void *src = NULL;
        if (ciot_read_exact(wpath, ciot_source_bytes(k->layout->source, rows, K), &src, msg, sizeof msg) != CIOT_OK)
            return fail(msg);
        const int code = run_kernel(k, src, rows, K, batch, xpath, ypath);
        free(src);
        return code;
    }
    ciot_gguf *g;
    if (ciot_gguf_open(gpath, &g, msg, sizeof msg) != CIOT_OK) {
        fprintf(stderr, "ciot run: %s: %s\n", gpath, msg);
        return 2;
    }
    const void *src = NULL;
    void *copy = NULL;
    const int code = gguf_weights(k, g, gpath, tensor, &src, &copy, &rows, &K) && shape_ok(k, rows, K, batch)
                         ? run_kernel(k, src, rows, K, batch, xpath, ypath) : 2;
    free(copy);
    ciot_gguf_close(g);
    return code;
}
