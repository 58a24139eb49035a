/* Loads the hwloc topology once per process and answers the few questions the pools, the probes and the
 * run metadata ask. */
#include "topo.h"

#include <stdio.h>
#include <string.h>
#include "os.h"

static hwloc_topology_t topology;
static int topology_ok;
static int topology_once;

static void topology_load(void) {
    if (hwloc_topology_init(&topology) != 0) return;
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        return;
    }
    topology_ok = 1;
}

ciot_status ciot_topo_get(hwloc_topology_t *out) {
    if (!out) return CIOT_E_ARG;
    ciot_os_once(&topology_once, topology_load);
    if (!topology_ok) return CIOT_E_SYS;
    *out = topology;
    return CIOT_OK;
}

int ciot_topo_cores(void) {
    hwloc_topology_t t;
    if (ciot_topo_get(&t) == CIOT_OK) {
        int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        if (n >= 1) return n;
    }
    const int online = ciot_os_cpus_online();
    return online >= 1 ? online : 1;
}

/* The last cache level hwloc knows with a non-zero size: its type and instance count (0 when none). */
static int llc_level_objects(hwloc_obj_type_t *type) {
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                              HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    hwloc_topology_t t;
    if (ciot_topo_get(&t) != CIOT_OK) return 0;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const int n = hwloc_get_nbobjs_by_type(t, levels[i]);
        hwloc_obj_t o = n > 0 ? hwloc_get_obj_by_type(t, levels[i], 0) : NULL;
        if (o && o->attr && o->attr->cache.size) {
            *type = levels[i];
            return n;
        }
    }
    return 0;
}

size_t ciot_topo_llc_instance(int *cores) {
    hwloc_obj_type_t type;
    hwloc_topology_t t;
    *cores = 1;
    const int n = llc_level_objects(&type);
    if (!n || ciot_topo_get(&t) != CIOT_OK) return 0;
    size_t largest = 0;
    for (int k = 0; k < n; k++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, type, (unsigned)k);
        if (!o || !o->attr || o->attr->cache.size <= largest) continue;
        largest = (size_t)o->attr->cache.size;
        const int under = hwloc_get_nbobjs_inside_cpuset_by_type(t, o->cpuset, HWLOC_OBJ_CORE);
        *cores = under > 0 ? under : 1;
    }
    return largest;
}

const char *ciot_topo_llc_source(char *buf, size_t len) {
    hwloc_obj_type_t type;
    const int n = llc_level_objects(&type);
    int level;
    const size_t total = ciot_topo_llc_bytes(&level);
    if (!n || !total) snprintf(buf, len, "hwloc reports no cache");
    else snprintf(buf, len, "hwloc: L%d, %d x %.1f MiB", level, n, (double)total / n / (1 << 20));
    return buf;
}

size_t ciot_topo_llc_bytes(int *level) {
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                              HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    if (level) *level = 0;
    hwloc_topology_t t;
    if (ciot_topo_get(&t) != CIOT_OK) return 0;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        int n = hwloc_get_nbobjs_by_type(t, levels[i]);
        if (n < 1) continue;
        size_t total = 0;
        for (int k = 0; k < n; k++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(t, levels[i], (unsigned)k);
            if (o && o->attr) total += (size_t)o->attr->cache.size;
        }
        if (total == 0) continue;
        if (level) *level = (int)(5 - i);
        return total;
    }
    return 0;
}

int ciot_topology_read(ciot_topology *t) {
    memset(t, 0, sizeof *t);
    t->cores = ciot_topo_cores();
    t->pus = t->cores, t->packages = 1;
    /* the OS's count: hwloc's NUMA total misses hot-plugged memory on some virtual machines */
    t->memory_bytes = ciot_os_memory_total();
    int level;
    t->llc_bytes = ciot_topo_llc_bytes(&level);
    hwloc_topology_t topo;
    if (ciot_topo_get(&topo) != CIOT_OK) return -1;
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    if (n > 0) t->pus = n;
    n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    if (n > 0) t->packages = n;
    static const struct { hwloc_obj_type_t type; int level; const char *name; } kinds[] = {
        {HWLOC_OBJ_L1CACHE, 1, "data"}, {HWLOC_OBJ_L2CACHE, 2, "unified"},
        {HWLOC_OBJ_L3CACHE, 3, "unified"}, {HWLOC_OBJ_L4CACHE, 4, "unified"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, kinds[i].type, 0);
        if (!o || !o->attr) continue;
        const int c = t->ncaches++;
        t->caches[c].level = kinds[i].level;
        t->caches[c].bytes = (size_t)o->attr->cache.size;
        t->caches[c].count = hwloc_get_nbobjs_by_type(topo, kinds[i].type);
        t->caches[c].type = kinds[i].name;
    }
    return 0;
}
