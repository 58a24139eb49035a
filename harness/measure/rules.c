/* The measurement rules (rules.h). */
#include "rules.h"

#include "topo.h"

static const size_t GIB = (size_t)1 << 30, HUGE_PAGE = (size_t)2 << 20;

size_t ciot_cache_reach(void) { return 4 * ciot_topo_llc_bytes(NULL); }

int ciot_cache_resident(size_t bytes) { return bytes < ciot_cache_reach(); }

size_t ciot_cold_bytes(void) {
    const size_t four_llc = ciot_cache_reach();
    const size_t bytes = four_llc > GIB ? four_llc : GIB;
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}
