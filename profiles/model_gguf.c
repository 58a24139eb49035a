/* A model from a GGUF file: its 2-D ternary tensors as the ops of one decoded token, in block order, with
 * the fuse groups a runtime would run as one matvec, and an op list written back out (--dump-ops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gguf.h"
#include "model.h"
#include "os.h"
#include "output.h"

/* The block of a tensor name "blk.N....", -1 for tensors outside the blocks. */
static long block_of(const char *name) {
    if (strncmp(name, "blk.", 4)) return -1;
    char *end;
    const long b = strtol(name + 4, &end, 10);
    return end != name + 4 && *end == '.' && b >= 0 ? b : -1;
}

/* The fuse family of a kind (1: q, k, v; 2: gate, up; 0: none) and its place in the family. */
static int family_of(const char *kind, int *sub) {
    static const char *const qkv[] = {"attn_q", "attn_k", "attn_v"}, *const gate_up[] = {"ffn_gate", "ffn_up"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(kind, qkv[i])) return *sub = i, 1;
    for (int i = 0; i < 2; i++)
        if (!strcmp(kind, gate_up[i])) return *sub = i, 2;
    return *sub = 0, 0;
}

typedef struct {
    const ciot_gguf_tensor *t;
    long block;                 /* -1: outside the blocks */
    int family, sub, index;     /* file index of the tensor */
    int anchor;                 /* where it sorts: its own index, or the first index of its family in its block */
    int output;                 /* the output projection: last of all */
    int rows, K;
    ciot_format f;
} entry;

/* Block order (the tensors outside any block after the blocks, the output projection last), file order
 * inside a block, except that a fuse family sits together at its first member's place, in q k v / gate up
 * order. */
static int cmp_entry(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->output != y->output) return x->output - y->output;
    const long long bx = x->block < 0 ? 1LL << 40 : x->block, by = y->block < 0 ? 1LL << 40 : y->block;
    if (bx != by) return bx < by ? -1 : 1;
    if (x->anchor != y->anchor) return x->anchor - y->anchor;
    if (x->sub != y->sub) return x->sub - y->sub;
    return x->index - y->index;
}

static void note(ciot_model *m, const char *fmt, const char *what) {
    const size_t n = strlen(m->left_out);
    snprintf(m->left_out + n, sizeof m->left_out - n, "%s", n ? "; " : "");
    const size_t k = strlen(m->left_out);
    snprintf(m->left_out + k, sizeof m->left_out - k, fmt, what);
}

/* The op's name: the tensor's without ".weight"; its kind is the part after the last '.'. */
static void op_name(const char *tensor, char *out, size_t len) {
    const size_t n = strlen(tensor);
    const int strip = n > 7 && !strcmp(tensor + n - 7, ".weight");
    snprintf(out, len, "%.*s", (int)(strip ? n - 7 : n), tensor);
}

ciot_status ciot_model_from_gguf(ciot_gguf *g, const char *path, ciot_model *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    m->gguf = g;
    snprintf(m->path, sizeof m->path, "%s", path);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(m->name, sizeof m->name, "%.*s", (int)(strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".gguf")
                                                        ? strlen(base) - 5 : strlen(base)), base);
    const int n = ciot_gguf_tensor_count(g);
    entry *e = calloc((size_t)(n ? n : 1), sizeof *e);
    if (!e) {
        ciot_model_free(m);
        return ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", path);
    }
    int ne = 0, other = 0, has_output = 0, ternary_3d = 0;
    for (int i = 0; i < n; i++) {
        const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g, i);
        char name[CIOT_OP_NAME_MAX + 8];
        ciot_format f;
        op_name(t->name, name, sizeof name);
        const char *kind = ciot_op_kind(name);
        if (!strcmp(kind, "token_embd")) {
            note(m, "%s: the embedding, a row lookup and not a matvec", t->name);
            continue;
        }
        if (!ciot_ggml_type_format(t->type, &f)) {
            other += t->n_dims == 2;
            continue;
        }
        int rows, K;
        if (!ciot_gguf_tensor_matrix(t, &f, &rows, &K)) {
            ternary_3d++;
            continue;
        }
        if (strlen(name) >= CIOT_OP_NAME_MAX) {
            free(e);
            ciot_model_free(m);
            return ciot_error(CIOT_E_ARG, err, errlen, "%s: tensor name '%.40s...' is longer than %d characters", path,
                              t->name, CIOT_OP_NAME_MAX - 1 + 7);
        }
        int sub;
        const int family = family_of(kind, &sub);
        has_output |= !strcmp(name, "output");
        e[ne++] = (entry){t, block_of(t->name), family, sub, i, i, !strcmp(name, "output"), rows, K, f};
    }
    /* a family member sorts at the first index of its family in its block */
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++)
            if (e[i].family && e[j].family == e[i].family && e[j].block == e[i].block && e[i].block >= 0 &&
                e[j].index < e[i].anchor)
                e[i].anchor = e[j].index;
    if (!has_output) note(m, "%s", "no output.weight: the LM head is the tied embedding, not replayed");
    char count[64];
    if (ternary_3d) snprintf(count, sizeof count, "%d", ternary_3d), note(m, "%s ternary tensors of 3 or 4 dimensions", count);
    if (other) snprintf(count, sizeof count, "%d", other), note(m, "%s 2-D tensors of other types (not ternary)", count);
    if (!ne) {
        free(e);
        ciot_model_free(m);
        return ciot_error(CIOT_E_ARG, err, errlen, "%s: no 2-D ternary tensor to replay (%s)", path,
                          m->left_out[0] ? m->left_out : "none of its tensors is ternary");
    }
    qsort(e, (size_t)ne, sizeof *e, cmp_entry);
    m->ops = calloc((size_t)ne, sizeof *m->ops);
    if (!m->ops) {
        free(e);
        ciot_model_free(m);
        return ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", path);
    }
    for (int i = 0; i < ne; i++) {
        ciot_model_op *op = &m->ops[m->n_ops++];
        op_name(e[i].t->name, op->name, sizeof op->name);
        op->rows = e[i].rows, op->K = e[i].K, op->line = e[i].index + 1, op->fuse = -1;
        op->format = (int)e[i].f, op->data = e[i].t->data, op->data_bytes = e[i].t->bytes;
        op->lm_head = !strcmp(op->name, "output");
        /* a fuse run: q+k+v or gate+up of one block, consecutive, with the same K and format */
        const ciot_model_op *prev = i ? &m->ops[i - 1] : NULL;
        const int joins = prev && e[i].family && e[i].family == e[i - 1].family && e[i].block >= 0 &&
                          e[i].block == e[i - 1].block && e[i].sub == e[i - 1].sub + 1 && prev->K == op->K &&
                          prev->format == op->format;
        if (joins) op->fuse = prev->fuse >= 0 ? prev->fuse : (((ciot_model_op *)prev)->fuse = m->n_fuse++);
    }
    free(e);
    const ciot_status st = ciot_model_gguf_token(m, err, errlen);
    if (st != CIOT_OK) ciot_model_free(m);
    return st;
}

ciot_status ciot_model_write_ops(const ciot_model *m, int n_ops, const char *path, char *why, size_t why_len) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = ciot_os_memstream_open(&text, &len);
    if (!f) return ciot_error(CIOT_E_NOMEM, why, why_len, "%s: out of memory", path);
    fprintf(f, "# %s: %d ops of one decoded token (ciot replay --dump-ops); name rows K [lm_head] [fuse=GROUP]\n",
            m->path, n_ops);
    if (m->left_out[0]) fprintf(f, "# left out: %s\n", m->left_out);
    for (int i = 0; i < n_ops && i < m->n_ops; i++) {
        const ciot_model_op *op = &m->ops[i];
        fprintf(f, "%s %d %d", op->name, op->rows, op->K);
        if (op->lm_head) fprintf(f, " lm_head");
        if (op->fuse >= 0) fprintf(f, " fuse=g%d", op->fuse);
        if (op->format >= 0) fprintf(f, "  # %s", ciot_format_name((ciot_format)op->format));
        fprintf(f, "\n");
    }
    if (ciot_os_memstream_close(f, &text, &len) != 0) {
        free(text);
        return ciot_error(CIOT_E_NOMEM, why, why_len, "%s: out of memory", path);
    }
    const ciot_status st = ciot_write_atomic(path, text, len, why, why_len);
    free(text);
    return st;
}
