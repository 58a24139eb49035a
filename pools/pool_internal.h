/* What the two pool kinds share: the common header every pool starts with, the span slots, and the
 * per-kind entry points pool.c dispatches to. Private to pools/. */
#ifndef CIOT_POOL_INTERNAL_H
#define CIOT_POOL_INTERNAL_H

#include "os.h"
#include "pool.h"
#include "priority.h"

/* One thread's span on its own cache line, so recording it does not bounce a line between threads. */
typedef struct {
    _Alignas(64) ciot_span span;
} ciot_span_slot;

struct ciot_pool {
    ciot_pool_kind kind;
    int threads;
    int timing;                 /* record spans and the job window */
    int pin;                    /* pin every thread (the caller to core 0 for the pool's lifetime) */
    int spin;                   /* spins before a waiting thread yields */
    void *caller_binding;       /* the caller's binding before the pool pinned it, restored on destroy */
    ciot_priority_saved caller_priority;
    ciot_pool_info info;
    ciot_span_slot *slots;      /* one per thread, written by that thread during a job */
    ciot_span *spans;           /* contiguous copy handed out by ciot_pool_spans */
    uint64_t job_start_ns, job_end_ns;
    void (*run)(ciot_pool *p, ciot_task_fn fn, void *arg);
    void (*destroy)(ciot_pool *p);
};

/* Fills the common header (slots and spans allocated), pins the caller as thread 0 and raises its
 * priority when asked (threads created afterwards inherit both); the kind fills run and destroy. */
ciot_status ciot_pool_base_init(ciot_pool *p, ciot_pool_kind kind, const ciot_pool_opts *opts);
/* Gives the caller back its binding and priority and frees the header's arrays (not p itself). */
void ciot_pool_base_free(ciot_pool *p);

/* Runs fn as thread t and records its span when timing is on. */
void ciot_pool_run_one(ciot_pool *p, ciot_task_fn fn, void *arg, int t);

/* Spins a waiting thread does before it starts yielding: the requested count, or a default that
 * shrinks when threads outnumber the cores, so spinners do not hold cores the workers need. */
int ciot_pool_spin_limit(const ciot_pool_opts *opts);

/* Blocks the stop signals in the calling thread (*saved: its mask before) so the threads it creates until
 * ciot_pool_unblock_stop inherit them blocked: a new thread takes its creator's mask. */
void ciot_pool_block_stop(ciot_os_stopmask *saved);
void ciot_pool_unblock_stop(const ciot_os_stopmask *saved);

ciot_status ciot_pool_persistent_create(const ciot_pool_opts *opts, ciot_pool **out);
ciot_status ciot_pool_spawn_create(const ciot_pool_opts *opts, ciot_pool **out);

#endif
