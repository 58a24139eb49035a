/* The topology summary for `ciot info` and run metadata, read from the process-wide hwloc topology
 * (pools/topo.c), plus the OS's memory count. */
#include <string.h>
#include <unistd.h>
#include "topo.h"
#include "topology.h"

int ciot_topology_read(ciot_topology *t) {
    memset(t, 0, sizeof *t);
    t->cores = ciot_topo_cores();
    t->pus = t->cores, t->packages = 1;
    /* the OS's count: hwloc's NUMA total misses hot-plugged memory on some virtual machines */
    t->memory_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
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
