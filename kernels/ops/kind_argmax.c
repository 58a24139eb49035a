/* argmax's descriptor: the index of the LM head's largest output (kernels/ops.md). */
#include <stdio.h>
#include "kind_impl.h"

CIOT_KIND_FNS(argmax)
CIOT_KIND_LOOPS_AVX2_NEON(argmax)

static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_argmax_args *)args = (ciot_argmax_args){P, p[0], (int *)P, P, P};
    need->act_floats = (size_t)p[0];
}

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    *(ciot_argmax_args *)args = (ciot_argmax_args){m->a, p[0], m->index, m->value, m->scratch};
}

static const int pointers[] = {offsetof(ciot_argmax_args, x), offsetof(ciot_argmax_args, index),
                               offsetof(ciot_argmax_args, value), offsetof(ciot_argmax_args, scratch), -1};

static void one(ciot_op_cases *c, int n, int pattern, long values) {
    static const char *const names[] = {"random", "ties", "nan", "all -inf", "all nan", "signed zeros"};
    snprintf(c->label, sizeof c->label, "n=%d %s", n, names[pattern]);
    size_t x = c->region(c, "x", (size_t)n * 4, 0);
    ciot_argmax_args a = {.x = ciot_op_off(x), .n = n, .index = ciot_op_off(c->region(c, "index", 4, 0)),
                          .value = ciot_op_off(c->region(c, "value", 4, 0))};
    const size_t scratch = c->region(c, "scratch", ciot_argmax_scratch_bytes(&a), 0);
    c->scratch(c, scratch);
    a.scratch = ciot_op_off(scratch);
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base) {
        float *v = (float *)(base + x);
        ciot_op_draw_values(v, (size_t)n, &c->seed, CIOT_VAL_RANDOM, -30.0f, 30.0f);
        for (int i = 0; i < n; i++) {
            switch (pattern) {
            case 1: v[i] = (float)(int)(v[i] / 10.0f); break;     /* a few values, each many times */
            case 2: if (i % 5 == 0 || i == n - 1) v[i] = __builtin_nanf(""); break;
            case 3: v[i] = -__builtin_inff(); break;
            case 4: v[i] = __builtin_nanf(""); break;
            case 5: v[i] = (i % 3) ? 0.0f : -0.0f; break;
            default: break;
            }
        }
    }
    c->finish(c, values);
}

/* the LM head's outputs, chunk edges, ties, NaN, all -inf, all NaN, signed zeros */
static void cases(ciot_op_cases *c) {
    one(c, 248320, 0, 248320);
    for (int p = 0; p < 6; p++) {
        one(c, 2 * CIOT_ARGMAX_CHUNK + 5, p, 2 * CIOT_ARGMAX_CHUNK);
        one(c, 11, p, 11);
    }
}

const ciot_token_kind ciot_kind_argmax = {
    .name = "argmax", .keys = {"n"}, .type_key = -1, .mix = CIOT_MIX_READ, CIOT_KIND_COMMON,
    .run = CIOT_KIND_RUN_AVX2_NEON,
    .size = size, .bind = bind, .cases = cases,
};
