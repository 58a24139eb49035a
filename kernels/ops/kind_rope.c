/* rope's descriptor: the rotary embedding of the q and k heads in place, NeoX halves (kernels/ops.md). */
#include <stdio.h>
#include "kind_impl.h"

CIOT_KIND_FNS(rope)
CIOT_KIND_LOOP(rope, ref)

static ciot_status check_sizes(const int *p, char *why, size_t len) {
    if (p[3] > p[2] || p[3] % 2)
        return ciot_error(CIOT_E_ARG, why, len, "rot %d is not an even number up to head_dim %d", p[3], p[2]);
    return CIOT_OK;
}

/* q inside an interleaved q|gate */
static void size(const int *p, int capacity, void *args, ciot_token_need *need) {
    float *const P = ciot_kind_probe[0];
    *(ciot_rope_args *)args = (ciot_rope_args){P, P, p[0], p[1], 2 * p[2], p[2], p[2], p[3], P};
    need->act_floats = ciot_size_mul((size_t)p[0], 2 * (size_t)p[2]);
    need->table_rot = p[3];
}

static void bind(void *args, const int *p, const ciot_token_mem *m) {
    ciot_rope_args *a = args;
    a->q = m->a, a->k = m->b, a->table = m->table;
}

/* the table's row of position L */
static void at_context(void *args, int L, const float *table) {
    ciot_rope_args *a = args;
    a->table = table + (size_t)L * (size_t)(a->rot_dims / 2) * 2;
}

static const int pointers[] = {offsetof(ciot_rope_args, q), offsetof(ciot_rope_args, k),
                               offsetof(ciot_rope_args, table), -1};

static void one(ciot_op_cases *c, int qh, int kh, int D, int rot, int pos, long values) {
    snprintf(c->label, sizeof c->label, "q_heads=%d k_heads=%d head_dim=%d rot=%d pos=%d", qh, kh, D, rot, pos);
    size_t f = 4;
    size_t q = c->region(c, "q|gate", (size_t)qh * 2 * D * f, 0), k = c->region(c, "k", (size_t)kh * D * f, 0);
    size_t t = c->region(c, "table", (size_t)(pos + 1) * rot * f, 0);
    const ciot_rope_args a = {.q = ciot_op_off(q), .k = ciot_op_off(k), .q_heads = qh, .k_heads = kh,
                              .q_stride = 2 * D, .head_dim = D, .rot_dims = rot,
                              .table = ciot_op_off(t + (size_t)pos * rot * f)};
    c->args(c, &a, sizeof a, pointers);
    unsigned char *base = c->alloc(c);
    if (base) {
        ciot_op_draw_values((float *)(base + q), (size_t)qh * 2 * D, &c->seed, CIOT_VAL_RANDOM, -3.0f, 3.0f);
        ciot_op_draw_values((float *)(base + k), (size_t)kh * D, &c->seed, CIOT_VAL_RANDOM, -3.0f, 3.0f);
        ciot_rope_table((float *)(base + t), pos + 1, rot, 10000000.0);
    }
    c->finish(c, values);
}

/* Bonsai's 24 q heads (in q|gate) and 4 k heads, 64 of 256 dims rotated; full rotation */
static void cases(ciot_op_cases *c) {
    one(c, 24, 4, 256, 64, 4095, 4096L * 64);
    one(c, 3, 1, 16, 16, 7, 8L * 16);
}

const ciot_token_kind ciot_kind_rope = {
    .name = "rope", .keys = {"q_heads", "k_heads", "head_dim", "rot"}, .type_key = -1, .mix = CIOT_MIX_READ,
    CIOT_KIND_COMMON, .run = {[CIOT_OPV_REF] = run_ref},
    .check_sizes = check_sizes, .size = size, .bind = bind, .at_context = at_context, .cases = cases,
};
