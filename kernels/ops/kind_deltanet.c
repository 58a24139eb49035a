/* deltanet's descriptor: the gated delta rule of one block, its states updated in place (kernels/ops.md). */
#include <stdio.h>
#include "kind_impl.h"
#include "prefetch.h"

CIOT_KIND_FNS(deltanet)
CIOT_KIND_LOOP(deltanet, ref)
#if defined(__x86_64__)
CIOT_KIND_LOOP(deltanet, avx2)
CIOT_KIND_LOOP(deltanet, avx512f)
#define VERSIONS [CIOT_OPV_AVX2] = run_avx2, [CIOT_OPV_AVX512F] = run_avx512f
#elif defined(__aarch64__)
CIOT_KIND_LOOP(deltanet, neon)
#define VERSIONS [CIOT_OPV_NEON] = run_neon
#else
#define VERSIONS
#endif

static ciot_status check_sizes(const int *p, char *why, size_t len) {
    if (p[1] % p[0]) return ciot_error(CIOT_E_ARG, why, len, "v_heads %d is not a multiple of k_heads %d", p[1], p[0]);
    return CIOT_OK;
}

static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_deltanet_args *)args = (ciot_deltanet_args){P, P, P, P, P, P, P, P, P, P, p[0], p[1], p[2], p[3], 1e-6f, 0};
    const size_t ch = ciot_size_mul((size_t)(2 * (long long)p[0] + p[1]), (size_t)p[2]);
    need->act_floats = ch;
    need->param_bytes = ciot_size_add(ciot_size_mul(ciot_size_mul(ch, (size_t)p[3]), 4), 2 * (size_t)p[1] * 4);
    need->state_bytes =
        ciot_size_add(ciot_size_mul(ciot_size_mul(ciot_size_mul((size_t)p[1], (size_t)p[2]), (size_t)p[2]), 4),
                      ciot_size_mul(ciot_size_mul(ch, (size_t)(p[3] - 1)), 4));
}

/* the gate inputs from B, conv taps then a_log and dt_bias from its params, the state then the conv state */
static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_deltanet_args *d = args;
    const size_t ch = (size_t)(2 * p[0] + p[1]) * (size_t)p[2];
    float *w = (float *)m->params;
    d->qkv = m->a, d->out = m->c, d->alpha = m->b, d->beta_in = m->b + p[1];
    d->conv_w = w, d->a_log = w + ch * (size_t)p[3], d->dt_bias = d->a_log + p[1];
    d->state = m->state, d->conv_state = m->state + (size_t)p[1] * p[2] * p[2];
    d->scratch = m->scratch;
}

static void set_prefetch(void *args, size_t bytes) { ((ciot_deltanet_args *)args)->prefetch = bytes; }

static const int pointers[] = {
    offsetof(ciot_deltanet_args, qkv),   offsetof(ciot_deltanet_args, conv_state), offsetof(ciot_deltanet_args, conv_w),
    offsetof(ciot_deltanet_args, alpha), offsetof(ciot_deltanet_args, beta_in),    offsetof(ciot_deltanet_args, a_log),
    offsetof(ciot_deltanet_args, dt_bias), offsetof(ciot_deltanet_args, state),    offsetof(ciot_deltanet_args, out),
    offsetof(ciot_deltanet_args, scratch), -1};

static void one(ciot_op_cases *c, int kh, int vh, int D, int conv, ciot_val_pattern p, long values) {
    snprintf(c->label, sizeof c->label, "k_heads=%d v_heads=%d head_dim=%d conv=%d %s", kh, vh, D, conv,
             ciot_val_pattern_name(p));
    ciot_deltanet_args a = {.k_heads = kh, .v_heads = vh, .head_dim = D, .conv = conv, .eps = 1e-6f,
                            .prefetch = CIOT_PREFETCH_DEFAULT}; /* as the replay runs it */
    size_t ch = (size_t)(2 * kh + vh) * D, f = 4, off[8], n[8] = {ch, (size_t)(conv - 1) * ch, (size_t)conv * ch,
                                                              (size_t)vh, (size_t)vh, (size_t)vh, (size_t)vh,
                                                              (size_t)vh * D * D};
    static const char *const names[8] = {"qkv", "conv_state", "conv_w", "alpha", "beta_in", "a_log", "dt_bias", "state"};
    for (int i = 0; i < 8; i++) off[i] = c->region(c, names[i], n[i] * f, 0);
    a.qkv = ciot_op_off(off[0]), a.conv_state = ciot_op_off(off[1]), a.conv_w = ciot_op_off(off[2]);
    a.alpha = ciot_op_off(off[3]), a.beta_in = ciot_op_off(off[4]), a.a_log = ciot_op_off(off[5]);
    a.dt_bias = ciot_op_off(off[6]), a.state = ciot_op_off(off[7]);
    a.out = ciot_op_off(c->region(c, "out", (size_t)vh * D * f, 0));
    const size_t scratch = c->region(c, "scratch", ciot_deltanet_scratch_bytes(&a), 0);
    c->scratch(c, scratch);
    a.scratch = ciot_op_off(scratch);
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base) {
        /* wide on the gate inputs: softplus' both branches */
        const ciot_val_pattern pat[8] = {p, p, CIOT_VAL_RANDOM,
                                         p == CIOT_VAL_WIDE ? CIOT_VAL_WIDE : CIOT_VAL_RANDOM,
                                         p == CIOT_VAL_WIDE ? CIOT_VAL_WIDE : CIOT_VAL_RANDOM, CIOT_VAL_RANDOM,
                                         CIOT_VAL_RANDOM, p == CIOT_VAL_LARGE ? CIOT_VAL_LARGE : CIOT_VAL_RANDOM};
        static const float lo[8] = {-3.0f, -3.0f, -0.6f, -4.0f, -4.0f, -2.0f, -1.0f, -0.1f};
        static const float hi[8] = {3.0f, 3.0f, 0.6f, 4.0f, 4.0f, 1.0f, 1.0f, 0.1f};
        for (int i = 0; i < 8; i++) ciot_op_draw_values((float *)(base + off[i]), n[i], &c->seed, pat[i], lo[i], hi[i]);
    }
    c->finish(c, values);
}

/* Bonsai's block, then small and odd shapes with every pattern */
static void cases(ciot_op_cases *c) {
    one(c, 16, 48, 128, 4, CIOT_VAL_RANDOM, 48L * 128 * 128);
    for (int p = 0; p < CIOT_VAL_COUNT; p++) {
        one(c, 2, 6, 32, 4, p, 6L * 32 * 32);
        one(c, 1, 1, 16, 2, p, 256);
        one(c, 3, 3, 48, 3, p, 3L * 48 * 48);
    }
}

const ciot_token_kind ciot_kind_deltanet = {
    .name = "deltanet", .keys = {"k_heads", "v_heads", "head_dim", "conv"}, .type_key = -1, .mix = CIOT_MIX_UPDATE,
    CIOT_KIND_COMMON, .run = {[CIOT_OPV_REF] = run_ref, VERSIONS},
    .check_sizes = check_sizes, .size = size, .bind = bind, .set_prefetch = set_prefetch, .cases = cases,
};
