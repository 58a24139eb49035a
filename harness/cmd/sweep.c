/* The probes' thread sweep (sweep.h). */
#include "sweep.h"

#include <stdio.h>
#include "topo.h"

int ciot_sweep_run(const ciot_sweep *s) {
    int step = 0, rc = 0;
    const int n_steps = s->threads->n * s->n_items;
    for (int ti = 0; ti < s->threads->n && rc == 0; ti++) {
        ciot_pool_opts po = {.threads = s->threads->v[ti], .pin = s->pin, .raise_priority = s->raise_priority};
        ciot_pool *pool;
        ciot_status st = ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &pool);
        if (st != CIOT_OK) {
            fprintf(stderr, "ciot %s: cannot create a pool of %d threads: %s\n", s->command, po.threads,
                    ciot_status_str(st));
            return 1;
        }
        if (s->on_pool && (rc = s->on_pool(pool, ti, s->ctx)) != 0) {
            ciot_pool_destroy(pool);
            break;
        }
        for (int i = 0; i < s->n_items && rc == 0; i++, step++) {
            fprintf(stderr, "ciot %s: [%d/%d] %s, %d thread%s\n", s->command, step + 1, n_steps,
                    s->item_name(i, s->ctx), po.threads, po.threads > 1 ? "s" : "");
            st = s->measure(pool, i, step, s->ctx);
            ciot_pool_get_info(pool, &s->infos[step]);
            if (st != CIOT_OK) {
                fprintf(stderr, "ciot %s: measurement failed: %s\n", s->command, ciot_status_str(st));
                rc = 1;
            }
        }
        ciot_pool_destroy(pool);
    }
    return rc;
}

void ciot_sweep_json_results(ciot_json *j, ciot_context *ctx) {
    ciot_json_key(j, "context");
    ciot_json_begin_object(j);
    ciot_context_finish(ctx);
    ciot_context_write(j, ctx);
    ciot_json_end_object(j);
    ciot_json_key(j, "results");
    ciot_json_begin_array(j);
}

void ciot_sweep_default_threads(ciot_int_list *threads) {
    for (int t = 1; t <= ciot_topo_cores() && t <= CIOT_INT_LIST_MAX; t++) threads->v[threads->n++] = t;
}

int ciot_sweep_json_end(const char *command, ciot_json *json, int rc) {
    if (!json) return rc;
    if (rc != 0) {
        ciot_json_discard(json);
        return rc;
    }
    char why[CIOT_WHY_MAX];
    if (ciot_json_commit(json, why, sizeof why) == CIOT_OK) return 0;
    fprintf(stderr, "ciot %s: --json %s\n", command, why);
    return 1;
}
