/* A probe's thread sweep (ciot bw, ciot compute): one persistent pool per thread count, every item (a
 * traffic kind, a compute family) measured on it in turn, one progress line per step on stderr. */
#ifndef CIOT_SWEEP_H
#define CIOT_SWEEP_H

#include "context.h"
#include "json.h"
#include "opts.h"
#include "pool.h"
#include "status.h"

typedef struct {
    const char *command;                /* "bw": the messages read "ciot bw: ..." */
    const ciot_int_list *threads;
    int n_items;
    int pin, raise_priority;
    void *ctx;                          /* the callbacks' */
    /* Before a pool's items (optional): 0, or the exit code after its own message. */
    int (*on_pool)(ciot_pool *p, int thread_index, void *ctx);
    const char *(*item_name)(int item, void *ctx);
    /* Item on pool p, into the results' slot step (thread index x n_items + item). */
    ciot_status (*measure)(ciot_pool *p, int item, int step, void *ctx);
    ciot_pool_info *infos;              /* per step: the pool it ran on */
} ciot_sweep;

/* Every thread count x every item; stops at the first failure. Returns the exit code, 0 or 1. */
int ciot_sweep_run(const ciot_sweep *s);

/* The probes' JSON after their own keys: "context" (finished now, after the measurements) and the opened
 * "results" array, one object per step to follow. */
void ciot_sweep_json_results(ciot_json *j, ciot_context *ctx);

/* The end of a sweep command's JSON: committed when the sweep succeeded (rc 0, the results written), else
 * discarded, so a failed run leaves no file. Returns the exit code: rc, or 1 when the commit failed (after
 * "ciot COMMAND: --json WHY"). json may be NULL (no --json). */
int ciot_sweep_json_end(const char *command, ciot_json *json, int rc);

/* The default sweep when --threads is not given: 1 up to the physical cores. */
void ciot_sweep_default_threads(ciot_int_list *threads);

#endif
