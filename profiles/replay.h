/* The replay engine: every op of a model token runs as the runtime would run it on a pool (static
 * slices, atomic chunks with two barriers, or fused matvecs), each reading its own cold weights, and
 * per op and per thread the time spent working is kept apart from the time spent at the barrier. */
#ifndef CIOT_REPLAY_H
#define CIOT_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "kernel.h"
#include "model.h"
#include "pool.h"
#include "probe_bw.h"
#include "status.h"
#include "token_exec.h"

typedef enum { CIOT_DISPATCH_STATIC, CIOT_DISPATCH_CHUNKS, CIOT_DISPATCH_FUSED } ciot_dispatch;
enum { CIOT_DISPATCH_N = 3 };
const char *ciot_dispatch_name(ciot_dispatch d);

/* full: the whole model in memory, one place per op; ring: a region of at least 4x the last-level
 * cache the ops take turns through, so each op's weights were evicted since it last ran. */
typedef enum { CIOT_MEMORY_FULL, CIOT_MEMORY_RING } ciot_memory;

typedef struct {
    const ciot_model *model;
    int n_ops;                  /* replay the first n_ops ops */
    const ciot_kernel *kernel;  /* gemv, or gemm for batch > 1 */
    int batch;                  /* activation rows (1: decode) */
    int chunk;                  /* tiles per chunk in chunks dispatch */
    ciot_memory memory;
    size_t ring_bytes;          /* ring: the region's size (ciot_replay_ring_bytes gives the default) */
    int straggler;              /* thread delayed at every op, -1 for none */
    double straggler_us;
    size_t prefetch;            /* the kernels' software prefetch, bytes ahead (0: off; ciot_mm.prefetch) */
    ciot_pool *fill_pool;       /* first-touches and fills the weights in its static page split (NULL: caller) */
    int small_pages;            /* 1: no transparent huge pages for the weights */
    ciot_token_exec *exec;      /* the ops between the matvecs (the caller's): the whole token; NULL: matvecs only */
} ciot_replay_opts;

/* One matvec as a dispatch runs it: one op, or in fused dispatch a run of fused ops. */
typedef struct {
    char name[160];             /* the op's name; fused: "blk.3.attn_q+attn_k+attn_v" */
    char kind[96];              /* the name's kind part(s), e.g. "ffn_gate+ffn_up" */
    int first_op, n_ops;        /* model ops covered */
    int rows, K;
    int lm_head;
    size_t bytes;               /* packed weight bytes (scales included) */
    const ciot_kernel *kernel;  /* the op's own kernel (per format, model.h), or the replay's */
    int group;                  /* memory group (a fuse group, or the op alone) */
    size_t offset;              /* bytes from its group's start */
    ciot_step_kind tok;         /* CIOT_STEP_MATVEC, or the kind of an op between the matvecs */
    int token_step;             /* an op's index in the model's token list (-1: a matvec) */
    ciot_op_traffic traffic;    /* an op's bytes moved by what they are (bytes is their total); a matvec: weights */
    ciot_bw_kind ruler;         /* the probe its GB/s is paired with (replay_ruler.h); a matvec: read */
} ciot_replay_step;

/* What one token of one dispatch measured, per step (and per step x thread: [s * threads + t]), in ns.
 * busy: the thread's spans; wait: job end - span end, summed over the step's jobs; start: span start -
 * job start (wake-up); injected: the straggler delay inside busy. */
typedef struct {
    uint64_t token_ns;
    uint64_t *wall_ns;
    uint64_t *busy_ns, *wait_ns, *start_ns, *injected_ns;
} ciot_replay_record;

typedef struct ciot_replay ciot_replay;

/* Memory a replay needs, without allocating: the whole model (groups 64-byte aligned), the largest
 * group, and the default ring: max(4 x last-level cache, 1 GiB) + the largest group. A sum that would
 * overflow is SIZE_MAX (the parser's 2^62-weight limit keeps real models far below). Each op is sized
 * in its own kernel's layout (model.h), l for ops without one. */
void ciot_replay_sizes(const ciot_model *m, int n_ops, const ciot_layout *l, size_t *full_bytes, size_t *max_group,
                       size_t *ring_bytes);

/* Allocates the weights (full or ring) and activations; CIOT_E_NOMEM when they do not fit. */
ciot_status ciot_replay_create(const ciot_replay_opts *o, int threads, ciot_replay **out);
void ciot_replay_destroy(ciot_replay *r);

int ciot_replay_steps(const ciot_replay *r, ciot_dispatch d, const ciot_replay_step **steps);
/* A copy of dispatch d's steps (free it) with every op's bytes at context L: what a run at L moves. */
ciot_status ciot_replay_steps_at(const ciot_replay *r, ciot_dispatch d, int L, ciot_replay_step **copy);
/* The whole token: every attention from now on reads a KV cache of L positions (ciot_token_exec). */
void ciot_replay_set_context(ciot_replay *r, int L);
int ciot_replay_whole_token(const ciot_replay *r);  /* 1: the ops between the matvecs run too */
size_t ciot_replay_weight_bytes(const ciot_replay *r);  /* packed weight bytes one token reads */
size_t ciot_replay_memory_bytes(const ciot_replay *r);  /* the weight region allocated */
double ciot_replay_huge_fraction(const ciot_replay *r); /* its share backed by huge pages, -1 unknown */
/* Ops whose weights are the model's real bytes (GGUF, full memory); the others hold drawn bytes. */
int ciot_replay_real_ops(const ciot_replay *r);

ciot_status ciot_replay_record_alloc(ciot_replay_record *rec, int steps, int threads);
void ciot_replay_record_free(ciot_replay_record *rec);

/* Runs one token in dispatch d on pool p (threads as created). With rec, the pool's timing is on and
 * every step is recorded; with rec NULL, timing is off and only the token's time is returned. */
uint64_t ciot_replay_token(ciot_replay *r, ciot_pool *p, ciot_dispatch d, ciot_replay_record *rec);

#endif
