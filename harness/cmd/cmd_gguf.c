/* ciot gguf FILE [--json F]: what a GGUF file holds and what this build can run on it: the architecture
 * and main dimensions from the metadata, every tensor (name, type, rows x K, bytes, the layouts that can
 * take it), per layout the kernels of this build and whether this CPU runs them, and ternary totals.
 * A malformed file: one line naming what is wrong, exit 2. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "cpu.h"
#include "distinct_paths.h"
#include "gguf.h"
#include "json.h"
#include "opts.h"
#include "output.h"
#include "registry.h"


/* Main dimensions: label and "<arch>." key suffix. */
static const struct {
    const char *label, *suffix;
} dims[] = {
    {"blocks", "block_count"},          {"embedding", "embedding_length"}, {"feed-forward", "feed_forward_length"},
    {"heads", "attention.head_count"},  {"kv heads", "attention.head_count_kv"},
    {"context", "context_length"},      {"vocab", "vocab_size"},
};
enum { N_DIMS = sizeof dims / sizeof dims[0] };

enum { MAX_LAYOUTS = 64 };

/* The layouts of this build that take tensor t (a 2-D ternary matrix of a shape they accept). */
static int layouts_for(const ciot_gguf_tensor *t, const ciot_layout *out[MAX_LAYOUTS]) {
    ciot_format f;
    int rows, K, n = 0;
    if (!ciot_gguf_tensor_matrix(t, &f, &rows, &K)) return 0;
    for (int i = 0; i < ciot_layout_count() && n < MAX_LAYOUTS; i++) {
        const ciot_layout *l = ciot_layout_at(i);
        if (l->source == f && ciot_layout_check(l, rows, K) == CIOT_OK) out[n++] = l;
    }
    return n;
}

static const char *type_label(uint32_t type, char *buf, size_t len) {
    const char *name = ciot_ggml_type_name(type);
    if (name) return name;
    snprintf(buf, len, "type %u", type);
    return buf;
}

static uint64_t rows_of(const ciot_gguf_tensor *t) { return t->ne[1] * t->ne[2] * t->ne[3]; }

static void print_tensor(const ciot_gguf_tensor *t, int name_w) {
    char tb[32], sb[48], bb[32];
    snprintf(sb, sizeof sb, "%llu x %llu", (unsigned long long)rows_of(t), (unsigned long long)t->ne[0]);
    if (t->known) snprintf(bb, sizeof bb, "%llu", (unsigned long long)t->bytes);
    else snprintf(bb, sizeof bb, "?");
    printf("  %-*s %-7s %13s %10s  ", name_w, t->name, type_label(t->type, tb, sizeof tb), sb, bb);
    const ciot_layout *ls[MAX_LAYOUTS];
    ciot_format f;
    const int n = layouts_for(t, ls);
    if (!t->known) printf("unsupported type");
    else if (!ciot_ggml_type_format(t->type, &f)) printf("-");
    else if (t->ne[2] != 1 || t->ne[3] != 1) printf("no layout: %d-D", t->n_dims);
    else if (!n) printf("no layout takes this shape");
    else
        for (int i = 0; i < n; i++) printf("%s%s", i ? " " : "", ls[i]->name);
    printf("\n");
}

/* Kernels per layout that some tensor of the file can use. */
static void print_kernels(const ciot_gguf *g, unsigned cpu) {
    int used[MAX_LAYOUTS] = {0};
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) {
        const ciot_layout *ls[MAX_LAYOUTS];
        const int n = layouts_for(ciot_gguf_tensor_at(g, i), ls);
        for (int j = 0; j < n; j++)
            for (int li = 0; li < ciot_layout_count() && li < MAX_LAYOUTS; li++) used[li] |= ciot_layout_at(li) == ls[j];
    }
    printf("\nkernels of this build per layout (a kernel this CPU cannot run says what it needs):\n");
    for (int li = 0; li < ciot_layout_count() && li < MAX_LAYOUTS; li++) {
        if (!used[li]) continue;
        const ciot_layout *l = ciot_layout_at(li);
        printf("  %-8s (from %s):", l->name, ciot_format_name(l->source));
        for (int i = 0; i < ciot_kernel_count(); i++) {
            const ciot_kernel *k = ciot_kernel_at(i);
            if (k->layout != l) continue;
            const unsigned missing = ciot_kernel_missing(k, cpu);
            char buf[128];
            if (missing) printf(" %s (needs %s)", k->name, ciot_feature_list(missing, buf, sizeof buf));
            else printf(" %s", k->name);
        }
        printf("\n");
    }
}

typedef struct {
    int tensors;
    uint64_t weights, bytes;
} totals;

/* Ternary totals per format (index = ciot_format) and over all tensors. */
static void count(const ciot_gguf *g, totals per[4], totals *all, totals *ternary) {
    memset(per, 0, 4 * sizeof *per);
    memset(all, 0, sizeof *all);
    memset(ternary, 0, sizeof *ternary);
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) {
        const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g, i);
        ciot_format f;
        all->tensors++, all->weights += t->elements, all->bytes += t->bytes;
        if (!t->known || !ciot_ggml_type_format(t->type, &f)) continue;
        per[f].tensors++, per[f].weights += t->elements, per[f].bytes += t->bytes;
        ternary->tensors++, ternary->weights += t->elements, ternary->bytes += t->bytes;
    }
}

static void print_text(const char *path, const ciot_gguf *g, unsigned cpu) {
    const char *arch = NULL, *name = NULL;
    ciot_gguf_get_str(g, "general.architecture", &arch);
    ciot_gguf_get_str(g, "general.name", &name);
    printf("%s: GGUF v%u, %d tensors, %d metadata keys, alignment %llu, data at byte %llu of %zu\n", path,
           ciot_gguf_version(g), ciot_gguf_tensor_count(g), ciot_gguf_kv_count(g),
           (unsigned long long)ciot_gguf_alignment(g), (unsigned long long)ciot_gguf_data_offset(g), ciot_gguf_size(g));
    printf("architecture %s", arch ? arch : "(none)");
    if (name) printf(" (%s)", name);
    for (int i = 0; i < N_DIMS; i++) {
        int64_t v;
        if (ciot_gguf_get_arch_int(g, dims[i].suffix, &v) == CIOT_OK) printf(", %s %lld", dims[i].label, (long long)v);
    }
    printf("\n\n");
    int name_w = 4;
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) {
        const int n = (int)strlen(ciot_gguf_tensor_at(g, i)->name);
        if (n > name_w) name_w = n < 48 ? n : 48;
    }
    printf("  %-*s %-7s %13s %10s  %s\n", name_w, "name", "type", "rows x K", "bytes", "layouts");
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) print_tensor(ciot_gguf_tensor_at(g, i), name_w);
    print_kernels(g, cpu);
    totals per[4], all, ter;
    count(g, per, &all, &ter);
    char b1[32];
    printf("\nternary: %d tensors, %llu weights, %s", ter.tensors, (unsigned long long)ter.weights,
           ciot_format_bytes((size_t)ter.bytes, b1, sizeof b1));
    if (ter.weights) printf(" (%.3f bits per weight)", 8.0 * (double)ter.bytes / (double)ter.weights);
    printf("\n");
    for (int f = 0; f < 4; f++)
        if (per[f].tensors)
            printf("  %-7s %d tensors, %llu weights, %s\n", ciot_format_name((ciot_format)f), per[f].tensors,
                   (unsigned long long)per[f].weights, ciot_format_bytes((size_t)per[f].bytes, b1, sizeof b1));
    printf("all tensors: %d, %s of known size\n", all.tensors, ciot_format_bytes((size_t)all.bytes, b1, sizeof b1));
}

static void json_kv(ciot_json *j, const ciot_gguf_kv *kv) {
    ciot_json_key(j, kv->key);
    switch (kv->type) {
    case CIOT_GGUF_STRING: ciot_json_string(j, kv->str); break;
    case CIOT_GGUF_BOOL: ciot_json_bool(j, kv->u != 0); break;
    case CIOT_GGUF_F32: case CIOT_GGUF_F64: ciot_json_number(j, kv->f); break;
    case CIOT_GGUF_U64: ciot_json_number(j, (double)kv->u); break;
    case CIOT_GGUF_ARRAY:
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "array_of", kv->elem_type == CIOT_GGUF_STRING ? "string" : "number");
        ciot_json_kv_int(j, "count", (long long)kv->count);
        ciot_json_end_object(j);
        break;
    default: ciot_json_int(j, kv->i); break;
    }
}

static void json_tensor(ciot_json *j, const ciot_gguf_tensor *t, unsigned cpu) {
    char tb[32];
    ciot_format f;
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "name", t->name);
    ciot_json_kv_string(j, "type", type_label(t->type, tb, sizeof tb));
    ciot_json_kv_int(j, "type_id", t->type);
    ciot_json_kv_bool(j, "known_type", t->known);
    ciot_json_kv_bool(j, "ternary", t->known && ciot_ggml_type_format(t->type, &f));
    ciot_json_key(j, "ne");
    ciot_json_begin_array(j);
    for (int d = 0; d < t->n_dims; d++) ciot_json_number(j, (double)t->ne[d]);
    ciot_json_end_array(j);
    ciot_json_kv_number(j, "rows", (double)rows_of(t));
    ciot_json_kv_number(j, "K", (double)t->ne[0]);
    ciot_json_kv_number(j, "offset", (double)t->offset);
    if (t->known) ciot_json_kv_number(j, "bytes", (double)t->bytes);
    else {
        ciot_json_key(j, "bytes");
        ciot_json_null(j);
    }
    const ciot_layout *ls[MAX_LAYOUTS];
    const int n = layouts_for(t, ls);
    ciot_json_key(j, "layouts");
    ciot_json_begin_array(j);
    for (int i = 0; i < n; i++) ciot_json_string(j, ls[i]->name);
    ciot_json_end_array(j);
    ciot_json_key(j, "kernels");
    ciot_json_begin_array(j);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ciot_kernel_count(); k++) {
            const ciot_kernel *kk = ciot_kernel_at(k);
            if (kk->layout != ls[i]) continue;
            const unsigned missing = ciot_kernel_missing(kk, cpu);
            char buf[128];
            ciot_json_begin_object(j);
            ciot_json_kv_string(j, "name", kk->name);
            ciot_json_kv_string(j, "layout", ls[i]->name);
            ciot_json_kv_string(j, "op", kk->op == CIOT_OP_GEMV ? "gemv" : "gemm");
            ciot_json_kv_bool(j, "available", !missing);
            if (missing) ciot_json_kv_string(j, "needs", ciot_feature_list(missing, buf, sizeof buf));
            ciot_json_end_object(j);
        }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

static void json_totals(ciot_json *j, const char *key, const totals *t) {
    ciot_json_key(j, key);
    ciot_json_begin_object(j);
    ciot_json_kv_int(j, "tensors", t->tensors);
    ciot_json_kv_number(j, "weights", (double)t->weights);
    ciot_json_kv_number(j, "bytes", (double)t->bytes);
    ciot_json_end_object(j);
}

/* The document through ciot_json (harness/io/output.h): the output was checked before the file was read. */
static ciot_status write_json(const char *out, const char *path, const ciot_gguf *g, unsigned cpu, char *why,
                              size_t why_len) {
    ciot_json *j;
    ciot_status s = ciot_json_create(out, &j, why, why_len);
    if (s != CIOT_OK) return s;
    const char *arch = NULL;
    ciot_gguf_get_str(g, "general.architecture", &arch);
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "file", path);
    ciot_json_kv_int(j, "version", ciot_gguf_version(g));
    ciot_json_kv_int(j, "alignment", (long long)ciot_gguf_alignment(g));
    ciot_json_kv_number(j, "data_offset", (double)ciot_gguf_data_offset(g));
    ciot_json_kv_number(j, "file_bytes", (double)ciot_gguf_size(g));
    ciot_json_kv_string(j, "architecture", arch);
    for (int i = 0; i < N_DIMS; i++) {
        int64_t v;
        if (ciot_gguf_get_arch_int(g, dims[i].suffix, &v) == CIOT_OK) ciot_json_kv_int(j, dims[i].suffix, v);
    }
    ciot_json_key(j, "metadata");
    ciot_json_begin_object(j);
    for (int i = 0; i < ciot_gguf_kv_count(g); i++) json_kv(j, ciot_gguf_kv_at(g, i));
    ciot_json_end_object(j);
    ciot_json_key(j, "tensors");
    ciot_json_begin_array(j);
    for (int i = 0; i < ciot_gguf_tensor_count(g); i++) json_tensor(j, ciot_gguf_tensor_at(g, i), cpu);
    ciot_json_end_array(j);
    totals per[4], all, ter;
    count(g, per, &all, &ter);
    ciot_json_key(j, "totals");
    ciot_json_begin_object(j);
    json_totals(j, "all", &all);
    json_totals(j, "ternary", &ter);
    for (int f = 0; f < 4; f++)
        if (per[f].tensors) json_totals(j, ciot_format_name((ciot_format)f), &per[f]);
    ciot_json_end_object(j);
    ciot_json_end_object(j);
    return ciot_json_commit(j, why, why_len);
}

int ciot_cmd_gguf(int argc, char **argv) {
    const char *json = NULL;
    const ciot_opt opts[] = {
        {"--json", CIOT_OPT_STRING, &json, 0, 0, NULL, "F", "also write everything as JSON", NULL},
    };
    const ciot_cmdline c = {"gguf", "FILE [--json F]",
                            "Lists a GGUF file's metadata summary and tensors, the layouts and kernels that can\n"
                            "take each ternary tensor (rows x K from ne[1] x ne[0]), and the ternary totals.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 1};
    char *rest[2] = {NULL, NULL};
    int n_rest = 0;
    int rc = ciot_opts_parse(&c, argc, argv, rest, &n_rest);
    if (rc >= 0) return rc;
    if (n_rest != 1) return ciot_opts_fail(&c, "which file? (a GGUF FILE is required)");
    const char *path = rest[0];
    const ciot_named_path files[] = {{"the GGUF file", path, CIOT_PATH_INPUT, NULL}, {"--json", json, CIOT_PATH_OUTPUT, NULL}};
    if ((rc = ciot_distinct_paths("gguf", files, 2)) >= 0) return rc;
    char why[CIOT_WHY_MAX];
    if (json && ciot_output_check(json, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot gguf: --json %s\n", why);
        return 2;
    }
    ciot_gguf *g;
    const ciot_status s = ciot_gguf_open(path, &g, why, sizeof why);
    if (s != CIOT_OK) {
        ciot_say("gguf", "%s: %s", path, why);
        return s == CIOT_E_NOMEM ? 1 : 2;
    }
    const unsigned cpu = ciot_cpu_features();
    print_text(path, g, cpu);
    int code = 0;
    if (json && write_json(json, path, g, cpu, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot gguf: --json %s\n", why);
        code = 1;
    }
    ciot_gguf_close(g);
    return code;
}
