/* The process's placement and the binding of pool threads by it (place.h). */
#include "place.h"

#include <stdio.h>
#include <string.h>
#include "pin.h"
#include "topo.h"

static ciot_place_policy policy;
static hwloc_bitmap_t allowed;    /* NULL: the whole machine */
static int ran_on[CIOT_PLACE_MAX_THREADS];
static int ran_on_known;

ciot_status ciot_place_set(ciot_place_policy p, const char *cpus, char *why, size_t len) {
    hwloc_topology_t t;
    if (ciot_topo_get(&t) != CIOT_OK) return ciot_error(CIOT_E_SYS, why, len, "hwloc could not read the topology");
    if (allowed) hwloc_bitmap_free(allowed), allowed = NULL;
    policy = p;
    return cpus && *cpus ? ciot_place_cpus(t, cpus, &allowed, why, len) : CIOT_OK;
}

int ciot_place_active(void) { return policy != CIOT_PLACE_DEFAULT || allowed; }

ciot_status ciot_place_check(int threads, char *why, size_t len) {
    hwloc_topology_t t;
    int pus[CIOT_PLACE_MAX_THREADS];
    if (!ciot_place_active()) return CIOT_OK;
    if (ciot_topo_get(&t) != CIOT_OK) return ciot_error(CIOT_E_SYS, why, len, "hwloc could not read the topology");
    return ciot_place_pick(t, policy, allowed, threads, pus, why, len);
}

const char *ciot_place_describe(char *buf, size_t len) {
    static const char *const names[] = {"compact", "compact", "spread", "domains"};
    char set[256] = "every PU";
    if (allowed) hwloc_bitmap_list_snprintf(set, sizeof set, allowed);
    if (!ciot_place_active()) snprintf(buf, len, "default: thread i on core i");
    else snprintf(buf, len, "%s on %s%s", names[policy], allowed ? "PUs " : "", set);
    return buf;
}

ciot_status ciot_place_pin_self(int thread, int nthreads) {
    hwloc_topology_t t;
    ciot_status st;
    if (thread >= 0 && thread < CIOT_PLACE_MAX_THREADS) ran_on[thread] = -1;
    if (!ciot_place_active()) st = ciot_pin_self_to_core(thread);
    else if (ciot_topo_get(&t) != CIOT_OK || thread < 0 || thread >= nthreads) st = CIOT_E_SYS;
    else {
        int pus[CIOT_PLACE_MAX_THREADS];
        st = ciot_place_pick(t, policy, allowed, nthreads, pus, NULL, 0);
        hwloc_obj_t pu = st == CIOT_OK ? hwloc_get_pu_obj_by_os_index(t, (unsigned)pus[thread]) : NULL;
        st = pu && hwloc_set_cpubind(t, pu->cpuset, HWLOC_CPUBIND_THREAD) == 0 ? CIOT_OK : CIOT_E_SYS;
    }
    hwloc_bitmap_t where = hwloc_bitmap_alloc();
    if (st == CIOT_OK && where && ciot_topo_get(&t) == CIOT_OK && thread < CIOT_PLACE_MAX_THREADS &&
        hwloc_get_last_cpu_location(t, where, HWLOC_CPUBIND_THREAD) == 0)
        ran_on[thread] = hwloc_bitmap_first(where), ran_on_known = 1;
    hwloc_bitmap_free(where);
    return st;
}

int ciot_place_ran_on(int thread) {
    return ran_on_known && thread >= 0 && thread < CIOT_PLACE_MAX_THREADS ? ran_on[thread] : -1;
}
