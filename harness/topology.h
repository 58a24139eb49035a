/* What hwloc says about this machine: cores, processing units, and caches. */
#ifndef CIOT_TOPOLOGY_H
#define CIOT_TOPOLOGY_H

#include <stddef.h>

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
