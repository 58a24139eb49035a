/* Runs one kernel over a pool: whole tiles (4-row groups or rows), a static slice per thread or
 * dynamic chunks from an atomic counter; bench and the replay both call it. The replay's hooks ride
 * along: a per-thread prologue and a straggler's delay. */
#ifndef CIOT_PARALLEL_H
#define CIOT_PARALLEL_H

#include <stdint.h>
#include "kernel.h"
#include "pool.h"

typedef enum { CIOT_SPLIT_STATIC, CIOT_SPLIT_CHUNKS } ciot_split_mode;

/* What a caller adds to the loop; all zero: nothing. */
typedef struct {
    /* Runs on thread t before it takes any tile, on the thread's own copy of the call's mm (e.g. to point
     * x at activations the thread quantizes itself). NULL: every thread reads the call's mm. */
    void (*prologue)(void *arg, int t, ciot_mm *mm);
    void *arg;
    /* Thread `straggler` busy-waits straggler_us inside its work at every call, as a thread preempted by
     * the OS loses the time: static, before its slice; chunks, holding its first chunk (after, when it
     * gets none). straggler_us <= 0: no delay. */
    int straggler;
    double straggler_us;
    uint64_t *injected_ns;      /* the delay the straggler took, ns, written by it (NULL: not kept) */
} ciot_parallel_hooks;

/* chunk: tiles per chunk for CIOT_SPLIT_CHUNKS (0: a default of 16). hooks: NULL for none. */
void ciot_run_parallel(ciot_pool *p, const ciot_kernel *k, const ciot_mm *mm, ciot_split_mode mode, int chunk,
                       const ciot_parallel_hooks *hooks);

/* One pool job: the threads quantize batch rows of K activations together into one shared buffer q (its
 * K-blocks, or groups of rows for a multi-row format, split statically). */
void ciot_quantize_parallel(ciot_pool *p, const ciot_act_format *a, const float *x, void *q, int batch, int K);

#endif
