/* A GGUF model's whole token from its metadata: the sizes of its attention (<arch>.attention.*) and, for
 * hybrid models, of its recurrent state (<arch>.ssm.*), with the ops between the matvecs placed around
 * each block's matvecs as the op lists of profiles/ place them. A file whose metadata does not describe
 * them keeps its matvecs only, and m->token_note says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gguf.h"
#include "model.h"
#include "token_ops.h"

typedef struct {
    int blocks, hidden, q_heads, kv_heads, head_dim, rot;
    int ssm;                        /* 1: k_heads, v_heads, ssm_dim, conv come from ssm.* */
    int k_heads, v_heads, ssm_dim, conv;
} arch;

static int get(const ciot_gguf *g, const char *suffix, int64_t lo, int *out) {
    int64_t v;
    if (ciot_gguf_get_arch_int(g, suffix, &v) != CIOT_OK || v < lo || v > (1 << 30)) return 0;
    *out = (int)v;
    return 1;
}

/* "blk.N." of op i, -1 outside the blocks. */
static long block_of(const char *name) {
    if (strncmp(name, "blk.", 4)) return -1;
    char *end;
    const long b = strtol(name + 4, &end, 10);
    return end != name + 4 && *end == '.' ? b : -1;
}

static int is_ssm_block(const ciot_model *m, long b) {
    for (int i = 0; i < m->n_ops; i++)
        if (block_of(m->ops[i].name) == b) {
            const char *k = ciot_op_kind(m->ops[i].name);
            if (!strcmp(k, "attn_qkv") || !strncmp(k, "ssm_", 4)) return 1;
        }
    return 0;
}

static int note(ciot_model *m, const char *what) {
    snprintf(m->token_note, sizeof m->token_note, "the file's metadata does not describe its %s", what);
    return 0;
}

/* The sizes, or 0 with the note. */
static int read_arch(const ciot_gguf *g, ciot_model *m, arch *a) {
    memset(a, 0, sizeof *a);
    const char *name;
    if (ciot_gguf_get_str(g, "general.architecture", &name) != CIOT_OK) return note(m, "architecture (general.architecture)");
    if (!get(g, "block_count", 1, &a->blocks) || !get(g, "embedding_length", 16, &a->hidden))
        return note(m, "blocks (block_count, embedding_length)");
    if (!get(g, "attention.head_count", 1, &a->q_heads) || !get(g, "attention.head_count_kv", 1, &a->kv_heads))
        return note(m, "attention (attention.head_count, attention.head_count_kv)");
    if (!get(g, "attention.key_length", 1, &a->head_dim)) a->head_dim = a->hidden / a->q_heads;
    int v;
    if (get(g, "attention.value_length", 1, &v) && v != a->head_dim)
        return note(m, "attention the ops take (value_length differs from key_length)");
    if (!get(g, "rope.dimension_count", 2, &a->rot)) a->rot = a->head_dim;
    int any_ssm = 0;
    for (long b = 0; b < a->blocks; b++) any_ssm |= is_ssm_block(m, b);
    if (any_ssm) {
        if (!get(g, "ssm.group_count", 1, &a->k_heads) || !get(g, "ssm.time_step_rank", 1, &a->v_heads) ||
            !get(g, "ssm.state_size", 1, &a->ssm_dim) || !get(g, "ssm.conv_kernel", 1, &a->conv))
            return note(m, "recurrent state (ssm.group_count, ssm.time_step_rank, ssm.state_size, ssm.conv_kernel)");
        a->ssm = 1;
    }
    return 1;
}

typedef struct {
    ciot_token_step *t;
    int n, cap, ok;
} seq;

static void push(seq *s, ciot_step_kind k, const char *name, int p0, int p1, int p2, int p3) {
    if (!s->ok) return;
    if (s->n == s->cap) {
        const int cap = s->cap ? 2 * s->cap : 256;
        ciot_token_step *grown = realloc(s->t, (size_t)cap * sizeof *grown);
        if (!grown) {
            s->ok = 0;
            return;
        }
        s->t = grown, s->cap = cap;
    }
    ciot_token_step *t = &s->t[s->n++];
    *t = (ciot_token_step){.kind = k, .op = -1, .p = {p0, p1, p2, p3}};
    snprintf(t->name, sizeof t->name, "%s", name);
}

static void push_matvec(seq *s, const ciot_model *m, int i) {
    push(s, CIOT_STEP_MATVEC, m->ops[i].name, 0, 0, 0, 0);
    if (s->ok) s->t[s->n - 1].op = i, s->t[s->n - 1].line = m->ops[i].line;
}

/* Where a matvec of a block sits: before the mixer (0), after it (1: attn_output, ssm_out), the FFN's
 * gate and up (2), its down projection (3). */
static int place_of(const char *kind) {
    if (!strcmp(kind, "attn_output") || !strcmp(kind, "ssm_out")) return 1;
    if (!strncmp(kind, "ffn_down", 8)) return 3;
    if (!strncmp(kind, "ffn_", 4)) return 2;
    return 0;
}

static int has_tensor(const ciot_model *m, long b, const char *kind) {
    char name[96];
    snprintf(name, sizeof name, "blk.%ld.%s.weight", b, kind);
    return ciot_gguf_find_tensor(m->gguf, name) != NULL;
}

/* The embedding's type as the embed op reads it, -1 for none. */
static int embed_type(uint32_t ggml) {
    static const struct { uint32_t ggml; ciot_embed_type t; } map[] = {
        {CIOT_GGML_F32, CIOT_EMBED_F32}, {CIOT_GGML_F16, CIOT_EMBED_F16}, {30, CIOT_EMBED_BF16},
        {8, CIOT_EMBED_Q8_0}, {CIOT_GGML_PQ2_0, CIOT_EMBED_PQ2_0}, {CIOT_GGML_PTQ1_0, CIOT_EMBED_PTQ1_0},
        {CIOT_GGML_TQ1_0, CIOT_EMBED_TQ1_0}, {CIOT_GGML_TQ2_0, CIOT_EMBED_TQ2_0}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].ggml == ggml) return (int)map[i].t;
    return -1;
}

ciot_status ciot_model_gguf_token(ciot_model *m, char *err, size_t errlen) {
    arch a;
    if (!m->gguf || !read_arch(m->gguf, m, &a)) return CIOT_OK;
    seq s = {NULL, 0, 0, 1};
    char name[CIOT_OP_NAME_MAX];
    const ciot_gguf_tensor *emb = ciot_gguf_find_tensor(m->gguf, "token_embd.weight");
    if (emb && emb->n_dims == 2 && embed_type(emb->type) >= 0 && emb->ne[1] <= (1u << 30))
        push(&s, CIOT_STEP_EMBED, "token_embd", (int)emb->ne[1], a.hidden, embed_type(emb->type), 0);
    int i = 0, lm_head = -1;
    for (long b = 0; b < a.blocks; b++) {
        const int first = i;
        while (i < m->n_ops && block_of(m->ops[i].name) == b) i++;
        const int ssm = is_ssm_block(m, b);
        int ffn = 0;
        for (int j = first; j < i; j++)
            if (!strcmp(ciot_op_kind(m->ops[j].name), "ffn_gate")) ffn = m->ops[j].rows;
#define NAME(kind) (snprintf(name, sizeof name, "blk.%ld.%s", b, kind), name)
        push(&s, CIOT_STEP_RMSNORM, NAME("attn_norm"), 1, a.hidden, 0, 0);
        for (int j = first; j < i; j++)
            if (place_of(ciot_op_kind(m->ops[j].name)) == 0) push_matvec(&s, m, j);
        if (ssm) {
            push(&s, CIOT_STEP_DELTANET, NAME("deltanet"), a.k_heads, a.v_heads, a.ssm_dim, a.conv);
            push(&s, CIOT_STEP_RMSNORM, NAME("ssm_norm"), a.v_heads, a.ssm_dim, 0, 0);
            push(&s, CIOT_STEP_GLU, NAME("ssm_gate"), a.v_heads * a.ssm_dim, 0, 0, 0);
        } else {
            if (has_tensor(m, b, "attn_q_norm")) push(&s, CIOT_STEP_RMSNORM, NAME("attn_q_norm"), a.q_heads, a.head_dim, 0, 0);
            if (has_tensor(m, b, "attn_k_norm")) push(&s, CIOT_STEP_RMSNORM, NAME("attn_k_norm"), a.kv_heads, a.head_dim, 0, 0);
            push(&s, CIOT_STEP_ROPE, NAME("rope"), a.q_heads, a.kv_heads, a.head_dim, a.rot);
            push(&s, CIOT_STEP_ATTENTION, NAME("attention"), a.q_heads, a.kv_heads, a.head_dim, 0);
        }
        for (int j = first; j < i; j++)
            if (place_of(ciot_op_kind(m->ops[j].name)) == 1) push_matvec(&s, m, j);
        push(&s, CIOT_STEP_ADD, NAME("attn_residual"), a.hidden, 0, 0, 0);
        push(&s, CIOT_STEP_RMSNORM, NAME("ffn_norm"), 1, a.hidden, 0, 0);
        for (int j = first; j < i; j++)
            if (place_of(ciot_op_kind(m->ops[j].name)) == 2) push_matvec(&s, m, j);
        if (ffn) push(&s, CIOT_STEP_GLU, NAME("ffn_glu"), ffn, 0, 0, 0);
        for (int j = first; j < i; j++)
            if (place_of(ciot_op_kind(m->ops[j].name)) == 3) push_matvec(&s, m, j);
        push(&s, CIOT_STEP_ADD, NAME("ffn_residual"), a.hidden, 0, 0, 0);
#undef NAME
    }
    push(&s, CIOT_STEP_RMSNORM, "output_norm", 1, a.hidden, 0, 0);
    for (; i < m->n_ops; i++) {
        push_matvec(&s, m, i);
        if (m->ops[i].lm_head) lm_head = m->ops[i].rows;
    }
    if (lm_head > 0) push(&s, CIOT_STEP_ARGMAX, "argmax", lm_head, 0, 0, 0);
    if (a.ssm) push(&s, CIOT_STEP_STATE_COPY, "state_copy", 1, 0, 0, 0);
    if (!s.ok) {
        free(s.t);
        return ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", m->path);
    }
    /* every matvec once: a tensor this walk does not place would go unreplayed */
    int matvecs = 0;
    for (int k = 0; k < s.n; k++) matvecs += s.t[k].kind == CIOT_STEP_MATVEC;
    if (matvecs != m->n_ops) {
        free(s.t);
        snprintf(m->token_note, sizeof m->token_note, "its matvecs are not in the blocks of a decoder");
        return CIOT_OK;
    }
    m->token = s.t, m->n_token = s.n;
    return CIOT_OK;
}
