/* attention's descriptor: one query against the fp16 KV cache, grouped queries (kernels/ops.md). */
#include <math.h>
#include <stdio.h>
#include "fp16.h"
#include "kind_impl.h"

CIOT_KIND_FNS(attention)
CIOT_KIND_LOOP(attention, ref)
#if defined(__x86_64__)
CIOT_KIND_LOOP(attention, avx2)
CIOT_KIND_LOOP(attention, avx512f)
#define VERSIONS [CIOT_OPV_AVX2] = run_avx2, [CIOT_OPV_AVX512F] = run_avx512f
#elif defined(__aarch64__)
CIOT_KIND_LOOP(attention, neon)
#define VERSIONS [CIOT_OPV_NEON] = run_neon
#else
#define VERSIONS
#endif

static ciot_status check_sizes(const int *p, char *why, size_t len) {
    if (p[0] % p[1]) return ciot_error(CIOT_E_ARG, why, len, "q_heads %d is not a multiple of kv_heads %d", p[0], p[1]);
    return CIOT_OK;
}

/* sized at the largest context, where its scratch is largest */
static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_attention_args *)args =
        (ciot_attention_args){P, P, P, P, (uint16_t *)P, (uint16_t *)P, P, P, p[0], p[1], p[2],
                              2 * p[2], capacity - 1, capacity, 1.0f / sqrtf((float)p[2])};
    need->act_floats = ciot_size_mul((size_t)p[0], 2 * (size_t)p[2]);
    need->kv_bytes = ciot_size_mul(ciot_size_mul(ciot_size_mul((size_t)p[1], (size_t)capacity), (size_t)p[2]), 2 * 2);
}

/* q|gate interleaved in A, this token's k then v in B; the K cache then the V cache */
static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_attention_args *a = args;
    a->q = m->a, a->gate = m->a + p[2], a->k = m->b, a->v = m->b + (size_t)p[1] * p[2], a->out = m->c;
    a->k_cache = m->kv, a->v_cache = m->kv + (size_t)p[1] * (size_t)m->capacity * p[2];
    a->scratch = m->scratch;
    a->L = m->capacity - 1;
}

static void at_context(void *args, int L, const float *table) { ((ciot_attention_args *)args)->L = L; }

static const int pointers[] = {
    offsetof(ciot_attention_args, q),       offsetof(ciot_attention_args, gate),    offsetof(ciot_attention_args, k),
    offsetof(ciot_attention_args, v),       offsetof(ciot_attention_args, k_cache), offsetof(ciot_attention_args, v_cache),
    offsetof(ciot_attention_args, out),     offsetof(ciot_attention_args, scratch), -1};

static void one(ciot_op_cases *c, int qh, int kvh, int D, int L, int interleaved, ciot_val_pattern p, long values) {
    snprintf(c->label, sizeof c->label, "q_heads=%d kv_heads=%d head_dim=%d L=%d %s %s", qh, kvh, D, L,
             interleaved ? "q|gate" : "q,gate", ciot_val_pattern_name(p));
    int cap = L + 1 + (L & 3); /* room past L + 1 too: left alone */
    ciot_attention_args a = {.q_heads = qh, .kv_heads = kvh, .head_dim = D, .L = L, .capacity = cap,
                             .scale = 1.0f / sqrtf((float)D)};
    size_t f = 4, qd = (size_t)qh * D, kd = (size_t)kvh * D, q, gate = 0;
    if (interleaved) {
        q = c->region(c, "q|gate", 2 * qd * f, 0);
        a.q = ciot_op_off(q), a.gate = ciot_op_off(q + (size_t)D * f), a.q_stride = 2 * D;
    } else {
        q = c->region(c, "q", qd * f, 0), gate = c->region(c, "gate", qd * f, 0);
        a.q = ciot_op_off(q), a.gate = ciot_op_off(gate), a.q_stride = D;
    }
    const size_t k = c->region(c, "k", kd * f, 0), v = c->region(c, "v", kd * f, 0);
    const size_t kc = c->region(c, "k_cache", kd * cap * 2, 0), vc = c->region(c, "v_cache", kd * cap * 2, 0);
    a.k = ciot_op_off(k), a.v = ciot_op_off(v), a.k_cache = ciot_op_off(kc), a.v_cache = ciot_op_off(vc);
    a.out = ciot_op_off(c->region(c, "out", qd * f, 0));
    const size_t scratch = c->region(c, "scratch", ciot_attention_scratch_bytes(&a), 0);
    c->scratch(c, scratch);
    a.scratch = ciot_op_off(scratch);
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base) {
        if (interleaved) ciot_op_draw_values((float *)(base + q), 2 * qd, &c->seed, p, -2.0f, 2.0f);
        else
            ciot_op_draw_values((float *)(base + q), qd, &c->seed, p, -2.0f, 2.0f),
                ciot_op_draw_values((float *)(base + gate), qd, &c->seed, CIOT_VAL_RANDOM, -4.0f, 4.0f);
        ciot_op_draw_values((float *)(base + k), kd, &c->seed, CIOT_VAL_RANDOM, -2.0f, 2.0f);
        ciot_op_draw_values((float *)(base + v), kd, &c->seed, CIOT_VAL_RANDOM, -2.0f, 2.0f);
        const size_t caches[2] = {kc, vc};
        for (int cache = 0; cache < 2; cache++) {
            uint16_t *h = (uint16_t *)(base + caches[cache]);
            for (size_t i = 0; i < kd * cap; i++) h[i] = ciot_fp32_to_fp16(ciot_op_draw_uniform(&c->seed, -2.0f, 2.0f));
        }
    }
    c->finish(c, values);
}

/* Bonsai's block at an empty cache, one chunk, a chunk and one position, several chunks; groups of 1, 4 and 7
 * (past one batch of six); every pattern on a small case. Under the emulator and the sanitizers Bonsai's
 * runs at L 0 and 300 only; the chunk edges (255, 256) are met on small heads in every run. */
static void cases(ciot_op_cases *c) {
    static const int bonsai_L[] = {0, 255, 256, 300, 1100};
    for (size_t i = 0; i < sizeof bonsai_L / sizeof *bonsai_L; i++) {
        int L = bonsai_L[i];
        if (c->small && L != 0 && L != 300) continue;
        one(c, 24, 4, 256, L, 1, CIOT_VAL_RANDOM, 2L * 4 * 256 * (L + 1));
    }
    for (int L = 255; L <= 256; L++) one(c, 3, 3, 16, L, 1, CIOT_VAL_RANDOM, 2L * 3 * 16 * (L + 1));
    for (int p = 0; p < CIOT_VAL_COUNT; p++) {
        one(c, 8, 2, 32, 520, 0, p, 2L * 2 * 32 * 521);
        one(c, 3, 3, 16, 17, 1, p, 2L * 3 * 16 * 18);
        one(c, 7, 1, 48, 40, 0, p, 2L * 48 * 41);
    }
}

const ciot_token_kind ciot_kind_attention = {
    .name = "attention", .keys = {"q_heads", "kv_heads", "head_dim"}, .type_key = -1, .mix = CIOT_MIX_READ,
    CIOT_KIND_COMMON, .run = {[CIOT_OPV_REF] = run_ref, VERSIONS},
    .check_sizes = check_sizes, .size = size, .bind = bind, .at_context = at_context, .cases = cases,
};
