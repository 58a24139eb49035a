/* glu's descriptor, y = silu(gate) x up, the FFN's (kernels/ops.md), and add's, the residual y += x: the same
 * loops in their CIOT_GLU_ADD mode, so add's descriptor stands here and glu's oracle cases cover both. */
#include <stdio.h>
#include "kind_impl.h"

CIOT_KIND_FNS(glu)
CIOT_KIND_LOOPS_AVX2_NEON(glu)

static void size_mode(const int *p, void *args, ciot_token_need *need, ciot_glu_mode mode) {
    float *const P = ciot_kind_probe[0];
    *(ciot_glu_args *)args = (ciot_glu_args){P, P, P, p[0], mode};
    need->act_floats = (size_t)p[0];
}
static void size(const int *p, int capacity, void *args, ciot_token_need *need) { size_mode(p, args, need, CIOT_GLU_SILU); }
static void size_add(const int *p, int capacity, void *args, ciot_token_need *need) { size_mode(p, args, need, CIOT_GLU_ADD); }

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_glu_args *a = args;
    a->gate = m->a, a->up = m->b, a->y = m->c;
}

static const int pointers[] = {offsetof(ciot_glu_args, gate), offsetof(ciot_glu_args, up), offsetof(ciot_glu_args, y),
                               -1};

static void one(ciot_op_cases *c, int n, ciot_glu_mode mode, ciot_val_pattern p) {
    snprintf(c->label, sizeof c->label, "n=%d %s %s", n, mode == CIOT_GLU_ADD ? "add" : "silu",
             ciot_val_pattern_name(p));
    size_t b = (size_t)n * 4;
    const size_t gate = c->region(c, "gate", b, 0), up = c->region(c, "up", b, 0), y = c->region(c, "y", b, 0);
    const ciot_glu_args a = {.gate = ciot_op_off(gate), .up = ciot_op_off(up), .y = ciot_op_off(y), .n = n,
                             .mode = mode};
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base) {
        ciot_op_draw_values((float *)(base + gate), (size_t)n, &c->seed, p, -8.0f, 8.0f);
        ciot_op_draw_values((float *)(base + up), (size_t)n, &c->seed, CIOT_VAL_RANDOM, -2.0f, 2.0f);
        /* y: the residual of the add; overwritten by silu */
        ciot_op_draw_values((float *)(base + y), (size_t)n, &c->seed, CIOT_VAL_RANDOM, -2.0f, 2.0f);
    }
    c->finish(c, n);
}

/* the FFN, a residual add, odd lengths (tails) */
static void cases(ciot_op_cases *c) {
    for (int p = 0; p < CIOT_VAL_COUNT; p++) {
        one(c, 17408, CIOT_GLU_SILU, p);
        one(c, 77, CIOT_GLU_SILU, p);
        one(c, 5120, CIOT_GLU_ADD, p);
        one(c, 13, CIOT_GLU_ADD, p);
    }
}

const ciot_token_kind ciot_kind_glu = {
    .name = "glu", .keys = {"n"}, .type_key = -1, .mix = CIOT_MIX_READ, CIOT_KIND_COMMON,
    .run = CIOT_KIND_RUN_AVX2_NEON,
    .size = size, .bind = bind, .cases = cases,
};

const ciot_token_kind ciot_kind_add = {
    .name = "add", .keys = {"n"}, .type_key = -1, .mix = CIOT_MIX_READ, CIOT_KIND_COMMON,
    .run = CIOT_KIND_RUN_AVX2_NEON,
    .size = size_add, .bind = bind,
};
