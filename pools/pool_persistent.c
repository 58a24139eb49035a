/* Persistent pool: threads-1 workers created and pinned once; they wait for a job by spinning on an
 * atomic generation counter (then yielding), the caller works as thread 0, and one atomic count of
 * finished workers is the job's only barrier. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "os.h"
#include "pin.h"
#include "place.h"
#include "pool_internal.h"
#include "spin.h"

typedef struct persistent_pool persistent_pool;

typedef struct {
    persistent_pool *pool;
    int thread;
} worker_arg;

struct persistent_pool {
    ciot_pool base;
    ciot_os_thread *workers;    /* threads 1 .. threads-1 */
    worker_arg *args;
    int started;                /* workers actually created */
    ciot_task_fn fn;            /* the job; written by the caller before the generation is bumped */
    void *arg;
    int stop;
    /* Each hot counter on its own line: workers poll one, the caller polls the other. */
    _Alignas(64) atomic_uint generation;
    _Alignas(64) atomic_int finished;
    _Alignas(64) atomic_int ready;
    atomic_int pin_failures;
};

static void worker_main(void *v) {
    worker_arg *a = v;
    persistent_pool *pp = a->pool;
    if (pp->base.pin && ciot_place_pin_self(a->thread, pp->base.threads) != CIOT_OK)
        atomic_fetch_add_explicit(&pp->pin_failures, 1, memory_order_relaxed);
    /* Read the generation before announcing readiness: no job is published until all are ready. */
    unsigned seen = atomic_load_explicit(&pp->generation, memory_order_acquire);
    atomic_fetch_add_explicit(&pp->ready, 1, memory_order_release);
    for (;;) {
        seen = ciot_wait_change(&pp->generation, seen, pp->base.spin);
        if (pp->stop) break;
        ciot_pool_run_one(&pp->base, pp->fn, pp->arg, a->thread);
        atomic_fetch_add_explicit(&pp->finished, 1, memory_order_release);
    }
}

static void persistent_run(ciot_pool *p, ciot_task_fn fn, void *arg) {
    persistent_pool *pp = (persistent_pool *)p;
    if (p->timing) p->job_start_ns = ciot_now_ns();
    pp->fn = fn;
    pp->arg = arg;
    atomic_store_explicit(&pp->finished, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&pp->generation, 1, memory_order_release);
    ciot_pool_run_one(p, fn, arg, 0);
    ciot_wait_equal(&pp->finished, pp->started, p->spin);
    if (p->timing) p->job_end_ns = ciot_now_ns();
}

static void stop_workers(persistent_pool *pp) {
    pp->stop = 1;
    atomic_fetch_add_explicit(&pp->generation, 1, memory_order_release);
    for (int i = 0; i < pp->started; i++) ciot_os_thread_join(&pp->workers[i]);
    pp->started = 0;
}

static void persistent_destroy(ciot_pool *p) {
    persistent_pool *pp = (persistent_pool *)p;
    stop_workers(pp);
    ciot_pool_base_free(p);
    free(pp->workers);
    free(pp->args);
    ciot_os_aligned_free(pp);
}

ciot_status ciot_pool_persistent_create(const ciot_pool_opts *opts, ciot_pool **out) {
    persistent_pool *pp = ciot_os_aligned_alloc(64, (sizeof(persistent_pool) + 63) / 64 * 64);
    if (!pp) return CIOT_E_NOMEM;
    memset(pp, 0, sizeof *pp);
    ciot_status st = ciot_pool_base_init(&pp->base, CIOT_POOL_PERSISTENT, opts);
    if (st != CIOT_OK) {
        ciot_os_aligned_free(pp);
        return st;
    }
    pp->base.run = persistent_run;
    pp->base.destroy = persistent_destroy;
    atomic_init(&pp->generation, 0);
    atomic_init(&pp->finished, 0);
    atomic_init(&pp->ready, 0);
    atomic_init(&pp->pin_failures, 0);

    int n = opts->threads - 1;
    pp->workers = calloc((size_t)(n > 0 ? n : 1), sizeof *pp->workers);
    pp->args = calloc((size_t)(n > 0 ? n : 1), sizeof *pp->args);
    if (!pp->workers || !pp->args) {
        persistent_destroy(&pp->base);
        return CIOT_E_NOMEM;
    }
    ciot_os_stopmask saved;
    ciot_pool_block_stop(&saved);
    for (int i = 0; i < n; i++) {
        pp->args[i] = (worker_arg){pp, i + 1};
        if (ciot_os_thread_start(&pp->workers[i], worker_main, &pp->args[i]) != 0) {
            ciot_pool_unblock_stop(&saved);
            persistent_destroy(&pp->base);
            return CIOT_E_SYS;
        }
        pp->started++;
    }
    ciot_pool_unblock_stop(&saved);
    ciot_wait_equal(&pp->ready, n, pp->base.spin);
    if (pp->base.pin) pp->base.info.pinned = pp->base.info.pinned && atomic_load(&pp->pin_failures) == 0;
    *out = &pp->base;
    return CIOT_OK;
}
