/* Thread pools with one interface: a persistent pool (workers created and pinned once, spinning on a
 * generation counter) and a spawn-per-call pool (threads created inside every call, to show that cost). */
#ifndef CIOT_POOL_H
#define CIOT_POOL_H

#include <stdint.h>
#include "status.h"

typedef enum { CIOT_POOL_PERSISTENT, CIOT_POOL_SPAWN } ciot_pool_kind;

typedef struct {
    int threads;            /* >= 1; may exceed the core count */
    int pin;                /* pin each thread to its own core (hwloc), round-robin past the core count */
    int raise_priority;     /* try to raise the scheduling priority; the result is in ciot_pool_info */
    int spin;               /* spins before a waiting worker yields; 0 = default */
} ciot_pool_opts;

typedef struct {
    int threads;
    int pinned;             /* 1 when every thread was pinned */
    int priority_raised;    /* 1 when the priority was raised */
    char priority[64];      /* what was asked and what the OS did, for run metadata */
} ciot_pool_info;

/* Per-thread span of the last job, monotonic nanoseconds: when the thread began and finished its
 * work; job_start is when the caller published the job, job_end when the barrier released it. */
typedef struct {
    uint64_t start_ns, end_ns;
} ciot_span;

typedef struct ciot_pool ciot_pool;

/* fn(arg, thread, nthreads) runs once on every thread; thread 0 is the caller. */
typedef void (*ciot_task_fn)(void *arg, int thread, int nthreads);

ciot_status ciot_pool_create(ciot_pool_kind kind, const ciot_pool_opts *opts, ciot_pool **out);
/* Runs one job on all threads and returns when every thread has finished (one barrier). */
void ciot_pool_run(ciot_pool *p, ciot_task_fn fn, void *arg);
void ciot_pool_destroy(ciot_pool *p);

int ciot_pool_threads(const ciot_pool *p);
ciot_pool_kind ciot_pool_get_kind(const ciot_pool *p);
void ciot_pool_get_info(const ciot_pool *p, ciot_pool_info *info);
/* Spans of the last job, one per thread; timing can be turned off to measure its own cost. */
const ciot_span *ciot_pool_spans(const ciot_pool *p);
void ciot_pool_job_window(const ciot_pool *p, uint64_t *job_start_ns, uint64_t *job_end_ns);
void ciot_pool_set_timing(ciot_pool *p, int on);

uint64_t ciot_now_ns(void);

/* Every thread a pool creates runs with the stop signals (SIGINT, SIGTERM, SIGHUP: os.h) blocked, so they
 * are taken by the threads the program made itself (ciot: the main thread alone, which is what
 * harness/io/tmpfiles.h needs). */

#endif
