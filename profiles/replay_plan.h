/* The memory a replay needs, settled before any work: the whole token or the matvecs only, the memory of
 * the whole token's ops at the largest context, and full or ring weights, each beside the probe buffer in
 * the memory available. A plan that cannot fit is refused in one line. */
#ifndef CIOT_REPLAY_PLAN_H
#define CIOT_REPLAY_PLAN_H

#include <stddef.h>
#include "model.h"
#include "output.h"
#include "replay.h"
#include "token_exec.h"

enum { CIOT_MEMORY_AUTO = CIOT_MEMORY_RING + 1 };   /* --memory auto: full when it fits and is cold, else ring */

typedef struct {
    int matvecs_only, batch;
    const int *context;             /* the whole token's KV lengths */
    int n_context;
    int memory;                     /* ciot_memory, or CIOT_MEMORY_AUTO */
    size_t ring_bytes;              /* the ring's size asked for (0: the default) */
    size_t probe_bytes;             /* the probe buffer beside it all */
} ciot_replay_ask;

typedef struct {
    int whole;                      /* 1: the ops between the matvecs run too */
    char why_not[CIOT_WHY_MAX + 1100];  /* not whole, and not asked for: why, naming the model's path and its
                                         * note ("" otherwise) */
    int largest_context;
    ciot_token_memory token;        /* whole: the ops' memory at the largest context */
    ciot_memory memory;
    size_t ring_bytes;              /* the ring's size (the default, or the one asked for) */
    size_t region_bytes;            /* the weights allocated: the whole model or the ring */
    int cold;                       /* every op's weights start outside the caches */
} ciot_replay_plan;

/* The whole token or the matvecs only, and its ops' memory beside the probe; CIOT_E_ARG with why when it
 * does not fit (or the model's token cannot be planned). */
ciot_status ciot_replay_plan_token(const ciot_model *m, const ciot_replay_ask *a, ciot_replay_plan *p, char *why,
                                   size_t why_len);
/* Then full or ring for the first n_ops ops (l: the layout of ops without a kernel of their own), beside the
 * probe and the token's memory; CIOT_E_ARG with why when it does not fit. */
ciot_status ciot_replay_plan_memory(const ciot_model *m, int n_ops, const ciot_layout *l, const ciot_replay_ask *a,
                                    ciot_replay_plan *p, char *why, size_t why_len);

#endif
