/* The working-set rule against an implausible LLC (rules.h), on hwloc synthetic topologies set here before
 * the topology is first loaded: a VM's half-gigabyte L3 per core, a real server L3 shared by many cores, a
 * desktop L3. Catches a guard that caps a plausible cache, one that misses the VM's, one that applies to
 * full runs (before ciot_rules_guard_llc), or a cap that is not the plausible maximum. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "rules.h"
#include "topo.h"

static const size_t MIB = (size_t)1 << 20;

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    /* argv[1]: vm (2 x 512 MiB L3, 1 core each), server (1 x 480 MiB L3 over 64 cores), desktop (1 x 32 MiB over 8) */
    const char *synthetic = !strcmp(argv[1], "vm")       ? "Package:1 L3Cache:2(size=512MiB) Core:1 PU:1"
                            : !strcmp(argv[1], "server") ? "Package:1 L3Cache:1(size=480MiB) Core:64 PU:1"
                                                         : "Package:1 L3Cache:1(size=32MiB) Core:8 PU:1";
    setenv("HWLOC_SYNTHETIC", synthetic, 1);
    const size_t reported = ciot_topo_llc_bytes(NULL);
    int cores;
    const size_t instance = ciot_topo_llc_instance(&cores);
    const int vm = !strcmp(argv[1], "vm");
    CHECK(reported == (vm ? 1024 : !strcmp(argv[1], "server") ? 480 : 32) * MIB, "reported %zu", reported);
    CHECK(cores == (vm ? 1 : !strcmp(argv[1], "server") ? 64 : 8), "cores under the largest instance %d", cores);
    CHECK(instance == (vm ? 512 * MIB : reported), "largest instance %zu", instance);
    CHECK(ciot_llc_plausible() == !vm, "plausible %d", ciot_llc_plausible());
    CHECK(ciot_rule_llc_bytes() == reported, "a full run takes the reported LLC (%zu)", ciot_rule_llc_bytes());
    ciot_rules_guard_llc();
    CHECK(ciot_rule_llc_bytes() == (vm ? 2 * 128 * MIB : reported), "guarded %zu", ciot_rule_llc_bytes());
    CHECK(ciot_cache_reach() == 4 * ciot_rule_llc_bytes(), "the cache reach is 4 x the rule's LLC");
    CHECK(ciot_cold_bytes() == (!strcmp(argv[1], "server") ? 4 * 480 * MIB : (size_t)1 << 30), "cold bytes %zu",
          ciot_cold_bytes());
    char note[192];
    ciot_llc_rule_note(note, sizeof note);
    CHECK(vm ? strstr(note, "implausible") != NULL : !strcmp(note, "4 x LLC as reported"), "note: %s", note);
    return check_summary();
}
