/* Topology from hwloc: counted once per call, no state kept. */
#include <hwloc.h>
#include <string.h>
#include <unistd.h>
#include "topology.h"

int ciot_topology_read(ciot_topology *t) {
    memset(t, 0, sizeof *t);
    t->cores = t->pus = t->packages = 1;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return -1;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    t->cores = n > 0 ? n : 1;
    n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    t->pus = n > 0 ? n : t->cores;
    n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    t->packages = n > 0 ? n : 1;
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
        t->llc_bytes = (size_t)o->attr->cache.size;
    }
    /* the OS's count: hwloc's NUMA total misses hot-plugged memory on some virtual machines */
    t->memory_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    hwloc_topology_destroy(topo);
    return 0;
}
