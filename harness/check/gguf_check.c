/* ciot check --gguf: the oracle on a model file's real bytes. For every 2-D ternary tensor (matching the
 * regex), activations are drawn and quantized, and the expected outputs are computed from values: the
 * tensor read byte by byte into codes and scales (canonical.c), then the canonical float order. Every
 * kernel this CPU runs that takes the tensor (its layout's source format, its shape) is packed as at load
 * time and checked at every slice a pool could cut, at batch 1 (gemv) or 1 and 5 (gemm): bit for bit
 * against the expected outputs and against its reference twin on the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "canonical.h"
#include "formats.h"
#include "fp16.h"
#include "cpu.h"
#include "gguf_check.h"
#include "oracle.h"
#include "os.h"
#include "registry.h"
#include "splitmix64.h"

enum { MAX_BATCH = 5 };

/* MAX_BATCH rows of K floats: each row its own magnitude (at most 4.05), row 1 opens with an all-zero block
 * (a zero activation scale) and row 2 with a tie between its two largest magnitudes (+5 and -5). */
static void draw_acts(float *x, int K, uint64_t seed) {
    uint64_t s = seed;
    for (int b = 0; b < MAX_BATCH; b++) {
        const float mag = 0.05f + (float)(ciot_splitmix64(&s) >> 40) / 16777216.0f * 4.0f;
        for (int k = 0; k < K; k++)
            x[(size_t)b * K + k] = mag * ((float)(ciot_splitmix64(&s) >> 40) / 8388608.0f - 1.0f);
    }
    memset(x + K, 0, sizeof(float) * (size_t)(K < 256 ? K : 256));
    x[2 * (size_t)K] = 5.0f, x[2 * (size_t)K + 1] = -5.0f;
}

/* Everything computed once per tensor: codes, expected outputs, and per layout / activation format the
 * packed weights and quantized activations, per reference twin its outputs. */
typedef struct {
    const ciot_layout *layout;
    void *w;
} packed;

typedef struct {
    ciot_format f;
    int rows, K;
    const void *src;
    float *x;                   /* MAX_BATCH x K floats */
    float *want;                /* MAX_BATCH x rows expected outputs */
    packed pk[16];
    int npk;
} tensor_case;

static void *packed_for(tensor_case *c, const ciot_layout *l, FILE *log) {
    for (int i = 0; i < c->npk; i++)
        if (c->pk[i].layout == l) return c->pk[i].w;
    if (c->npk == (int)(sizeof c->pk / sizeof c->pk[0])) return NULL;
    void *w = malloc(ciot_layout_bytes(l, c->rows, c->K));
    ciot_status s = w ? ciot_layout_pack(l, c->src, w, c->rows, c->K) : CIOT_E_NOMEM;
    if (s != CIOT_OK) {
        fprintf(log, "FAIL layout %s: the load-time pack of %d x %d refused (%s)\n", l->name, c->rows, c->K,
                ciot_status_str(s));
        free(w);
        return NULL;
    }
    c->pk[c->npk++] = (packed){l, w};
    return w;
}

/* Expected outputs: codes read from the bytes, activations quantized by the reference quantizer of the
 * format's activations (Q8_K, or Q8_0 for PTQ1_0), the canonical order per (weight row, activation row). */
static int expected(tensor_case *c) {
    const int K = c->K, bv = ciot_format_block_values(c->f), q8_0 = c->f == CIOT_FMT_PTQ1_0;
    const ciot_act_format *act = q8_0 ? &ciot_act_q8_0 : &ciot_act_q8_K;
    const int per_row = K / act->block_values;
    uint8_t *codes = malloc((size_t)c->rows * K);
    uint16_t *dw = malloc(sizeof(uint16_t) * (size_t)c->rows * (K / bv));
    int8_t *a = malloc((size_t)MAX_BATCH * K);
    float *dy = malloc(sizeof(float) * MAX_BATCH * per_row);
    void *xq = malloc(ciot_act_bytes(act, MAX_BATCH, K));
    const int ok = codes && dw && a && dy && xq;
    if (ok) {
        ciot_source_codes(c->f, c->src, c->rows, K, codes, dw);
        act->quantize(c->x, xq, MAX_BATCH, K);
        for (int i = 0; i < MAX_BATCH * per_row; i++) {
            if (q8_0) {
                const block_q8_0 *y = (const block_q8_0 *)xq + i;
                dy[i] = ciot_fp16_to_fp32(y->d);
                memcpy(a + (size_t)i * 32, y->qs, 32);
            } else {
                const block_q8_K *y = (const block_q8_K *)xq + i;
                dy[i] = y->d;
                memcpy(a + (size_t)i * 256, y->qs, 256);
            }
        }
        for (int b = 0; b < MAX_BATCH; b++)
            for (int n = 0; n < c->rows; n++)
                c->want[(size_t)b * c->rows + n] =
                    ciot_canonical_row(c->f, K, codes + (size_t)n * K, dw + (size_t)n * (K / bv), a + (size_t)b * K,
                                       dy + (size_t)b * per_row);
    }
    free(codes), free(dw), free(a), free(dy), free(xq);
    return ok;
}

/* Kernel k on the tensor at `batch`: every slice against the expected outputs, and the full output against
 * the reference twin's on the same packed bytes. */
static int check_kernel(tensor_case *c, const ciot_kernel *k, int batch, const char *name, FILE *log) {
    void *w = packed_for(c, k->layout, log);
    void *xq = malloc(ciot_act_bytes(k->act, batch, c->K));
    float *twin = malloc(sizeof(float) * (size_t)batch * c->rows);
    int ok = w && xq && twin;
    if (!ok) fprintf(log, "FAIL %s on %s batch %d: out of memory or refused pack\n", k->name, name, batch);
    if (ok) {
        char label[160];
        snprintf(label, sizeof label, "tensor %.120s", name);
        k->act->quantize(c->x, xq, batch, c->K);
        ok = ciot_oracle_slices(k, w, xq, c->rows, c->K, batch, c->want, label, NULL, log);
        const ciot_kernel *ref = k->reference;
        if (ref != k) {
            ciot_mm mm = {w, xq, twin, c->rows, c->K, batch, c->rows, 0};
            ref->compute(&mm, 0, c->rows / ref->layout->tile_rows);
            ok &= ciot_oracle_slices(k, w, xq, c->rows, c->K, batch, twin, label, "vs-reference", log);
        }
    }
    free(xq), free(twin);
    return ok;
}

/* The tensor's bytes, 16-byte aligned for the block structs: the file's, or a copy (*copy, to free). NULL
 * when out of memory. */
static const void *aligned_bytes(const ciot_gguf_tensor *t, void **copy) {
    *copy = NULL;
    if ((uintptr_t)t->data % 16 == 0) return t->data;
    if ((*copy = malloc(t->bytes))) memcpy(*copy, t->data, t->bytes);
    return *copy;
}

/* One tensor: the kernels that take it, each at its batches. Returns the kernels run (0: none). */
static int check_tensor(const ciot_gguf_tensor *t, int index, const ciot_gguf_check_opts *o, ciot_gguf_check_result *r,
                        FILE *log) {
    tensor_case c = {0};
    if (!ciot_gguf_tensor_matrix(t, &c.f, &c.rows, &c.K)) return 0;
    const unsigned cpu = ciot_cpu_features();
    int runnable = 0;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        const int takes = k->layout->source == c.f && ciot_layout_check(k->layout, c.rows, c.K) == CIOT_OK &&
                          (!o->kernel_filter || strstr(k->name, o->kernel_filter));
        if (takes && ciot_kernel_missing(k, cpu)) r->skipped += k->op == CIOT_OP_GEMM ? 2 : 1;  /* its batches */
        runnable += takes && !ciot_kernel_missing(k, cpu);
    }
    if (!runnable) return 0;
    void *copy;
    c.src = aligned_bytes(t, &copy);
    c.x = malloc(sizeof(float) * MAX_BATCH * (size_t)c.K);
    c.want = malloc(sizeof(float) * MAX_BATCH * (size_t)c.rows);
    const int before_pass = r->passed, before_fail = r->failed;
    if (!c.src || !c.x || !c.want) {
        fprintf(log, "FAIL %s: out of memory\n", t->name);
        r->failed++;
    } else {
        draw_acts(c.x, c.K, 0x5eed0000u + (uint64_t)index);
        if (!expected(&c)) {
            fprintf(log, "FAIL %s: out of memory\n", t->name);
            r->failed++;
        } else
            for (int i = 0; i < ciot_kernel_count(); i++) {
                const ciot_kernel *k = ciot_kernel_at(i);
                if (k->layout->source != c.f || ciot_layout_check(k->layout, c.rows, c.K) != CIOT_OK ||
                    ciot_kernel_missing(k, cpu) || (o->kernel_filter && !strstr(k->name, o->kernel_filter)))
                    continue;
                static const int gemm_batches[] = {1, MAX_BATCH};
                for (int bi = 0; bi < (k->op == CIOT_OP_GEMM ? 2 : 1); bi++)
                    check_kernel(&c, k, gemm_batches[bi], t->name, log) ? r->passed++ : r->failed++;
            }
    }
    fprintf(log, "  %-32s %-7s %6d x %-6d %d passed, %d failed\n", t->name, ciot_format_name(c.f), c.rows, c.K,
            r->passed - before_pass, r->failed - before_fail);
    for (int i = 0; i < c.npk; i++) free(c.pk[i].w);
    free(copy), free(c.x), free(c.want);
    return runnable;
}

/* Whether --tensors (re, when not NULL) takes tensor t, a ternary one of format *f. */
static int selected(const ciot_gguf_tensor *t, const ciot_os_regex *re, ciot_format *f) {
    return t->known && ciot_ggml_type_format(t->type, f) && (!re || ciot_os_regex_search(re, t->name));
}

/* Every selected 2-D tensor's block scales finite: a NaN or infinite one makes every output NaN, which
 * matches bit for bit whatever a kernel does, so such a file is refused before any kernel runs. */
static ciot_status check_scales(const ciot_gguf *g, const ciot_os_regex *re, char *why, size_t why_len) {
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) {
        const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g, i);
        ciot_format f;
        int rows, K;
        if (!selected(t, re, &f) || !ciot_gguf_tensor_matrix(t, &f, &rows, &K)) continue;
        void *copy;
        const void *src = aligned_bytes(t, &copy);
        char bad[128];
        const ciot_status s = !src ? CIOT_E_NOMEM : ciot_source_check_scales(f, src, rows, K, bad, sizeof bad);
        free(copy);
        if (s == CIOT_E_NOMEM) return ciot_error(s, why, why_len, "tensor '%s': out of memory", t->name);
        if (s != CIOT_OK)
            return ciot_error(s, why, why_len, "tensor '%s': %s, so its outputs cannot be checked", t->name, bad);
    }
    return CIOT_OK;
}

ciot_status ciot_gguf_check(const ciot_gguf *g, const ciot_gguf_check_opts *o, ciot_gguf_check_result *r, FILE *log,
                            char *why, size_t why_len) {
    memset(r, 0, sizeof *r);
    char msg[256];
    ciot_os_regex *sel = o->tensor_regex ? ciot_os_regex_compile(o->tensor_regex, msg, sizeof msg) : NULL;
    if (o->tensor_regex && !sel)
        return ciot_error(CIOT_E_ARG, why, why_len, "bad --tensors regex '%s': %s", o->tensor_regex, msg);
    ciot_status st = check_scales(g, sel, why, why_len);
    for (int i = 0; st == CIOT_OK && i < ciot_gguf_tensor_count(g); i++) {
        const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g, i);
        ciot_format f;
        if (!selected(t, sel, &f)) continue;
        if (check_tensor(t, i, o, r, log)) r->tensors_checked++;
        else {
            fprintf(log, "  %-32s %-7s skipped: no kernel this CPU runs takes it (%d-D, %llu x %llu)\n", t->name,
                    ciot_format_name(f), t->n_dims, (unsigned long long)(t->ne[1] * t->ne[2] * t->ne[3]),
                    (unsigned long long)t->ne[0]);
            r->tensors_skipped++;
        }
    }
    ciot_os_regex_free(sel);
    return st;
}
