/* Spawn-per-call pool: every job creates threads-1 threads (pinned when asked), the caller works as
 * thread 0, and joining them is the barrier, so thread creation lands inside the timed region. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pin.h"
#include "place.h"
#include "pool_internal.h"

typedef struct spawn_pool spawn_pool;

typedef struct {
    spawn_pool *pool;
    int thread;
    int created;
    ciot_task_fn fn;
    void *arg;
} spawn_arg;

struct spawn_pool {
    ciot_pool base;
    ciot_os_thread *threads;    /* threads 1 .. threads-1 of the current job */
    spawn_arg *args;
    atomic_int pin_failures;
};

static void spawned_main(void *v) {
    spawn_arg *a = v;
    spawn_pool *sp = a->pool;
    if (sp->base.pin && ciot_place_pin_self(a->thread, sp->base.threads) != CIOT_OK)
        atomic_fetch_add_explicit(&sp->pin_failures, 1, memory_order_relaxed);
    ciot_pool_run_one(&sp->base, a->fn, a->arg, a->thread);
}

static void spawn_run(ciot_pool *p, ciot_task_fn fn, void *arg) {
    spawn_pool *sp = (spawn_pool *)p;
    int n = p->threads - 1;
    if (p->timing) p->job_start_ns = ciot_now_ns();
    ciot_os_stopmask saved;
    ciot_pool_block_stop(&saved);
    for (int i = 0; i < n; i++) {
        sp->args[i] = (spawn_arg){sp, i + 1, 0, fn, arg};
        sp->args[i].created = ciot_os_thread_start(&sp->threads[i], spawned_main, &sp->args[i]) == 0;
    }
    ciot_pool_unblock_stop(&saved);
    ciot_pool_run_one(p, fn, arg, 0);
    for (int i = 0; i < n; i++) {
        if (sp->args[i].created)
            ciot_os_thread_join(&sp->threads[i]);
        else /* the OS refused a thread: its share still has to run, so the caller does it */
            ciot_pool_run_one(p, fn, arg, i + 1);
    }
    if (p->timing) p->job_end_ns = ciot_now_ns();
    if (p->pin && atomic_load_explicit(&sp->pin_failures, memory_order_relaxed) != 0) p->info.pinned = 0;
}

static void spawn_destroy(ciot_pool *p) {
    spawn_pool *sp = (spawn_pool *)p;
    ciot_pool_base_free(p);
    free(sp->threads);
    free(sp->args);
    free(sp);
}

ciot_status ciot_pool_spawn_create(const ciot_pool_opts *opts, ciot_pool **out) {
    spawn_pool *sp = calloc(1, sizeof *sp);
    if (!sp) return CIOT_E_NOMEM;
    ciot_status st = ciot_pool_base_init(&sp->base, CIOT_POOL_SPAWN, opts);
    if (st != CIOT_OK) {
        free(sp);
        return st;
    }
    sp->base.run = spawn_run;
    sp->base.destroy = spawn_destroy;
    atomic_init(&sp->pin_failures, 0);
    int n = opts->threads - 1;
    sp->threads = calloc((size_t)(n > 0 ? n : 1), sizeof *sp->threads);
    sp->args = calloc((size_t)(n > 0 ? n : 1), sizeof *sp->args);
    if (!sp->threads || !sp->args) {
        spawn_destroy(&sp->base);
        return CIOT_E_NOMEM;
    }
    *out = &sp->base;
    return CIOT_OK;
}
