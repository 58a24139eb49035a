/* The ops of a whole token between its matvecs (kernels/ops/token_ops.h), at the model's sizes: their
 * memory (the DeltaNet states, the KV caches of every attention block at the largest context, the state
 * snapshot, scratch, activations), and each op's phases as pool jobs. The matvecs are replay.c's. */
#ifndef CIOT_TOKEN_EXEC_H
#define CIOT_TOKEN_EXEC_H

#include <stddef.h>
#include "model.h"
#include "pool.h"
#include "status.h"
#include "token_ops.h"

/* Bytes the ops of a whole token need, by what they hold. */
typedef struct {
    size_t state;       /* every DeltaNet block's recurrent and conv state, back to back */
    size_t snapshot;    /* the state copies' destination: copies x state */
    size_t kv;          /* every attention block's K and V caches, context + 1 positions */
    size_t other;       /* norm and conv weights, embedding rows, rope table, activations, scratch */
} ciot_token_memory;

/* The memory of the token's ops for a largest context of max_context positions; CIOT_E_ARG with why
 * when a step cannot run (a state copy with no DeltaNet state, a shape its op refuses). A sum past
 * SIZE_MAX saturates. */
ciot_status ciot_token_memory_of(const ciot_model *m, int max_context, ciot_token_memory *mem, char *why,
                                 size_t why_len);
static inline size_t ciot_token_memory_total(const ciot_token_memory *t) {
    const size_t parts[] = {t->state, t->snapshot, t->kv, t->other};
    size_t s = 0;
    for (int i = 0; i < 4; i++) s = s > SIZE_MAX - parts[i] ? SIZE_MAX : s + parts[i];
    return s;
}

typedef struct ciot_token_exec ciot_token_exec;

/* Allocates and fills it all (the KV caches as max_context cached positions of drawn fp16 values, the
 * states with drawn values), first-touched by pool fill (NULL: the caller's thread). ops: the version
 * of every kind (ciot_token_ops_best()). */
ciot_status ciot_token_exec_create(const ciot_model *m, int max_context, const ciot_token_ops *ops, ciot_pool *fill,
                                   ciot_token_exec **out, char *why, size_t why_len);
void ciot_token_exec_destroy(ciot_token_exec *e);
/* The KV length L of every attention (and the rope position) from now on, 0 <= L <= max_context. */
void ciot_token_exec_set_context(ciot_token_exec *e, int L);
/* The software-prefetch policy of the ops that stream a state (DeltaNet's rows), bytes ahead (0: none), as
 * the matvecs' (--prefetch); none until set. */
void ciot_token_exec_set_prefetch(ciot_token_exec *e, size_t bytes);
/* Step i of the model's token list (not a matvec): its pool jobs, one phase each, and its bytes moved at
 * context L. */
int ciot_token_exec_phases(const ciot_token_exec *e, int i);
void ciot_token_exec_run(const ciot_token_exec *e, int i, int phase, int part, int parts);
void ciot_token_exec_traffic(const ciot_token_exec *e, int i, int L, ciot_op_traffic *t);
const char *ciot_token_exec_ops_name(const ciot_token_exec *e);
const ciot_token_ops *ciot_token_exec_ops(const ciot_token_exec *e);
/* The regions, for the tests: which 0 the DeltaNet states, 1 their snapshot, 2 the KV caches. */
const unsigned char *ciot_token_exec_region(const ciot_token_exec *e, int which, size_t *bytes);

#endif
