/* The machine's topology from hwloc, loaded once per process and shared by pinning and the probes. */
#ifndef CIOT_TOPO_H
#define CIOT_TOPO_H

#include <stddef.h>
#include <hwloc.h>
#include "status.h"

/* The process-wide topology; CIOT_E_SYS when hwloc could not load it. Never destroyed. */
ciot_status ciot_topo_get(hwloc_topology_t *out);
/* Physical cores (hwloc), or the online CPUs when hwloc knows no cores; always >= 1. */
int ciot_topo_cores(void);
/* Total bytes of the last-level cache summed over its instances, and its level (3 for L3);
 * 0 when hwloc reports no cache. */
size_t ciot_topo_llc_bytes(int *level);
/* The largest instance of that cache level in bytes and the cores under it (*cores >= 1); 0 when none. */
size_t ciot_topo_llc_instance(int *cores);
/* Where that figure came from, e.g. "hwloc: L3, 1 x 32.0 MiB", or "hwloc reports no cache". */
const char *ciot_topo_llc_source(char *buf, size_t len);

/* The summary for `ciot info` and run metadata: cores, processing units, and caches from this topology,
 * plus the OS's memory count. */
typedef struct {
    int cores, pus, packages;
    int ncaches;
    struct { int level; size_t bytes; int count; const char *type; } caches[8];
    size_t llc_bytes;           /* the last-level cache, summed over its instances */
    size_t memory_bytes;        /* physical memory the OS reports */
} ciot_topology;

/* Fills *t; returns 0 on success (hwloc failure leaves counts of 1 and no caches). */
int ciot_topology_read(ciot_topology *t);

#endif
