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
#include "os.h"
#include "split.h"
#include "token_kind.h"

/* base + off, or NULL for a region the token has none of (a model without DeltaNet has no states). */
static void *at(unsigned char *base, size_t off) { return base ? base + off : NULL; }

static const double ROPE_THETA = 1e7;  /* Qwen3-Next's base; values do not change the timing */

typedef struct {
    const ciot_token_kind *k;       /* NULL: a matvec */
    ciot_token_args a;
    ciot_token_need need;
    int sub_phases;                 /* a state copy: phases of one copy (it runs need.copies of them) */
    size_t state_at, state_bytes;   /* its place in the state region */
    size_t kv_at, kv_bytes;         /* its place in the KV region */
    size_t param_at, param_bytes;   /* its weights in the params */
    size_t scratch;
    int rope_table;                 /* index of its table's rot among the tables */
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

static ciot_status check_slot(const slot *z, char *why, size_t len) {
    return z->k ? z->k->check(&z->a, why, len) : CIOT_OK;
}

typedef struct {
    ciot_token_memory mem;
    size_t params, tables, act_floats, scratch;
    int n_tables, table_rot[8];
    size_t table_at[8];
} plan;

/* A rope table of rot dims for capacity positions: its index among the plan's tables, -1 past 8 of them. */
static int table_of(plan *pl, int rot, int capacity) {
    int t = 0;
    while (t < pl->n_tables && pl->table_rot[t] != rot) t++;
    if (t < pl->n_tables) return t;
    if (t == 8) return -1;
    pl->table_rot[t] = rot;
    pl->table_at[t] = pl->tables;
    pl->tables = add_sat(pl->tables, a64(mul_sat((size_t)capacity, (size_t)rot * sizeof(float))));
    pl->n_tables++;
    return t;
}

/* Places every step's memory; slots may be NULL (the estimate). */
static ciot_status make_plan(const ciot_model *m, int max_context, slot *slots, plan *pl, char *why, size_t len) {
    memset(pl, 0, sizeof *pl);
    const int capacity = max_context + 1;
    int copies = 0;
    for (int i = 0; i < m->n_token; i++) {
        const ciot_token_step *s = &m->token[i];
        const ciot_token_kind *k = ciot_token_kind_of(s->kind);
        if (!k) continue;
        slot z = {.k = k};
        k->size(s->p, capacity, &z.a, &z.need);
        char w[512];
        if (check_slot(&z, w, sizeof w) != CIOT_OK)
            return ciot_error(CIOT_E_ARG, why, len, "%s:%d: %s: %s", m->path, s->line, s->name, w);
        if (z.need.act_floats > pl->act_floats) pl->act_floats = z.need.act_floats;
        z.scratch = a64(k->scratch(&z.a));
        if (z.scratch > pl->scratch) pl->scratch = z.scratch;
        z.param_bytes = z.need.param_bytes ? a64(z.need.param_bytes) : 0;
        z.state_bytes = z.need.state_bytes ? a64(z.need.state_bytes) : 0;
        z.state_at = pl->mem.state;
        pl->mem.state = add_sat(pl->mem.state, z.state_bytes);
        z.kv_bytes = z.need.kv_bytes ? a64(z.need.kv_bytes) : 0;
        z.kv_at = pl->mem.kv;
        pl->mem.kv = add_sat(pl->mem.kv, z.kv_bytes);
        if (z.need.table_rot > 0 && (z.rope_table = table_of(pl, z.need.table_rot, capacity)) < 0)
            return ciot_error(CIOT_E_ARG, why, len, "%s:%d: more than 8 rotated widths", m->path, s->line);
        if (z.need.copies > copies) copies = z.need.copies;
        z.param_at = pl->params;
        pl->params = add_sat(pl->params, z.param_bytes);
        if (slots) slots[i] = z;
    }
    for (int i = 0; i < m->n_token; i++) {
        const ciot_token_kind *k = ciot_token_kind_of(m->token[i].kind);
        ciot_token_args a;
        ciot_token_need need = {0};
        if (k) k->size(m->token[i].p, capacity, &a, &need);
        if (need.copies && !pl->mem.state)
            return ciot_error(CIOT_E_ARG, why, len, "%s:%d: %s: a state copy, but no deltanet op holds a state",
                              m->path, m->token[i].line, m->token[i].name);
    }
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
    e->scratch = ciot_os_aligned_alloc(64, pl.scratch ? pl.scratch : 64);
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
    for (int i = 0; i < m->n_token; i++) {
        slot *z = &slots[i];
        if (!z->k) continue;
        unsigned char *par = at(params, z->param_at);
        if (z->need.param_fp16) fill_task(&(fill_job){par, z->param_bytes, 1}, 0, 1);
        const ciot_token_mem mem = {
            .a = e->act[0], .b = e->act[1], .c = e->act[2], .params = par,
            .state = (float *)at(e->state, z->state_at), .kv = (uint16_t *)at(e->kv, z->kv_at), .scratch = e->scratch,
            .table = (const float *)at(tables, pl.table_at[z->rope_table]), .states = e->state,
            .snapshot = e->snapshot, .states_bytes = e->state_bytes, .capacity = max_context + 1,
            .index = &e->argmax_index, .value = &e->argmax_value};
        z->k->bind(&z->a, m->token[i].p, &mem);
        if (z->need.copies) z->sub_phases = z->k->phases(&z->a);
        char w[512];
        if ((st = check_slot(z, w, sizeof w)) != CIOT_OK) {
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
    ciot_os_aligned_free(e->scratch);
    free(e->slots);
    free(e);
}

void ciot_token_exec_set_prefetch(ciot_token_exec *e, size_t bytes) {
    for (int i = 0; i < e->m->n_token; i++)
        if (e->slots[i].k && e->slots[i].k->set_prefetch) e->slots[i].k->set_prefetch(&e->slots[i].a, bytes);
}

static const float *table_of_slot(const ciot_token_exec *e, const slot *z) {
    return (const float *)((const unsigned char *)e->tables + e->table_at[z->rope_table]);
}

void ciot_token_exec_set_context(ciot_token_exec *e, int L) {
    if (L < 0 || L > e->max_context) return;
    e->L = L;
    for (int i = 0; i < e->m->n_token; i++) {
        slot *z = &e->slots[i];
        if (z->k && z->k->at_context) z->k->at_context(&z->a, L, table_of_slot(e, z));
    }
}

int ciot_token_exec_phases(const ciot_token_exec *e, int i) {
    const slot *z = &e->slots[i];
    if (!z->k) return 0;
    return z->need.copies ? z->need.copies * z->sub_phases : z->k->phases(&z->a);
}

void ciot_token_exec_run(const ciot_token_exec *e, int i, int phase, int part, int parts) {
    const slot *z = &e->slots[i];
    if (!z->k) return;
    if (!z->need.copies) {
        ciot_token_run(z->k, e->ops, &z->a, phase, part, parts);
        return;
    }
    ciot_token_args a = z->a;
    z->k->copy_at(&a, phase / z->sub_phases);
    ciot_token_run(z->k, e->ops, &a, phase % z->sub_phases, part, parts);
}

void ciot_token_exec_traffic(const ciot_token_exec *e, int i, int L, ciot_op_traffic *t) {
    const slot *z = &e->slots[i];
    memset(t, 0, sizeof *t);
    if (!z->k) return;
    ciot_token_args a = z->a;
    if (z->k->at_context) z->k->at_context(&a, L, table_of_slot(e, z));
    z->k->traffic(&a, t);
    if (z->need.copies) {
        const size_t c = (size_t)z->need.copies;
        t->weights *= c, t->state_read *= c, t->state_written *= c, t->kv_read *= c, t->kv_written *= c;
        t->act_read *= c, t->act_written *= c, t->fmas *= c, t->widened *= c;
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
