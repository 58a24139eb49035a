/* embed's descriptor: one token_embd row in its type, dequantized to floats (kernels/ops.md). */
#include <stdio.h>
#include <string.h>
#include "fp16.h"
#include "kind_impl.h"
#include "splitmix64.h"

CIOT_KIND_FNS(embed)
CIOT_KIND_LOOP(embed, ref)

enum { EMBED_ROWS = 1 };    /* the embedding row a token reads (one row, not the table) */

static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_embed_args *)args = (ciot_embed_args){P, P, p[1], (ciot_embed_type)p[2]};
    need->act_floats = (size_t)p[1];
    need->param_bytes = ciot_size_mul(ciot_embed_row_bytes((ciot_embed_type)p[2], p[1]), EMBED_ROWS);
    /* an f16 / bf16 / quantized row of drawn bytes: its scales kept finite like the drawn floats */
    need->param_fp16 = (ciot_embed_type)p[2] != CIOT_EMBED_F32;
}

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_embed_args *a = args;
    a->row = m->params, a->out = m->c;
}

static const int pointers[] = {offsetof(ciot_embed_args, row), offsetof(ciot_embed_args, out), -1};

static void one(ciot_op_cases *c, ciot_embed_type t, int n, long values) {
    snprintf(c->label, sizeof c->label, "%s n=%d", ciot_embed_type_name(t), n);
    size_t rb = ciot_embed_row_bytes(t, n);
    size_t row = c->region(c, "row", rb, 0);
    const ciot_embed_args a = {.row = ciot_op_off(row), .out = ciot_op_off(c->region(c, "out", (size_t)n * 4, 0)),
                               .n = n, .type = t};
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    /* random bytes, with every fp16 or fp32 value finite: floats drawn as values, block scales redrawn */
    if (base && t == CIOT_EMBED_F32) ciot_op_draw_values((float *)(base + row), (size_t)n, &c->seed, CIOT_VAL_RANDOM, -1.0f, 1.0f);
    else if (base) {
        for (size_t i = 0; i < rb; i++) base[row + i] = (unsigned char)ciot_splitmix64(&c->seed);
        size_t bb = rb / ((size_t)n / ciot_embed_block_values(t)), scale_at = 0, step = bb;
        if (t == CIOT_EMBED_F16 || t == CIOT_EMBED_BF16) step = 2;
        else if (t == CIOT_EMBED_PTQ1_0) scale_at = 26;
        else if (t == CIOT_EMBED_TQ1_0) scale_at = bb - 2;
        else if (t == CIOT_EMBED_TQ2_0) scale_at = bb - 2;
        for (size_t o = scale_at; o + 2 <= rb; o += step) {
            float v = ciot_op_draw_uniform(&c->seed, -1.0f, 1.0f);
            uint16_t h = t == CIOT_EMBED_BF16 ? (uint16_t)(ciot_f32_bits(v) >> 16) : ciot_fp32_to_fp16(v);
            memcpy(base + row + o, &h, 2);
        }
    }
    c->finish(c, values);
}

/* every type at the hidden size, and one block */
static void cases(ciot_op_cases *c) {
    for (int t = CIOT_EMBED_F32; t <= CIOT_EMBED_TQ2_0; t++) {
        one(c, t, 5120, 5120);
        one(c, t, ciot_embed_block_values(t), 256);
    }
}

const ciot_token_kind ciot_kind_embed = {
    .name = "embed", .keys = {"rows", "n", "type"}, .type_key = 2, .mix = CIOT_MIX_READ, CIOT_KIND_COMMON,
    .run = {[CIOT_OPV_REF] = run_ref},
    .size = size, .bind = bind, .cases = cases,
};
