/* ciot run: one kernel on a weight file or a GGUF tensor (source format, repacked as the runtime would)
 * and float32 activations (quantized by the kernel's reference quantizer); writes batch x rows float32
 * outputs. Every input is checked before anything runs: shapes, sizes, finite scales and activations, and
 * the output path, which must be none of the inputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "distinct_paths.h"
#include "fileio.h"
#include "gguf.h"
#include "opts.h"
#include "output.h"
#include "quant.h"
#include "registry.h"

static int fail(const char *msg, int code) {
    ciot_say("run", "%s", msg);
    return code;
}

/* The tensor's bytes as source weights for kernel k: rows and K from the tensor, a copy when the file's
 * alignment leaves them misaligned for the block structs (*copy is what to free). 0 after a message. */
static int gguf_weights(const ciot_kernel *k, const ciot_gguf *g, const char *path, const char *tensor,
                        const void **src, void **copy, int *rows, int *K) {
    const ciot_gguf_tensor *t = ciot_gguf_find_tensor(g, tensor);
    if (!t) {
        ciot_say("run", "%s holds no tensor '%s' (ciot gguf lists them)", path, tensor);
        return 0;
    }
    ciot_format f;
    char tb[32];
    const char *type = ciot_ggml_type_name(t->type);
    if (!type) snprintf(tb, sizeof tb, "type %u", t->type), type = tb;
    if (!ciot_gguf_tensor_matrix(t, &f, rows, K)) {
        ciot_say("run", "tensor '%s' (%s, %d-D) is not a 2-D ternary matrix", tensor, type, t->n_dims);
        return 0;
    }
    if (f != k->layout->source) {
        ciot_say("run", "tensor '%s' is %s; kernel %s reads %s (ciot gguf %s lists the kernels per tensor)",
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
    char why[256];
    if (ciot_layout_check(k->layout, rows, K) != CIOT_OK) {
        if (!ciot_shape_refusal(&k->layout, 1, rows, K, why, sizeof why)) snprintf(why, sizeof why, "both must be positive");
        ciot_say("run", "kernel %s cannot take %d x %d: %s", k->name, rows, K, why);
        return 0;
    }
    if ((size_t)batch * rows > ((size_t)1 << 31)) {
        fprintf(stderr, "ciot run: batch x rows is too large\n");
        return 0;
    }
    return 1;
}

/* Refuses weights with a NaN or infinite block scale and activations that are not finite: 0, or 2 with the
 * message in msg naming the first one. */
static int finite_inputs(const ciot_kernel *k, const void *src, const char *wname, const float *xf, const char *xpath,
                         int rows, int K, int batch, char *msg, size_t len) {
    char why[128];
    if (ciot_source_check_scales(k->layout->source, src, rows, K, why, sizeof why) != CIOT_OK) {
        snprintf(msg, len, "%s: %s", wname, why);
        return 2;
    }
    const size_t n = (size_t)batch * (size_t)K, bad = ciot_first_nonfinite(xf, n);
    if (bad < n) {
        snprintf(msg, len, "%s: activation %zu (row %zu, column %zu) is %s", xpath, bad, bad / (size_t)K,
                 bad % (size_t)K, isnan(xf[bad]) ? "NaN" : xf[bad] > 0 ? "+Inf" : "-Inf");
        return 2;
    }
    return 0;
}

/* Packs src (rows x K source blocks) into the kernel's layout, runs it on the activations of xpath and
 * writes the outputs to ypath. Returns the exit code. */
static int run_kernel(const ciot_kernel *k, const void *src, const char *wname, int rows, int K, int batch,
                      const char *xpath, const char *ypath) {
    char msg[CIOT_WHY_MAX], why[CIOT_WHY_MAX];
    void *xf = NULL;
    ciot_status st = ciot_read_exact(xpath, sizeof(float) * (size_t)batch * K, &xf, msg, sizeof msg);
    int code = st == CIOT_OK ? finite_inputs(k, src, wname, xf, xpath, rows, K, batch, msg, sizeof msg)
                             : st == CIOT_E_NOMEM ? 1 : 2;
    if (code) {
        free(xf);
        return fail(msg, code);
    }
    const int steps = k->op == CIOT_OP_GEMM ? 1 : batch, step_batch = k->op == CIOT_OP_GEMM ? batch : 1;
    void *w = malloc(ciot_layout_bytes(k->layout, rows, K));
    void *xq = malloc(ciot_act_bytes(k->act, step_batch, K));
    float *y = malloc(sizeof(float) * (size_t)batch * rows);
    if (!w || !xq || !y) code = fail("out of memory", 1);
    else if ((st = ciot_layout_pack(k->layout, src, w, rows, K)) != CIOT_OK) {
        snprintf(msg, sizeof msg, "repacking for %s failed: %s", k->name, ciot_status_str(st));
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
    free(xf), free(w), free(xq), free(y);
    return code;
}

int ciot_cmd_run(int argc, char **argv) {
    const char *name = NULL, *wpath = NULL, *xpath = NULL, *ypath = NULL, *gpath = NULL, *tensor = NULL;
    int rows = 0, K = 0, batch = 1;
    const ciot_opt opts[] = {
        {"--kernel", CIOT_OPT_STRING, &name, 0, 0, NULL, "NAME", "the kernel (ciot kernels lists them)", NULL},
        {"--rows", CIOT_OPT_INT, &rows, 1, 1 << 28, NULL, "N", "weight rows (with --weights)", NULL},
        {"--cols", CIOT_OPT_INT, &K, 1, 1 << 28, NULL, "K", "weights per row (with --weights)", NULL},
        {"--batch", CIOT_OPT_INT, &batch, 1, 1 << 20, NULL, "B", "activation rows (default 1; a gemv runs once per row)", NULL},
        {"--weights", CIOT_OPT_STRING, &wpath, 0, 0, NULL, "W.bin",
         "N x K weights as row-major blocks of the kernel's source format: PQ2_0 (34 bytes\n"
         "per 128 weights), PTQ1_0 (28 bytes per 128), TQ1_0 (54 bytes per 256) or TQ2_0\n"
         "(66 bytes per 256); a block scale that is NaN or Inf is refused", NULL},
        {"--gguf", CIOT_OPT_STRING, &gpath, 0, 0, NULL, "FILE", "instead of --weights: a GGUF file ...", NULL},
        {"--tensor", CIOT_OPT_STRING, &tensor, 0, 0, NULL, "NAME",
         "... and its tensor: N = ne[1], K = ne[0]; its type must be the kernel's source", NULL},
        {"--act", CIOT_OPT_STRING, &xpath, 0, 0, NULL, "X.bin", "B x K float32 activations, all finite", NULL},
        {"--out", CIOT_OPT_STRING, &ypath, 0, 0, NULL, "Y.bin",
         "receives B x N float32 (row b, output n at b * N + n); a device, FIFO or\n"
         "symbolic link is written through, never replaced", NULL},
    };
    const ciot_cmdline c = {"run", "--kernel NAME (--weights W.bin --rows N --cols K | --gguf FILE --tensor NAME) --act X.bin --out Y.bin [--batch B]",
                            "One kernel on files: the weights repacked as the runtime would, the activations\n"
                            "quantized by the kernel's reference quantizer.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    if (gpath || tensor ? !gpath || !tensor || wpath || rows || K : !wpath || !rows || !K)
        return ciot_opts_fail(&c, "give --weights with --rows and --cols, or --gguf with --tensor");
    if (!name || !xpath || !ypath) return ciot_opts_fail(&c, "--kernel, --act and --out are required");
    const ciot_named_path files[] = {
        {"--weights", wpath, CIOT_PATH_INPUT, NULL}, {"--gguf", gpath, CIOT_PATH_INPUT, NULL},
        {"--act", xpath, CIOT_PATH_INPUT, NULL},     {"--out", ypath, CIOT_PATH_OUTPUT, NULL},
    };
    if ((rc = ciot_distinct_paths("run", files, (int)(sizeof files / sizeof files[0]))) >= 0) return rc;
    const ciot_kernel *k = ciot_kernel_find(name);
    char msg[CIOT_WHY_MAX], why[CIOT_WHY_MAX];
    if (!k) {
        char nearest[512];
        ciot_kernel_suggest(name, 0, nearest, sizeof nearest);
        snprintf(msg, sizeof msg, "unknown kernel '%s' (%s%s%sciot kernels lists them)", name, *nearest ? "nearest: " : "",
                 nearest, *nearest ? "; " : "");
        return fail(msg, 2);
    }
    const unsigned missing = ciot_kernel_missing(k, ciot_cpu_features());
    if (missing) {
        char buf[128];
        snprintf(msg, sizeof msg, "kernel %s needs %s, which this CPU lacks", name, ciot_feature_list(missing, buf, sizeof buf));
        return fail(msg, 2);
    }
    if (ciot_output_check(ypath, why, sizeof why) != CIOT_OK) {
        snprintf(msg, sizeof msg, "--out %s", why);
        return fail(msg, 2);
    }
    if (!gpath) {
        if (!shape_ok(k, rows, K, batch)) return 2;
        void *src = NULL;
        const ciot_status st = ciot_read_exact(wpath, ciot_source_bytes(k->layout->source, rows, K), &src, msg, sizeof msg);
        if (st != CIOT_OK) return fail(msg, st == CIOT_E_NOMEM ? 1 : 2);
        const int code = run_kernel(k, src, wpath, rows, K, batch, xpath, ypath);
        free(src);
        return code;
    }
    ciot_gguf *g;
    const ciot_status st = ciot_gguf_open(gpath, &g, msg, sizeof msg);
    if (st != CIOT_OK) {
        ciot_say("run", "%s: %s", gpath, msg);
        return st == CIOT_E_NOMEM ? 1 : 2;
    }
    const void *src = NULL;
    void *copy = NULL;
    char wname[1200];
    snprintf(wname, sizeof wname, "%s tensor %s", gpath, tensor);
    const int code = gguf_weights(k, g, gpath, tensor, &src, &copy, &rows, &K) && shape_ok(k, rows, K, batch)
                         ? run_kernel(k, src, wname, rows, K, batch, xpath, ypath) : 2;
    free(copy);
    ciot_gguf_close(g);
    return code;
}
