/* The whole token's ops between the matvecs: one args struct per step, pointing into four regions (the
 * DeltaNet states back to back, their snapshot, the KV caches, everything else), laid out by one plan
 * that both the memory estimate and the allocation walk, so the refusal before any work and the memory
 * used agree. Activations: three shared buffers (inputs A and B, output C) of drawn values; no op writes
 * A or B except rope, which rotates them in place (norm-preserving), so values stay finite token after
 * token. Timings do not depend on the values. */
#include "token_exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "fp16.h"
#include "split.h"

enum { EMBED_ROWS = 1 };               /* the embedding row a token reads (one row, not the table) */
static const double ROPE_THETA = 1e7;  /* Qwen3-Next's base; values do not change the timing */
static const float EPS = 1e-6f;


typedef struct {
    ciot_step_kind kind;
    ciot_token_args a;
    int sub_phases;         /* a state copy: phases of one copy (it runs `copies` of them) */
    int copies;
    size_t state_at, state_bytes;   /* DeltaNet: its place in the state region */
    size_t kv_at, kv_bytes;         /* attention: its place in the KV region */
    size_t param_at, param_bytes;   /* norm weights, conv weights and gates, embedding rows */
    size_t scratch;
    int rope_table;                 /* rope: index of its table's rot among the tables */
} slot;

struct ciot_token_exec {
    const ciot_model *m;
    const ciot_token_ops *ops;
    int max_context, L;
    slot *slots;                    /* per token step; matvecs unused */
    unsigned char *state, *snapshot, *kv;
    size_t state_bytes, snapshot_bytes, kv_bytes;
    unsigned char *other;           /* params, tables, activations, scratch */
    size_t other_bytes;
    float *act[3];
    size_t act_floats;
    void *scratch;
    float *tables;
    int n_tables, table_rot[8];
    size_t table_at[8];
    int argmax_index;
    float argmax_value;
};

static size_t a64(size_t x) { return x > SIZE_MAX - 63 ? SIZE_MAX : (x + 63) & ~(size_t)63; }
static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t mul_sat(size_t a, size_t b) { return a && b > SIZE_MAX / a ? SIZE_MAX : a * b; }

/* A non-NULL address for the checks of the plan, which look at sizes and never read through it. */
static _Alignas(64) float probe_cell[16], probe_other[16];

/* The args of step s at its sizes, with every pointer at probe_cell (the plan checks them so), and the
 * activation floats it needs. Attention is sized at the largest context, where its scratch is largest. */
static void sizes_of(const ciot_token_step *s, int capacity, slot *z, size_t *act) {
    float *const P = probe_cell;
    const int *p = s->p;
    memset(z, 0, sizeof *z);
    z->kind = s->kind;
    z->copies = 1;
    switch (s->kind) {
    case CIOT_STEP_EMBED:
        z->a.embed = (ciot_embed_args){P, P, p[1], (ciot_embed_type)p[2]};
        *act = (size_t)p[1];
        break;
    case CIOT_STEP_RMSNORM:
        z->a.rmsnorm = (ciot_rmsnorm_args){P, P, P, p[0], p[1], 0, EPS};
        *act = mul_sat((size_t)p[0], (size_t)p[1]);
        break;
    case CIOT_STEP_DELTANET: {
        z->a.deltanet = (ciot_deltanet_args){P, P, P, P, P, P, P, P, P, P, p[0], p[1], p[2], p[3], EPS, 0};
        const size_t ch = mul_sat((size_t)(2 * (long long)p[0] + p[1]), (size_t)p[2]);
        *act = ch;
        break;
    }
    case CIOT_STEP_ATTENTION:
        z->a.attention = (ciot_attention_args){P, P, P, P, (uint16_t *)P, (uint16_t *)P, P, P, p[0], p[1], p[2],
                                               2 * p[2], capacity - 1, capacity, 1.0f / sqrtf((float)p[2])};
        *act = mul_sat((size_t)p[0], 2 * (size_t)p[2]);
        break;
    case CIOT_STEP_ROPE:
        z->a.rope = (ciot_rope_args){P, P, p[0], p[1], 2 * p[2], p[2], p[2], p[3], P};
        *act = mul_sat((size_t)p[0], 2 * (size_t)p[2]);
        break;
    case CIOT_STEP_GLU:
    case CIOT_STEP_ADD:
        z->a.glu = (ciot_glu_args){P, P, P, p[0], s->kind == CIOT_STEP_ADD ? CIOT_GLU_ADD : CIOT_GLU_SILU};
        *act = (size_t)p[0];
        break;
    case CIOT_STEP_STATE_COPY:
        z->a.state_copy = (ciot_state_copy_args){P, probe_other, 64};
        z->copies = p[0];
        *act = 0;
        break;
    case CIOT_STEP_ARGMAX:
        z->a.argmax = (ciot_argmax_args){P, p[0], (int *)P, P, P};
        *act = (size_t)p[0];
        break;
    default:
        *act = 0;
    }
}

/* The op kind a step runs (an add is a glu); -1 for a matvec step, which has no op args. */
static int token_kind_of(ciot_step_kind k) {
    switch (k) {
    case CIOT_STEP_EMBED: return CIOT_TOK_EMBED;
    case CIOT_STEP_RMSNORM: return CIOT_TOK_RMSNORM;
    case CIOT_STEP_DELTANET: return CIOT_TOK_DELTANET;
    case CIOT_STEP_ATTENTION: return CIOT_TOK_ATTENTION;
    case CIOT_STEP_ROPE: return CIOT_TOK_ROPE;
    case CIOT_STEP_GLU:
    case CIOT_STEP_ADD: return CIOT_TOK_GLU;
    case CIOT_STEP_STATE_COPY: return CIOT_TOK_STATE_COPY;
    case CIOT_STEP_ARGMAX: return CIOT_TOK_ARGMAX;
    default: return -1;
    }
}

static ciot_status check_slot(const slot *z, char *why, size_t len) {
    int k = token_kind_of(z->kind);
    return k < 0 ? CIOT_OK : ciot_token_check((ciot_token_kind)k, &z->a, why, len);
}

static size_t scratch_of(const slot *z) {
    switch (z->kind) {
    case CIOT_STEP_DELTANET: return ciot_deltanet_scratch_bytes(&z->a.deltanet);
    case CIOT_STEP_ATTENTION: return ciot_attention_scratch_bytes(&z->a.attention);
    case CIOT_STEP_ARGMAX: return ciot_argmax_scratch_bytes(&z->a.argmax);
    default: return 0;
    }
}

typedef struct {
    ciot_token_memory mem;
    size_t params, tables, act_floats, scratch;
    int n_tables, table_rot[8];
    size_t table_at[8];
} plan;

/* Places every step's memory; slots may be NULL (the estimate). */
static ciot_status make_plan(const ciot_model *m, int max_context, slot *slots, plan *pl, char *why, size_t len) {
    memset(pl, 0, sizeof *pl);
    const int capacity = max_context + 1;
    int copies = 0;
    for (int i = 0; i < m->n_token; i++) {
        const ciot_token_step *s = &m->token[i];
        if (s->kind == CIOT_STEP_MATVEC) continue;
        slot z;
        size_t act;
        sizes_of(s, capacity, &z, &act);
        char w[512];
        if (check_slot(&z, w, sizeof w) != CIOT_OK)
            return ciot_error(CIOT_E_ARG, why, len, "%s:%d: %s: %s", m->path, s->line, s->name, w);
        if (act > pl->act_floats) pl->act_floats = act;
        z.scratch = a64(scratch_of(&z));
        if (z.scratch > pl->scratch) pl->scratch = z.scratch;
        const int *p = s->p;
        switch (s->kind) {
        case CIOT_STEP_EMBED:
            z.param_bytes = a64(mul_sat(ciot_embed_row_bytes((ciot_embed_type)p[2], p[1]), EMBED_ROWS));
            break;
        case CIOT_STEP_RMSNORM: z.param_bytes = a64((size_t)p[1] * sizeof(float)); break;
        case CIOT_STEP_DELTANET: {
            const size_t ch = (size_t)(2 * (long long)p[0] + p[1]) * (size_t)p[2];
            z.param_bytes = a64(add_sat(mul_sat(mul_sat(ch, (size_t)p[3]), 4), 2 * (size_t)p[1] * 4));
            z.state_bytes = a64(add_sat(mul_sat(mul_sat(mul_sat((size_t)p[1], (size_t)p[2]), (size_t)p[2]), 4),
                                        mul_sat(mul_sat(ch, (size_t)(p[3] - 1)), 4)));
            z.state_at = pl->mem.state;
            pl->mem.state = add_sat(pl->mem.state, z.state_bytes);
            break;
        }
        case CIOT_STEP_ATTENTION:
            z.kv_bytes = a64(mul_sat(mul_sat(mul_sat((size_t)p[1], (size_t)capacity), (size_t)p[2]), 2 * 2));
            z.kv_at = pl->mem.kv;
            pl->mem.kv = add_sat(pl->mem.kv, z.kv_bytes);
            break;
        case CIOT_STEP_ROPE: {
            int t = 0;
            while (t < pl->n_tables && pl->table_rot[t] != p[3]) t++;
            if (t == pl->n_tables) {
                if (t == 8) return ciot_error(CIOT_E_ARG, why, len, "%s:%d: more than 8 rotated widths", m->path, s->line);
                pl->table_rot[t] = p[3];
                pl->table_at[t] = pl->tables;
                pl->tables = add_sat(pl->tables, a64(mul_sat((size_t)capacity, (size_t)p[3] * sizeof(float))));
                pl->n_tables++;
            }
            z.rope_table = t;
            break;
        }
        case CIOT_STEP_STATE_COPY: copies = p[0] > copies ? p[0] : copies; break;
        default: break;
        }
        z.param_at = pl->params;
        pl->params = add_sat(pl->params, z.param_bytes);
        if (slots) slots[i] = z;
    }
    for (int i = 0; i < m->n_token; i++)
        if (m->token[i].kind == CIOT_STEP_STATE_COPY && !pl->mem.state)
            return ciot_error(CIOT_E_ARG, why, len, "%s:%d: %s: a state copy, but no deltanet op holds a state",
                              m->path, m->token[i].line, m->token[i].name);
    pl->mem.snapshot = mul_sat(pl->mem.state, (size_t)copies);
    pl->mem.other = add_sat(add_sat(pl->params, pl->tables), mul_sat(a64(mul_sat(pl->act_floats, sizeof(float))), 3));
    pl->mem.other = add_sat(pl->mem.other, pl->scratch);
    return CIOT_OK;
}

ciot_status ciot_token_memory_of(const ciot_model *m, int max_context, ciot_token_memory *mem, char *why,
                                 size_t why_len) {
    plan pl;
    const ciot_status st = make_plan(m, max_context, NULL, &pl, why, why_len);
    *mem = pl.mem;
    return st;
}

/* ---- filling, on the pool: every thread first-touches its own slice ---- */

typedef struct {
    unsigned char *base;
    size_t bytes;
    int fp16;           /* 1: drawn fp16 values, else drawn floats */
} fill_job;

static void fill_task(void *arg, int t, int n) {
    const fill_job *j = arg;
    int first, count;
    /* split by 4 KiB pages, so each thread first-touches its own pages and the count fits an int */
    const size_t pages = (j->bytes + 4095) / 4096;
    ciot_split_static((int)(pages < (size_t)1 << 30 ? pages : (size_t)1 << 30), t, n, &first, &count);
    size_t lo = (size_t)first * 4096, hi = (size_t)(first + count) * 4096;
    if (hi > j->bytes || t == n - 1) hi = j->bytes;
    if (lo >= hi) return;
    if (j->fp16) {
        uint16_t *h = (uint16_t *)(j->base + lo);
        for (size_t i = 0, e = (hi - lo) / 2; i < e; i++)
            h[i] = ciot_fp32_to_fp16((float)((int)(((lo / 2 + i) * 2654435761u) % 2001) - 1000) * 1e-3f);
    } else {
        float *f = (float *)(j->base + lo);
        for (size_t i = 0, e = (hi - lo) / 4; i < e; i++)
            f[i] = (float)((int)(((lo / 4 + i) * 2654435761u) % 2001) - 1000) * 1e-4f;
    }
}

static void fill(ciot_pool *p, unsigned char *base, size_t bytes, int fp16) {
    fill_job j = {base, bytes, fp16};
    if (p) ciot_pool_run(p, fill_task, &j);
    else fill_task(&j, 0, 1);
}

static unsigned char *big(size_t bytes) { return bytes ? ciot_bigbuf_alloc(bytes, 1) : NULL; }

ciot_status ciot_token_exec_create(const ciot_model *m, int max_context, const ciot_token_ops *ops, ciot_pool *pool,
                                   ciot_token_exec **out, char *why, size_t why_len) {
    *out = NULL;
    ciot_token_exec *e = calloc(1, sizeof *e);
    slot *slots = calloc((size_t)(m->n_token ? m->n_token : 1), sizeof *slots);
    if (!e || !slots) {
        free(e), free(slots);
        return ciot_error(CIOT_E_NOMEM, why, why_len, "out of memory");
    }
    e->m = m, e->ops = ops, e->max_context = max_context, e->slots = slots;
    plan pl;
    ciot_status st = max_context < 0 ? CIOT_E_ARG : make_plan(m, max_context, slots, &pl, why, why_len);
    if (st != CIOT_OK) {
        ciot_token_exec_destroy(e);
        return st;
    }
    e->state_bytes = pl.mem.state, e->snapshot_bytes = pl.mem.snapshot, e->kv_bytes = pl.mem.kv;
    e->other_bytes = pl.mem.other;
    e->state = big(e->state_bytes), e->snapshot = big(e->snapshot_bytes), e->kv = big(e->kv_bytes);
    /* scratch apart, from the heap: an op that overruns it is what the sanitizers see */
    e->other_bytes = pl.mem.other - pl.scratch;
    e->other = big(e->other_bytes);
    e->scratch = aligned_alloc(64, pl.scratch ? pl.scratch : 64);
    if ((e->state_bytes && !e->state) || (e->snapshot_bytes && !e->snapshot) || (e->kv_bytes && !e->kv) ||
        (e->other_bytes && !e->other) || !e->scratch) {
        ciot_token_exec_destroy(e);
        return ciot_error(CIOT_E_NOMEM, why, why_len, "cannot allocate %.2f GiB for the states, the KV caches and "
                          "the ops' buffers", (double)ciot_token_memory_total(&pl.mem) / (1 << 30));
    }
    /* the region "other": params, tables, activations A B C, scratch */
    const size_t act_bytes = a64(pl.act_floats * sizeof(float));
    unsigned char *params = e->other, *tables = params + pl.params, *acts = tables + pl.tables;
    for (int k = 0; k < 3; k++) e->act[k] = (float *)(acts + (size_t)k * act_bytes);
    e->act_floats = pl.act_floats;
    fill(pool, e->state, e->state_bytes, 0);
    fill(pool, e->snapshot, e->snapshot_bytes, 0);
    fill(pool, e->kv, e->kv_bytes, 1);
    fill(pool, params, pl.params, 0);
    fill(pool, acts, 3 * act_bytes, 0);
    memset(e->scratch, 0, pl.scratch);
    for (int t = 0; t < pl.n_tables; t++)
        ciot_rope_table((float *)(tables + pl.table_at[t]), max_context + 1, pl.table_rot[t], ROPE_THETA);
    e->tables = (float *)tables;
    e->n_tables = pl.n_tables;
    memcpy(e->table_rot, pl.table_rot, sizeof e->table_rot);
    memcpy(e->table_at, pl.table_at, sizeof e->table_at);
    float *A = e->act[0], *B = e->act[1], *C = e->act[2];
    for (int i = 0; i < m->n_token; i++) {
        slot *z = &slots[i];
        const int *p = m->token[i].p;
        unsigned char *par = params + z->param_at;
        switch (z->kind) {
        case CIOT_STEP_EMBED: {
            /* an f16 / bf16 / quantized row of drawn bytes: keep its scales finite like the fill's floats */
            z->a.embed.row = par;
            z->a.embed.out = C;
            if (z->a.embed.type != CIOT_EMBED_F32) fill_task(&(fill_job){par, z->param_bytes, 1}, 0, 1);
            break;
        }
        case CIOT_STEP_RMSNORM:
            z->a.rmsnorm.x = A, z->a.rmsnorm.w = (const float *)par, z->a.rmsnorm.y = C;
            break;
        case CIOT_STEP_DELTANET: {
            ciot_deltanet_args *d = &z->a.deltanet;
            const size_t ch = (size_t)(2 * p[0] + p[1]) * (size_t)p[2];
            float *w = (float *)par, *state = (float *)(e->state + z->state_at);
            d->qkv = A, d->out = C, d->alpha = B, d->beta_in = B + p[1];
            d->conv_w = w, d->a_log = w + ch * (size_t)p[3], d->dt_bias = d->a_log + p[1];
            d->state = state, d->conv_state = state + (size_t)p[1] * p[2] * p[2];
            d->scratch = e->scratch;
            break;
        }
        case CIOT_STEP_ATTENTION: {
            ciot_attention_args *a = &z->a.attention;
            uint16_t *kc = (uint16_t *)(e->kv + z->kv_at);
            a->q = A, a->gate = A + p[2], a->k = B, a->v = B + (size_t)p[1] * p[2], a->out = C;
            a->k_cache = kc, a->v_cache = kc + (size_t)p[1] * (size_t)(max_context + 1) * p[2];
            a->scratch = e->scratch;
            a->L = max_context;
            break;
        }
        case CIOT_STEP_ROPE:
            z->a.rope.q = A, z->a.rope.k = B;
            z->a.rope.table = (const float *)(tables + pl.table_at[z->rope_table]);
            break;
        case CIOT_STEP_GLU:
        case CIOT_STEP_ADD:
            z->a.glu.gate = A, z->a.glu.up = B, z->a.glu.y = C;
            break;
        case CIOT_STEP_STATE_COPY:
            z->a.state_copy = (ciot_state_copy_args){e->state, e->snapshot, e->state_bytes};
            break;
        case CIOT_STEP_ARGMAX:
            z->a.argmax = (ciot_argmax_args){A, p[0], &e->argmax_index, &e->argmax_value, e->scratch};
            break;
        default: break;
        }
        if (z->kind == CIOT_STEP_STATE_COPY) z->sub_phases = ciot_state_copy_phases(&z->a.state_copy);
        char w[512];
        if (z->kind != CIOT_STEP_MATVEC && (st = check_slot(z, w, sizeof w)) != CIOT_OK) {
            ciot_error(st, why, why_len, "%s:%d: %s: %s", m->path, m->token[i].line, m->token[i].name, w);
            ciot_token_exec_destroy(e);
            return st;
        }
    }
    ciot_token_exec_set_context(e, max_context);
    *out = e;
    return CIOT_OK;
}

void ciot_token_exec_destroy(ciot_token_exec *e) {
    if (!e) return;
    if (e->state) ciot_bigbuf_free(e->state, e->state_bytes);
    if (e->snapshot) ciot_bigbuf_free(e->snapshot, e->snapshot_bytes);
    if (e->kv) ciot_bigbuf_free(e->kv, e->kv_bytes);
    if (e->other) ciot_bigbuf_free(e->other, e->other_bytes);
    free(e->scratch);
    free(e->slots);
    free(e);
}

void ciot_token_exec_set_prefetch(ciot_token_exec *e, size_t bytes) {
    for (int i = 0; i < e->m->n_token; i++)
        if (e->slots[i].kind == CIOT_STEP_DELTANET) e->slots[i].a.deltanet.prefetch = bytes;
}

void ciot_token_exec_set_context(ciot_token_exec *e, int L) {
    if (L < 0 || L > e->max_context) return;
    e->L = L;
    for (int i = 0; i < e->m->n_token; i++) {
        slot *z = &e->slots[i];
        if (z->kind == CIOT_STEP_ATTENTION) z->a.attention.L = L;
        if (z->kind == CIOT_STEP_ROPE)
            z->a.rope.table = (const float *)((const unsigned char *)e->tables + e->table_at[z->rope_table]) +
                              (size_t)L * (size_t)(z->a.rope.rot_dims / 2) * 2;
    }
}

int ciot_token_exec_phases(const ciot_token_exec *e, int i) {
    const slot *z = &e->slots[i];
    switch (z->kind) {
    case CIOT_STEP_EMBED: return ciot_embed_phases(&z->a.embed);
    case CIOT_STEP_RMSNORM: return ciot_rmsnorm_phases(&z->a.rmsnorm);
    case CIOT_STEP_DELTANET: return ciot_deltanet_phases(&z->a.deltanet);
    case CIOT_STEP_ATTENTION: return ciot_attention_phases(&z->a.attention);
    case CIOT_STEP_ROPE: return ciot_rope_phases(&z->a.rope);
    case CIOT_STEP_GLU:
    case CIOT_STEP_ADD: return ciot_glu_phases(&z->a.glu);
    case CIOT_STEP_STATE_COPY: return z->copies * z->sub_phases;
    case CIOT_STEP_ARGMAX: return ciot_argmax_phases(&z->a.argmax);
    default: return 0;
    }
}

void ciot_token_exec_run(const ciot_token_exec *e, int i, int phase, int part, int parts) {
    const slot *z = &e->slots[i];
    const ciot_token_ops *o = e->ops;
    switch (z->kind) {
    case CIOT_STEP_EMBED: o->embed(&z->a.embed, phase, part, parts); break;
    case CIOT_STEP_RMSNORM: o->rmsnorm(&z->a.rmsnorm, phase, part, parts); break;
    case CIOT_STEP_DELTANET: o->deltanet(&z->a.deltanet, phase, part, parts); break;
    case CIOT_STEP_ATTENTION: o->attention(&z->a.attention, phase, part, parts); break;
    case CIOT_STEP_ROPE: o->rope(&z->a.rope, phase, part, parts); break;
    case CIOT_STEP_GLU:
    case CIOT_STEP_ADD: o->glu(&z->a.glu, phase, part, parts); break;
    case CIOT_STEP_STATE_COPY: {
        /* copy c of `copies` into its own slot of the snapshot */
        ciot_state_copy_args a = z->a.state_copy;
        const int c = phase / z->sub_phases;
        a.dst = (unsigned char *)a.dst + (size_t)c * a.bytes;
        o->state_copy(&a, phase % z->sub_phases, part, parts);
        break;
    }
    case CIOT_STEP_ARGMAX: o->argmax(&z->a.argmax, phase, part, parts); break;
    default: break;
    }
}

void ciot_token_exec_traffic(const ciot_token_exec *e, int i, int L, ciot_op_traffic *t) {
    const slot *z = &e->slots[i];
    memset(t, 0, sizeof *t);
    switch (z->kind) {
    case CIOT_STEP_EMBED: ciot_embed_traffic(&z->a.embed, t); break;
    case CIOT_STEP_RMSNORM: ciot_rmsnorm_traffic(&z->a.rmsnorm, t); break;
    case CIOT_STEP_DELTANET: ciot_deltanet_traffic(&z->a.deltanet, t); break;
    case CIOT_STEP_ATTENTION: {
        ciot_attention_args a = z->a.attention;
        a.L = L;
        ciot_attention_traffic(&a, t);
        break;
    }
    case CIOT_STEP_ROPE: ciot_rope_traffic(&z->a.rope, t); break;
    case CIOT_STEP_GLU:
    case CIOT_STEP_ADD: ciot_glu_traffic(&z->a.glu, t); break;
    case CIOT_STEP_STATE_COPY: {
        ciot_state_copy_traffic(&z->a.state_copy, t);
        t->state_read *= (size_t)z->copies, t->state_written *= (size_t)z->copies;
        t->act_read *= (size_t)z->copies, t->act_written *= (size_t)z->copies;
        break;
    }
    case CIOT_STEP_ARGMAX: ciot_argmax_traffic(&z->a.argmax, t); break;
    default: break;
    }
}

const char *ciot_token_exec_ops_name(const ciot_token_exec *e) { return e->ops->name; }
const ciot_token_ops *ciot_token_exec_ops(const ciot_token_exec *e) { return e->ops; }

const unsigned char *ciot_token_exec_region(const ciot_token_exec *e, int which, size_t *bytes) {
    const unsigned char *const base[] = {e->state, e->snapshot, e->kv};
    const size_t size[] = {e->state_bytes, e->snapshot_bytes, e->kv_bytes};
    if (which < 0 || which > 2) return *bytes = 0, NULL;
    *bytes = size[which];
    return base[which];
}
