/* The PUs each placement picks (place.h): compact order within a set, spread and domains over the domains. */
#include <stdio.h>
#include <stdlib.h>
#include "place.h"

/* The PUs of set in compact order into out (at most max): the r-th PU of every core before any core's r+1-th. */
static int compact_order(hwloc_topology_t t, hwloc_const_bitmap_t set, int *out, int max) {
    const int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int n = 0;
    if (cores < 1) {   /* no core objects: the PUs in order */
        int pu;
        hwloc_bitmap_foreach_begin(pu, set) if (n < max) out[n++] = pu;
        hwloc_bitmap_foreach_end();
        return n;
    }
    for (int round = 0, more = 1; more && n < max; round++) {
        more = 0;
        for (int c = 0; c < cores && n < max; c++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)c);
            int seen = 0, pu;
            hwloc_bitmap_foreach_begin(pu, core->cpuset) {
                if (!hwloc_bitmap_isset(set, (unsigned)pu)) continue;
                if (seen++ == round) out[n++] = pu, more = 1;
            }
            hwloc_bitmap_foreach_end();
        }
    }
    return n;
}

typedef struct {
    int n, used, pus[CIOT_PLACE_MAX_THREADS];
} queue;

static ciot_status too_many(int threads, int have, const char *what, char *why, size_t len) {
    return ciot_error(CIOT_E_ARG, why, len, "%d threads, but %s has %d processing unit%s", threads, what, have,
                      have == 1 ? "" : "s");
}

/* Each domain's PUs within cpus in compact order; *nd domains. */
static queue *domain_queues(hwloc_topology_t t, hwloc_const_bitmap_t cpus, int *nd, ciot_domain *d, int *total) {
    const char *which;
    *nd = ciot_place_domains(t, d, CIOT_PLACE_MAX_DOMAINS, &which);
    queue *q = calloc((size_t)*nd, sizeof *q);
    *total = 0;
    for (int i = 0; q && i < *nd; i++) {
        hwloc_bitmap_t s = hwloc_bitmap_dup(d[i].pus);
        hwloc_bitmap_and(s, s, cpus);
        q[i].n = compact_order(t, s, q[i].pus, CIOT_PLACE_MAX_THREADS);
        *total += q[i].n;
        hwloc_bitmap_free(s);
    }
    return q;
}

static ciot_status spread(queue *q, int nd, int threads, int *pus) {
    for (int th = 0, at = 0; th < threads; at = (at + 1) % nd)
        if (q[at].used < q[at].n) pus[th++] = q[at].pus[q[at].used++];
    return CIOT_OK;
}

static ciot_status domains(queue *q, int nd, const ciot_domain *d, int threads, int *pus, char *why, size_t len) {
    for (int i = 0; i < nd; i++)
        if (!q[i].n) return ciot_error(CIOT_E_ARG, why, len, "--place domains: --cpus leaves domain %s empty", d[i].name);
    if (threads < nd)
        return ciot_error(CIOT_E_ARG, why, len, "--place domains with %d thread%s leaves a domain empty: it needs at least "
                          "%d, one per domain", threads, threads == 1 ? "" : "s", nd);
    for (int i = 0, th = 0; i < nd; i++) {
        const int share = threads / nd + (i < threads % nd);
        if (share > q[i].n) return too_many(share, q[i].n, d[i].name, why, len);
        for (int k = 0; k < share; k++) pus[th++] = q[i].pus[k];
    }
    return CIOT_OK;
}

ciot_status ciot_place_pick(hwloc_topology_t t, ciot_place_policy p, hwloc_const_bitmap_t cpus, int threads, int *pus,
                            char *why, size_t len) {
    if (!cpus) cpus = hwloc_topology_get_topology_cpuset(t);
    if (threads < 1 || threads > CIOT_PLACE_MAX_THREADS)
        return ciot_error(CIOT_E_ARG, why, len, "%d threads: a placement takes 1 to %d", threads, CIOT_PLACE_MAX_THREADS);
    if (p != CIOT_PLACE_SPREAD && p != CIOT_PLACE_DOMAINS) {
        int *all = malloc(sizeof(int) * CIOT_PLACE_MAX_THREADS);
        const int n = all ? compact_order(t, cpus, all, CIOT_PLACE_MAX_THREADS) : 0;
        for (int i = 0; i < threads && i < n; i++) pus[i] = all[i];
        free(all);
        return threads > n ? too_many(threads, n, "the placement", why, len) : CIOT_OK;
    }
    ciot_domain d[CIOT_PLACE_MAX_DOMAINS];
    int nd, total;
    queue *q = domain_queues(t, cpus, &nd, d, &total);
    ciot_status st = !q ? CIOT_E_NOMEM
                   : p == CIOT_PLACE_DOMAINS ? domains(q, nd, d, threads, pus, why, len)
                   : threads > total ? too_many(threads, total, "the placement", why, len)
                                     : spread(q, nd, threads, pus);
    free(q);
    ciot_place_free(d, nd);
    return st;
}
