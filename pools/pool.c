/* What both pool kinds share: creation by kind, the caller's pinning and priority, span recording,
 * the accessors, and the monotonic clock. */
#include "pool_internal.h"

#include <stdlib.h>
#include <string.h>
#include "os.h"
#include "pin.h"
#include "place.h"

enum { DEFAULT_SPIN = 1 << 14, OVERSUBSCRIBED_SPIN = 64 };

uint64_t ciot_now_ns(void) { return ciot_os_now_ns(); }

void ciot_pool_block_stop(ciot_os_stopmask *saved) { ciot_os_stop_block(saved); }

/* A stop signal that came meanwhile is pending: it is taken here, in the creating thread. */
void ciot_pool_unblock_stop(const ciot_os_stopmask *saved) { ciot_os_stop_restore(saved); }

int ciot_pool_spin_limit(const ciot_pool_opts *opts) {
    if (opts->spin > 0) return opts->spin;
    const int cpus = ciot_os_cpus_online();
    return (cpus > 0 && opts->threads > cpus) ? OVERSUBSCRIBED_SPIN : DEFAULT_SPIN;
}

ciot_status ciot_pool_create(ciot_pool_kind kind, const ciot_pool_opts *opts, ciot_pool **out) {
    if (!out) return CIOT_E_ARG;
    *out = NULL;
    if (!opts || opts->threads < 1 || opts->spin < 0) return CIOT_E_ARG;
    switch (kind) {
    case CIOT_POOL_PERSISTENT: return ciot_pool_persistent_create(opts, out);
    case CIOT_POOL_SPAWN: return ciot_pool_spawn_create(opts, out);
    }
    return CIOT_E_ARG;
}

ciot_status ciot_pool_base_init(ciot_pool *p, ciot_pool_kind kind, const ciot_pool_opts *opts) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->threads = opts->threads;
    p->timing = 1;
    p->pin = opts->pin != 0;
    p->spin = ciot_pool_spin_limit(opts);
    p->slots = ciot_os_aligned_alloc(64, (size_t)opts->threads * sizeof *p->slots);
    p->spans = calloc((size_t)opts->threads, sizeof *p->spans);
    if (!p->slots || !p->spans) {
        ciot_os_aligned_free(p->slots);
        free(p->spans);
        return CIOT_E_NOMEM;
    }
    memset(p->slots, 0, (size_t)opts->threads * sizeof *p->slots);

    p->info.threads = opts->threads;
    if (opts->raise_priority)
        p->info.priority_raised = ciot_priority_raise(CIOT_POOL_NICE, &p->caller_priority, p->info.priority,
                                                      sizeof p->info.priority);
    else
        strcpy(p->info.priority, "default (not raised)");
    if (p->pin) {
        ciot_binding_save(&p->caller_binding);
        p->info.pinned = ciot_place_pin_self(0, p->threads) == CIOT_OK;
    }
    return CIOT_OK;
}

void ciot_pool_base_free(ciot_pool *p) {
    ciot_binding_restore(p->caller_binding);
    p->caller_binding = NULL;
    ciot_priority_restore(&p->caller_priority);
    ciot_os_aligned_free(p->slots);
    free(p->spans);
}

void ciot_pool_run_one(ciot_pool *p, ciot_task_fn fn, void *arg, int t) {
    if (!p->timing) {
        fn(arg, t, p->threads);
        return;
    }
    uint64_t start = ciot_now_ns();
    fn(arg, t, p->threads);
    p->slots[t].span.start_ns = start;
    p->slots[t].span.end_ns = ciot_now_ns();
}

void ciot_pool_run(ciot_pool *p, ciot_task_fn fn, void *arg) {
    if (!p || !fn) return;
    p->run(p, fn, arg);
}

void ciot_pool_destroy(ciot_pool *p) {
    if (p) p->destroy(p);
}

int ciot_pool_threads(const ciot_pool *p) { return p->threads; }

ciot_pool_kind ciot_pool_get_kind(const ciot_pool *p) { return p->kind; }

void ciot_pool_get_info(const ciot_pool *p, ciot_pool_info *info) { *info = p->info; }

const ciot_span *ciot_pool_spans(const ciot_pool *p) {
    for (int t = 0; t < p->threads; t++) p->spans[t] = p->slots[t].span;
    return p->spans;
}

void ciot_pool_job_window(const ciot_pool *p, uint64_t *job_start_ns, uint64_t *job_end_ns) {
    if (job_start_ns) *job_start_ns = p->job_start_ns;
    if (job_end_ns) *job_end_ns = p->job_end_ns;
}

void ciot_pool_set_timing(ciot_pool *p, int on) {
    p->timing = on != 0;
    if (!p->timing) { /* spans and window read as zero while nothing is recorded */
        memset(p->slots, 0, (size_t)p->threads * sizeof *p->slots);
        p->job_start_ns = p->job_end_ns = 0;
    }
}
