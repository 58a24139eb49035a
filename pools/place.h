/* Where a pool's threads run, from the hwloc topology: --cpus LIST (the processing units allowed) and --place
 * compact|spread|domains. Domains are hwloc's: the L3 instances when there are several, else the L2 clusters
 * when every L2 is shared by cores, else the CPU kinds (hwloc_cpukinds: P and E cores), else the NUMA nodes,
 * else the machine as one.
 *   compact: one thread per core in topology order, a core's second PU only once every core has one;
 *   spread:  round-robin over the domains, each in compact order (a domain may stay empty);
 *   domains: the threads split evenly over every domain, each domain's thread indices contiguous; refused
 *            when a domain would get none.
 * Without --place and --cpus, pinning is the pool's default (pin.h: thread i on core i mod cores). */
#ifndef CIOT_PLACE_H
#define CIOT_PLACE_H

#include <stddef.h>
#include <hwloc.h>
#include "status.h"

typedef enum { CIOT_PLACE_DEFAULT, CIOT_PLACE_COMPACT, CIOT_PLACE_SPREAD, CIOT_PLACE_DOMAINS } ciot_place_policy;
#define CIOT_PLACE_CHOICES "compact|spread|domains"
enum { CIOT_PLACE_MAX_DOMAINS = 64, CIOT_PLACE_MAX_THREADS = 1024 };

typedef struct {
    char name[32];          /* "L3 0", "L2 1", "kind P", "NUMA 0", "machine" */
    hwloc_bitmap_t pus;     /* its processing units (OS indexes) */
    int cores;
} ciot_domain;

/* The domains of topology t (at most max), as above; *level says which ("L3", "L2", "cpukind", "NUMA",
 * "machine"). Free with ciot_place_free. */
int ciot_place_domains(hwloc_topology_t t, ciot_domain *d, int max, const char **level);
/* The CPU kinds (hwloc_cpukinds), most efficient last, each named "P" or "E" when there are two, else its
 * CoreType or "kind N"; 0 when hwloc knows none. */
int ciot_place_kinds(hwloc_topology_t t, ciot_domain *d, int max);
void ciot_place_free(ciot_domain *d, int n);

/* Parses a --cpus list ("0-3,8") into a new bitmap; CIOT_E_ARG with why when it is not a list or names a
 * processing unit the machine has not. */
ciot_status ciot_place_cpus(hwloc_topology_t t, const char *list, hwloc_bitmap_t *out, char *why, size_t len);
/* The PU (OS index) of each of threads threads under policy within cpus (NULL: the whole machine);
 * CIOT_E_ARG with why when the placement leaves a domain empty or has fewer PUs than threads. */
ciot_status ciot_place_pick(hwloc_topology_t t, ciot_place_policy p, hwloc_const_bitmap_t cpus, int threads, int *pus,
                            char *why, size_t len);

/* The process's placement, set once from the options before any pool: "" cpus for none. CIOT_E_ARG with why
 * for a bad --cpus; ciot_place_check then refuses a thread count it cannot place. */
ciot_status ciot_place_set(ciot_place_policy p, const char *cpus, char *why, size_t len);
ciot_status ciot_place_check(int threads, char *why, size_t len);
int ciot_place_active(void);
/* "compact on PUs 0-3", "default: one thread per core in order". */
const char *ciot_place_describe(char *buf, size_t len);
/* Binds the calling thread, thread `thread` of a pool of nthreads: to its PU under the process's placement,
 * else as pin.h does; records the PU it runs on. */
ciot_status ciot_place_pin_self(int thread, int nthreads);
/* The PU thread `thread` of the last pool was found on after its binding; -1 when unknown. */
int ciot_place_ran_on(int thread);

#endif
