/* rmsnorm's descriptor: rows vectors of n normed by a weight vector (kernels/ops.md). */
#include <stdio.h>
#include "kind_impl.h"

CIOT_KIND_FNS(rmsnorm)
CIOT_KIND_LOOPS_AVX2_NEON(rmsnorm)

static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_rmsnorm_args *)args = (ciot_rmsnorm_args){P, P, P, p[0], p[1], 0, 1e-6f};
    need->act_floats = ciot_size_mul((size_t)p[0], (size_t)p[1]);
    need->param_bytes = (size_t)p[1] * sizeof(float);
}

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_rmsnorm_args *a = args;
    a->x = m->a, a->w = (const float *)m->params, a->y = m->c;
}

static const int pointers[] = {offsetof(ciot_rmsnorm_args, x), offsetof(ciot_rmsnorm_args, w),
                               offsetof(ciot_rmsnorm_args, y), -1};

static void one(ciot_op_cases *c, int rows, int n, int stride, ciot_val_pattern p, long values) {
    int st = stride ? stride : n;
    snprintf(c->label, sizeof c->label, "rows=%d n=%d stride=%d %s", rows, n, stride, ciot_val_pattern_name(p));
    size_t xb = ((size_t)(rows - 1) * st + n) * sizeof(float);
    const size_t x = c->region(c, "x", xb, 0), w = c->region(c, "w", (size_t)n * 4, 0);
    const ciot_rmsnorm_args a = {.x = ciot_op_off(x), .w = ciot_op_off(w), .y = ciot_op_off(c->region(c, "y", xb, 0)),
                                 .rows = rows, .n = n, .stride = stride, .eps = 1e-6f};
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base) {
        ciot_op_draw_values((float *)(base + x), xb / 4, &c->seed, p, -2.0f, 2.0f);
        ciot_op_draw_values((float *)(base + w), (size_t)n, &c->seed, CIOT_VAL_RANDOM, 0.5f, 1.5f);
    }
    c->finish(c, values);
}

/* the hidden state, the per-head q norms inside an interleaved q|gate, a minimal row */
static void cases(ciot_op_cases *c) {
    for (int p = 0; p < CIOT_VAL_COUNT; p++) {
        one(c, 1, 5120, 0, p, 5120);
        one(c, 24, 256, 512, p, 24 * 512);
        one(c, 9, 16, 0, p, 9 * 16);
    }
}

const ciot_token_kind ciot_kind_rmsnorm = {
    .name = "rmsnorm", .keys = {"rows", "n"}, .type_key = -1, .mix = CIOT_MIX_READ, CIOT_KIND_COMMON,
    .run = CIOT_KIND_RUN_AVX2_NEON,
    .size = size, .bind = bind, .cases = cases,
};
