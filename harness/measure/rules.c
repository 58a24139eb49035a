/* The measurement rules (rules.h). */
#include "rules.h"

#include <stdio.h>
#include "topo.h"

static const size_t MIB = (size_t)1 << 20, GIB = (size_t)1 << 30, HUGE_PAGE = (size_t)2 << 20;
static int llc_guarded;

/* The largest LLC instance a CPU could have with that many cores under it. */
static size_t plausible_instance(int cores) {
    const size_t per_cores = 16 * MIB * (size_t)cores;
    return per_cores > 128 * MIB ? per_cores : 128 * MIB;
}

int ciot_llc_plausible(void) {
    int cores;
    const size_t largest = ciot_topo_llc_instance(&cores);
    return largest <= plausible_instance(cores);
}

void ciot_rules_guard_llc(void) { llc_guarded = 1; }

size_t ciot_rule_llc_bytes(void) {
    const size_t reported = ciot_topo_llc_bytes(NULL);
    if (!llc_guarded || ciot_llc_plausible()) return reported;
    int cores;
    const size_t largest = ciot_topo_llc_instance(&cores), cap = plausible_instance(cores);
    const size_t instances = (reported + largest - 1) / largest;
    return instances * cap;
}

const char *ciot_llc_rule_note(char *buf, size_t len) {
    int cores;
    const size_t largest = ciot_topo_llc_instance(&cores);
    if (ciot_llc_plausible())
        snprintf(buf, len, "4 x LLC as reported");
    else if (!llc_guarded)
        snprintf(buf, len, "4 x LLC as reported, though an instance of %.0f MiB for %d core%s is implausible "
                 "(a quick run would take %.0f MiB)", (double)largest / MIB, cores, cores == 1 ? "" : "s",
                 (double)plausible_instance(cores) / MIB);
    else
        snprintf(buf, len, "4 x LLC with each instance taken at %.0f MiB: the reported %.0f MiB for %d core%s is "
                 "implausible", (double)plausible_instance(cores) / MIB, (double)largest / MIB, cores,
                 cores == 1 ? "" : "s");
    return buf;
}

size_t ciot_cache_reach(void) { return 4 * ciot_rule_llc_bytes(); }

int ciot_cache_resident(size_t bytes) { return bytes < ciot_cache_reach(); }

size_t ciot_cold_bytes(void) {
    const size_t four_llc = ciot_cache_reach();
    const size_t bytes = four_llc > GIB ? four_llc : GIB;
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}
