/* Pins the calling thread to one core chosen from the hwloc topology (round-robin past the core count),
 * and saves / restores a thread's binding so a pool can give the caller back its old one. */
#include "pin.h"
#include "topo.h"

ciot_status ciot_pin_self_to_core(int i) {
    hwloc_topology_t t;
    if (i < 0) return CIOT_E_ARG;
    if (ciot_topo_get(&t) != CIOT_OK) return CIOT_E_SYS;
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    int n = hwloc_get_nbobjs_by_type(t, type);
    if (n < 1) { /* no core objects: fall back to processing units */
        type = HWLOC_OBJ_PU;
        n = hwloc_get_nbobjs_by_type(t, type);
        if (n < 1) return CIOT_E_SYS;
    }
    hwloc_obj_t core = hwloc_get_obj_by_type(t, type, (unsigned)(i % n));
    if (!core || !core->cpuset) return CIOT_E_SYS;
    return hwloc_set_cpubind(t, core->cpuset, HWLOC_CPUBIND_THREAD) == 0 ? CIOT_OK : CIOT_E_SYS;
}

ciot_status ciot_binding_save(void **saved) {
    hwloc_topology_t t;
    *saved = NULL;
    if (ciot_topo_get(&t) != CIOT_OK) return CIOT_E_SYS;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set) return CIOT_E_NOMEM;
    if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_THREAD) != 0) {
        hwloc_bitmap_free(set);
        return CIOT_E_SYS;
    }
    *saved = set;
    return CIOT_OK;
}

ciot_status ciot_binding_release(void **saved) {
    hwloc_topology_t t;
    const ciot_status st = ciot_binding_save(saved);
    if (st != CIOT_OK) return st;
    if (ciot_topo_get(&t) != CIOT_OK) return CIOT_E_SYS;
    return hwloc_set_cpubind(t, hwloc_topology_get_allowed_cpuset(t), HWLOC_CPUBIND_THREAD) == 0 ? CIOT_OK : CIOT_E_SYS;
}

void ciot_binding_restore(void *saved) {
    hwloc_topology_t t;
    if (!saved) return;
    if (ciot_topo_get(&t) == CIOT_OK) hwloc_set_cpubind(t, (hwloc_bitmap_t)saved, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free((hwloc_bitmap_t)saved);
}
