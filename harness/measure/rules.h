/* The measurement rules, each written once: how large a buffer must be to be read from DRAM, below what
 * a working set counts as cache-resident, how much of the available memory a run may take, and how long
 * a probe sample lasts. bw, compute, bench, replay and the weights all ask here. */
#ifndef CIOT_RULES_H
#define CIOT_RULES_H

#include <stddef.h>

#define CIOT_CACHE_FLAG "cache-resident: working set below 4 x LLC"

/* The shortest read-probe sample paired with a kernel sample, in seconds (whole passes): bench's
 * probe_seconds (bench_run.h) and replay's ceiling. */
#define CIOT_PROBE_SECONDS 0.05

/* Whether the LLC hwloc reports is one a CPU could have: no instance above both 128 MiB and 16 MiB per core
 * under it (hypervisors have been seen to report half a gigabyte a core). 1 when hwloc reports none. */
int ciot_llc_plausible(void);
/* Quick runs guard the rules against an implausible LLC: from then on this process takes each LLC instance
 * at that plausible maximum. Full runs keep the reported LLC: a larger buffer never makes a read warmer. */
void ciot_rules_guard_llc(void);
/* The LLC the rules below take, summed over its instances: the reported one unless guarded and implausible. */
size_t ciot_rule_llc_bytes(void);
/* One line on the LLC the rules take, for the run context: "4 x LLC, as reported" or why it was capped. */
const char *ciot_llc_rule_note(char *buf, size_t len);

/* 4 x the last-level cache (summed over its instances): what the caches may still serve. */
size_t ciot_cache_reach(void);
/* 1 when bytes is below ciot_cache_reach(): reads of it may be served from the cache. */
int ciot_cache_resident(size_t bytes);
/* max(4 x LLC, 1 GiB), rounded up to 2 MiB: the least a buffer read "from DRAM" may hold. */
size_t ciot_cold_bytes(void);
/* The most a run may allocate when avail bytes are available (MemAvailable): nine tenths, a tenth left to
 * everything else. */
static inline size_t ciot_mem_cap(size_t avail) { return avail / 10 * 9; }

#endif
