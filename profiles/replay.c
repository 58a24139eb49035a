/* The replay engine: steps (ops, or fused runs of ops) laid out in weight memory, and one token run
 * on a pool in the three dispatches, with the activation quantization a runtime does at every op. */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "os.h"
#include "parallel.h"
#include "replay_ruler.h"
#include "rules.h"
#include "weights.h"

struct ciot_replay {
    ciot_replay_opts o;
    int threads;
    ciot_replay_step *steps[CIOT_DISPATCH_N];
    int n_steps[CIOT_DISPATCH_N];
    int n_groups;
    size_t *group_bytes;
    size_t weight_bytes;                    /* per token */
    ciot_weight_region region;
    size_t cursor;                          /* next free byte of the region */
    int max_k, max_rows;
    float *xf;                              /* batch x max_k float activations */
    unsigned char *xq;                      /* shared quantized activations (chunks dispatch) */
    unsigned char **xq_own;                 /* one per thread (static and fused dispatch) */
    float *y;
    int real_ops;                           /* ops holding the model's real bytes */
    int timing;                             /* the pool's timing state as last set */
    uint64_t injected_ns;                   /* the straggler's delay in the last job (written by it) */
};

const char *ciot_dispatch_name(ciot_dispatch d) {
    static const char *const names[CIOT_DISPATCH_N] = {"static", "chunks", "fused"};
    return (unsigned)d < CIOT_DISPATCH_N ? names[d] : "unknown";
}

/* Rounded up to 64 bytes; SIZE_MAX stays SIZE_MAX (a saturated sum). */
static size_t align64(size_t x) { return x > SIZE_MAX - 63 ? SIZE_MAX : (x + 63) & ~(size_t)63; }

/* Op i continues the memory group of op i - 1: both are in one fuse group. */
static int joins_previous(const ciot_model *m, int i) {
    return i > 0 && m->ops[i].fuse >= 0 && m->ops[i].fuse == m->ops[i - 1].fuse;
}

/* Groups of the first n ops (a fuse run or one op alone), and each op's group into group_of. */
static int count_groups(const ciot_model *m, int n_ops, int *group_of) {
    int g = -1;
    for (int i = 0; i < n_ops; i++) {
        if (!joins_previous(m, i)) g++;
        if (group_of) group_of[i] = g;
    }
    return g + 1;
}

/* a + b, or SIZE_MAX when that overflows (a size nothing can allocate). */
static size_t add_sat(size_t a, size_t b) {
    size_t r;
    return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

void ciot_replay_sizes(const ciot_model *m, int n_ops, const ciot_layout *l, size_t *full_bytes, size_t *max_group,
                       size_t *ring_bytes) {
    size_t full = 0, group = 0, biggest = 0;
    for (int i = 0; i < n_ops && i < m->n_ops; i++) {
        if (!joins_previous(m, i)) {
            full = add_sat(full, align64(group));
            group = 0;
        }
        group = add_sat(group, ciot_layout_bytes(ciot_op_layout(&m->ops[i], l), m->ops[i].rows, m->ops[i].K));
        if (group > biggest) biggest = group;
    }
    full = add_sat(full, align64(group));
    const size_t cold = ciot_cold_bytes();
    if (full_bytes) *full_bytes = full;
    if (max_group) *max_group = align64(biggest);
    if (ring_bytes) *ring_bytes = add_sat(cold, align64(biggest));
}

static void step_names(ciot_replay_step *s, const ciot_model *m) {
    const ciot_model_op *op = &m->ops[s->first_op];
    snprintf(s->name, sizeof s->name, "%s", op->name);
    snprintf(s->kind, sizeof s->kind, "%s", ciot_op_kind(op->name));
    for (int i = 1; i < s->n_ops; i++) {
        const char *kind = ciot_op_kind(op[i].name);
        size_t n = strlen(s->name), k = strlen(s->kind);
        snprintf(s->name + n, sizeof s->name - n, "+%s", kind);
        snprintf(s->kind + k, sizeof s->kind - k, "+%s", kind);
    }
}

/* One op between the matvecs as a step, its bytes at context L. */
static void op_step(const ciot_replay *r, int i, int L, ciot_replay_step *s) {
    const ciot_token_step *t = &r->o.model->token[i];
    *s = (ciot_replay_step){.first_op = -1, .group = -1, .tok = t->kind, .token_step = i};
    snprintf(s->name, sizeof s->name, "%s", t->name);
    snprintf(s->kind, sizeof s->kind, "%s", ciot_step_kind_name(t->kind));
    ciot_token_exec_traffic(r->o.exec, i, L, &s->traffic);
    s->bytes = ciot_op_traffic_total(&s->traffic);
    s->ruler = ciot_step_ruler(t->kind, ciot_token_exec_ops(r->o.exec)->copy_streams);
}

/* The whole token: the model's token list in order, each matvec as the step of its dispatch (a fused
 * run once, where its first op sits), up to the first matvec past n_ops, and the ops between them. */
static ciot_status build_program(ciot_replay *r) {
    const ciot_model *m = r->o.model;
    ciot_replay_step *prog[2];
    int n[2] = {0, 0};
    for (int v = 0; v < 2; v++)
        if (!(prog[v] = calloc((size_t)m->n_token, sizeof *prog[v]))) {
            if (v) free(prog[0]);
            return CIOT_E_NOMEM;
        }
    const ciot_replay_step *ops = r->steps[CIOT_DISPATCH_STATIC], *fused = r->steps[CIOT_DISPATCH_FUSED];
    for (int i = 0; i < m->n_token; i++) {
        const ciot_token_step *t = &m->token[i];
        if (t->kind != CIOT_STEP_MATVEC) {
            op_step(r, i, 0, &prog[0][n[0]++]);
            prog[1][n[1]++] = prog[0][n[0] - 1];
            continue;
        }
        if (t->op >= r->o.n_ops) break;
        prog[0][n[0]++] = ops[t->op];
        const int g = ops[t->op].group;
        if (fused[g].first_op == t->op) prog[1][n[1]++] = fused[g];
    }
    free(r->steps[CIOT_DISPATCH_STATIC]);
    free(r->steps[CIOT_DISPATCH_FUSED]);
    r->steps[CIOT_DISPATCH_STATIC] = r->steps[CIOT_DISPATCH_CHUNKS] = prog[0];
    r->steps[CIOT_DISPATCH_FUSED] = prog[1];
    r->n_steps[CIOT_DISPATCH_STATIC] = r->n_steps[CIOT_DISPATCH_CHUNKS] = n[0];
    r->n_steps[CIOT_DISPATCH_FUSED] = n[1];
    return CIOT_OK;
}

/* Ops as steps (static, chunks) and fuse groups as steps (fused), with their places in a group. */
static ciot_status build_steps(ciot_replay *r) {
    const ciot_model *m = r->o.model;
    const int n = r->o.n_ops;
    int *group_of = malloc((size_t)n * sizeof *group_of);
    if (!group_of) return CIOT_E_NOMEM;
    r->n_groups = count_groups(m, n, group_of);
    r->group_bytes = calloc((size_t)r->n_groups, sizeof *r->group_bytes);
    ciot_replay_step *ops = calloc((size_t)n, sizeof *ops), *fused = calloc((size_t)r->n_groups, sizeof *fused);
    if (!r->group_bytes || !ops || !fused) {
        free(group_of), free(ops), free(fused);
        return CIOT_E_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        const ciot_model_op *op = &m->ops[i];
        const ciot_kernel *k = op->kernel ? op->kernel : r->o.kernel;
        const int g = group_of[i];
        ciot_replay_step *s = &ops[i], *f = &fused[g];
        *s = (ciot_replay_step){.first_op = i, .n_ops = 1, .rows = op->rows, .K = op->K, .lm_head = op->lm_head,
                                .bytes = ciot_layout_bytes(k->layout, op->rows, op->K), .kernel = k, .group = g,
                                .offset = r->group_bytes[g]};
        step_names(s, m);
        if (f->n_ops == 0) *f = (ciot_replay_step){.first_op = i, .K = op->K, .kernel = k, .group = g};
        f->n_ops++;
        f->rows += op->rows;
        f->bytes += s->bytes;
        f->lm_head |= op->lm_head;
        r->group_bytes[g] += s->bytes;
        r->weight_bytes += s->bytes;
        if (op->K > r->max_k) r->max_k = op->K;
    }
    for (int g = 0; g < r->n_groups; g++) {
        step_names(&fused[g], m);
        if (fused[g].rows > r->max_rows) r->max_rows = fused[g].rows;
    }
    free(group_of);
    r->steps[CIOT_DISPATCH_STATIC] = ops;
    r->steps[CIOT_DISPATCH_CHUNKS] = ops;   /* shared with static */
    r->steps[CIOT_DISPATCH_FUSED] = fused;
    r->n_steps[CIOT_DISPATCH_STATIC] = r->n_steps[CIOT_DISPATCH_CHUNKS] = n;
    r->n_steps[CIOT_DISPATCH_FUSED] = r->n_groups;
    for (int i = 0; i < n; i++) ops[i].token_step = -1, ops[i].traffic.weights = ops[i].bytes;
    for (int g = 0; g < r->n_groups; g++) fused[g].token_step = -1, fused[g].traffic.weights = fused[g].bytes;
    return r->o.exec ? build_program(r) : CIOT_OK;
}

/* Full memory: every op that carries its real source bytes (a GGUF tensor) is packed into its place (the
 * places group_base gives a token from the region's start), the others keep the drawn bytes. */
static ciot_status fill_real_bytes(ciot_replay *r) {
    const ciot_replay_step *all = r->steps[CIOT_DISPATCH_STATIC];
    size_t group_at = 0;
    int prev = -1;
    for (int s = 0; s < r->n_steps[CIOT_DISPATCH_STATIC]; s++) {
        const ciot_replay_step *step = &all[s];
        if (step->tok != CIOT_STEP_MATVEC) continue;
        const int i = step->first_op;
        const ciot_model_op *op = &r->o.model->ops[i];
        if (prev >= 0 && step->group != all[prev].group) group_at += align64(r->group_bytes[all[prev].group]);
        prev = s;
        if (!op->data || op->format != (int)step->kernel->layout->source) continue;
        void *copy = malloc(op->data_bytes ? op->data_bytes : 1);   /* the file's bytes may be misaligned */
        if (!copy) return CIOT_E_NOMEM;
        memcpy(copy, op->data, op->data_bytes);
        const ciot_status st = ciot_layout_pack(step->kernel->layout, copy, r->region.base + group_at + step->offset,
                                                op->rows, op->K);
        free(copy);
        if (st != CIOT_OK) return st;
        r->real_ops++;
    }
    return CIOT_OK;
}

static ciot_status alloc_activations(ciot_replay *r) {
    /* the quantized buffers hold the largest activation format of the ops' kernels */
    size_t xq = align64(ciot_act_bytes(r->o.kernel->act, r->o.batch, r->max_k));
    for (int i = 0; i < r->o.n_ops; i++) {
        const ciot_kernel *k = r->o.model->ops[i].kernel;
        const size_t need = k ? align64(ciot_act_bytes(k->act, r->o.batch, r->max_k)) : 0;
        if (need > xq) xq = need;
    }
    const size_t xf = (size_t)r->o.batch * (size_t)r->max_k;
    r->xf = ciot_os_aligned_alloc(64, align64(xf * sizeof *r->xf));
    r->xq = ciot_os_aligned_alloc(64, xq);
    r->xq_own = calloc((size_t)r->threads, sizeof *r->xq_own);
    r->y = ciot_os_aligned_alloc(64, align64((size_t)r->o.batch * (size_t)r->max_rows * sizeof *r->y));
    if (!r->xf || !r->xq || !r->xq_own || !r->y) return CIOT_E_NOMEM;
    for (int t = 0; t < r->threads; t++)
        if (!(r->xq_own[t] = ciot_os_aligned_alloc(64, xq))) return CIOT_E_NOMEM;
    /* Values do not change the timing; these stay in (-1, 1) so no block quantizes to all zeros. */
    for (size_t i = 0; i < xf; i++) r->xf[i] = (float)((int)((i * 2654435761u) % 2001) - 1000) * 1e-3f + 1e-4f;
    return CIOT_OK;
}

ciot_status ciot_replay_create(const ciot_replay_opts *o, int threads, ciot_replay **out) {
    *out = NULL;
    if (!o || !o->model || !o->kernel || threads < 1 || o->batch < 1 || o->n_ops < 1 || o->n_ops > o->model->n_ops ||
        o->straggler >= threads)
        return CIOT_E_ARG;
    ciot_replay *r = calloc(1, sizeof *r);
    if (!r) return CIOT_E_NOMEM;
    r->o = *o;
    r->threads = threads;
    r->timing = -1;
    ciot_status st = build_steps(r);
    if (st == CIOT_OK) st = alloc_activations(r);
    if (st == CIOT_OK) {
        size_t full, ring;
        ciot_replay_sizes(o->model, o->n_ops, o->kernel->layout, &full, NULL, &ring);
        if (o->memory == CIOT_MEMORY_RING && o->ring_bytes) ring = o->ring_bytes;
        st = ciot_weight_region_make(o->fill_pool, o->memory == CIOT_MEMORY_FULL ? full : ring, !o->small_pages,
                                     &r->region);
        /* Every group must fit in the region on its own. */
        for (int g = 0; st == CIOT_OK && g < r->n_groups; g++)
            if (r->group_bytes[g] > r->region.bytes) st = CIOT_E_NOMEM;
        if (st == CIOT_OK && o->memory == CIOT_MEMORY_FULL) st = fill_real_bytes(r);
    }
    if (st != CIOT_OK) {
        ciot_replay_destroy(r);
        return st;
    }
    *out = r;
    return CIOT_OK;
}

int ciot_replay_real_ops(const ciot_replay *r) { return r->real_ops; }

void ciot_replay_destroy(ciot_replay *r) {
    if (!r) return;
    free(r->steps[CIOT_DISPATCH_STATIC]);   /* chunks shares it */
    free(r->steps[CIOT_DISPATCH_FUSED]);
    free(r->group_bytes);
    ciot_weight_region_free(&r->region);
    ciot_os_aligned_free(r->xf);
    ciot_os_aligned_free(r->xq);
    if (r->xq_own)
        for (int t = 0; t < r->threads; t++) ciot_os_aligned_free(r->xq_own[t]);
    free(r->xq_own);
    ciot_os_aligned_free(r->y);
    free(r);
}

int ciot_replay_steps(const ciot_replay *r, ciot_dispatch d, const ciot_replay_step **steps) {
    if (steps) *steps = r->steps[d];
    return r->n_steps[d];
}

size_t ciot_replay_weight_bytes(const ciot_replay *r) { return r->weight_bytes; }
size_t ciot_replay_memory_bytes(const ciot_replay *r) { return r->region.bytes; }
double ciot_replay_huge_fraction(const ciot_replay *r) { return r->region.huge_fraction; }

ciot_status ciot_replay_record_alloc(ciot_replay_record *rec, int steps, int threads) {
    memset(rec, 0, sizeof *rec);
    const size_t n = (size_t)steps * (size_t)threads;
    rec->wall_ns = calloc((size_t)steps, sizeof *rec->wall_ns);
    rec->busy_ns = calloc(n, sizeof *rec->busy_ns);
    rec->wait_ns = calloc(n, sizeof *rec->wait_ns);
    rec->start_ns = calloc(n, sizeof *rec->start_ns);
    rec->injected_ns = calloc(n, sizeof *rec->injected_ns);
    if (!rec->wall_ns || !rec->busy_ns || !rec->wait_ns || !rec->start_ns || !rec->injected_ns) {
        ciot_replay_record_free(rec);
        return CIOT_E_NOMEM;
    }
    return CIOT_OK;
}

void ciot_replay_record_free(ciot_replay_record *rec) {
    free(rec->wall_ns);
    free(rec->busy_ns);
    free(rec->wait_ns);
    free(rec->start_ns);
    free(rec->injected_ns);
    memset(rec, 0, sizeof *rec);
}

/* ---- one step on the pool ---- */

/* static and fused: each thread quantizes the activations into its own buffer (cheap next to the
 * weights it reads, and it needs no barrier) before it computes its one contiguous slice. */
typedef struct {
    ciot_replay *r;
    const ciot_act_format *act;
} own_acts;

static void quantize_own(void *arg, int t, ciot_mm *mm) {
    const own_acts *a = arg;
    mm->x = a->r->xq_own[t];
    a->act->quantize(a->r->xf, a->r->xq_own[t], mm->batch, mm->K);
}

/* Adds the last job's spans to the step's per-thread record. */
static void add_spans(ciot_replay *r, ciot_pool *p, ciot_replay_record *rec, int s) {
    uint64_t job_start, job_end;
    ciot_pool_job_window(p, &job_start, &job_end);
    const ciot_span *sp = ciot_pool_spans(p);
    for (int t = 0; t < r->threads; t++) {
        const size_t i = (size_t)s * (size_t)r->threads + (size_t)t;
        rec->busy_ns[i] += sp[t].end_ns - sp[t].start_ns;
        rec->wait_ns[i] += job_end > sp[t].end_ns ? job_end - sp[t].end_ns : 0;
        rec->start_ns[i] += sp[t].start_ns > job_start ? sp[t].start_ns - job_start : 0;
    }
    if (r->o.straggler >= 0)
        rec->injected_ns[(size_t)s * (size_t)r->threads + (size_t)r->o.straggler] += r->injected_ns;
    r->injected_ns = 0;
}

/* The step's weights: groups take consecutive places in the region, wrapping to its start, so every
 * byte of the region is read before any is read again (full: the region is exactly one token). */
static const unsigned char *group_base(ciot_replay *r, int g) {
    if (r->cursor + r->group_bytes[g] > r->region.bytes) r->cursor = 0;
    const unsigned char *base = r->region.base + r->cursor;
    r->cursor += align64(r->group_bytes[g]);
    return base;
}

/* An op between the matvecs: each of its phases one pool job, recorded as a matvec's jobs are. */
typedef struct {
    const ciot_token_exec *e;
    int i, phase;
} op_job;

static void op_task(void *arg, int t, int n) {
    const op_job *j = arg;
    ciot_token_exec_run(j->e, j->i, j->phase, t, n);
}

static void run_op(ciot_replay *r, ciot_pool *p, const ciot_replay_step *st, ciot_replay_record *rec, int s) {
    const uint64_t s0 = rec ? ciot_now_ns() : 0;
    op_job j = {r->o.exec, st->token_step, 0};
    for (const int phases = ciot_token_exec_phases(j.e, j.i); j.phase < phases; j.phase++) {
        ciot_pool_run(p, op_task, &j);
        if (rec) add_spans(r, p, rec, s);
    }
    if (rec) rec->wall_ns[s] = ciot_now_ns() - s0;
}

void ciot_replay_set_context(ciot_replay *r, int L) {
    if (r->o.exec) ciot_token_exec_set_context(r->o.exec, L);
}

int ciot_replay_whole_token(const ciot_replay *r) { return r->o.exec != NULL; }

ciot_status ciot_replay_steps_at(const ciot_replay *r, ciot_dispatch d, int L, ciot_replay_step **copy) {
    const int n = r->n_steps[d];
    if (!(*copy = malloc((size_t)n * sizeof **copy))) return CIOT_E_NOMEM;
    memcpy(*copy, r->steps[d], (size_t)n * sizeof **copy);
    for (int s = 0; s < n; s++)
        if ((*copy)[s].tok != CIOT_STEP_MATVEC) op_step(r, (*copy)[s].token_step, L, &(*copy)[s]);
    return CIOT_OK;
}

uint64_t ciot_replay_token(ciot_replay *r, ciot_pool *p, ciot_dispatch d, ciot_replay_record *rec) {
    const int timing = rec != NULL;
    if (r->timing != timing) ciot_pool_set_timing(p, timing), r->timing = timing;
    if (r->o.memory == CIOT_MEMORY_FULL) r->cursor = 0;
    const ciot_replay_step *steps = r->steps[d];
    const int n = r->n_steps[d];
    if (timing) {
        const size_t cells = (size_t)n * (size_t)r->threads;
        memset(rec->busy_ns, 0, cells * sizeof *rec->busy_ns);
        memset(rec->wait_ns, 0, cells * sizeof *rec->wait_ns);
        memset(rec->start_ns, 0, cells * sizeof *rec->start_ns);
        memset(rec->injected_ns, 0, cells * sizeof *rec->injected_ns);
        r->injected_ns = 0;
    }
    int group = -1;
    const unsigned char *base = NULL;
    const uint64_t t0 = ciot_now_ns();
    for (int s = 0; s < n; s++) {
        const ciot_replay_step *st = &steps[s];
        if (st->tok != CIOT_STEP_MATVEC) {
            run_op(r, p, st, rec, s);
            continue;
        }
        if (st->group != group) base = group_base(r, group = st->group);
        const ciot_kernel *k = st->kernel;
        const ciot_mm mm = {base + st->offset, r->xq, r->y, st->rows, st->K, r->o.batch, st->rows, r->o.prefetch};
        own_acts own = {r, k->act};
        ciot_parallel_hooks h = {NULL, &own, r->o.straggler, r->o.straggler_us, &r->injected_ns};
        const uint64_t s0 = timing ? ciot_now_ns() : 0;
        if (d == CIOT_DISPATCH_CHUNKS) {
            /* the runtime's first barrier: the shared activations complete before any dot product */
            ciot_quantize_parallel(p, k->act, r->xf, r->xq, r->o.batch, st->K);
            if (timing) add_spans(r, p, rec, s);
            ciot_run_parallel(p, k, &mm, CIOT_SPLIT_CHUNKS, r->o.chunk, &h);
        } else {
            h.prologue = quantize_own;
            ciot_run_parallel(p, k, &mm, CIOT_SPLIT_STATIC, 0, &h);
        }
        if (timing) {
            add_spans(r, p, rec, s);
            rec->wall_ns[s] = ciot_now_ns() - s0;
        }
    }
    const uint64_t dt = ciot_now_ns() - t0;
    if (timing) rec->token_ns = dt;
    return dt;
}
