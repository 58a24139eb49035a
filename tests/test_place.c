/* The PUs each placement picks (pools/place.h) on the hwloc XML topologies of tests/data/topologies/: a
 * Snapdragon X Elite (3 L2 clusters of 4 cores), an Intel hybrid (P and E cpukinds), a 2-socket server (3 L3s per
 * socket, 2 PUs per core). Catches a wrong domain level, compact placing a core's second PU before every core
 * has one, spread not rotating over the domains, domains not splitting evenly and contiguously, and a refusal
 * missing (a --cpus outside the machine, a domain left empty, more threads than PUs). */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "place.h"

static hwloc_topology_t load(const char *dir, const char *name) {
    char path[1024];
    hwloc_topology_t t;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (hwloc_topology_init(&t) != 0) return NULL;
    if (hwloc_topology_set_xml(t, path) != 0 || hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    return t;
}

/* The pick as "a,b,c", or "refused: WHY". */
static const char *pick(hwloc_topology_t t, ciot_place_policy p, const char *cpus, int threads, char *buf, size_t len) {
    int pus[CIOT_PLACE_MAX_THREADS];
    char why[256];
    hwloc_bitmap_t set = NULL;
    if (cpus && ciot_place_cpus(t, cpus, &set, why, sizeof why) != CIOT_OK)
        return snprintf(buf, len, "refused: %s", why), buf;
    if (ciot_place_pick(t, p, set, threads, pus, why, sizeof why) != CIOT_OK) snprintf(buf, len, "refused: %s", why);
    else {
        buf[0] = 0;
        for (int i = 0; i < threads; i++) snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", i ? "," : "", pus[i]);
    }
    hwloc_bitmap_free(set);
    return buf;
}

#define PICK(t, p, cpus, threads, want)                                                         \
    do {                                                                                        \
        char got[1024];                                                                         \
        pick(t, p, cpus, threads, got, sizeof got);                                             \
        CHECK(!strncmp(got, want, strlen(want)), "%s %s %d threads: got %s, want %s", #p,        \
              cpus ? cpus : "all", threads, got, want);                                          \
    } while (0)

static void domains(hwloc_topology_t t, const char *level, int n, const char *first, const char *name) {
    ciot_domain d[CIOT_PLACE_MAX_DOMAINS];
    const char *got;
    const int m = ciot_place_domains(t, d, CIOT_PLACE_MAX_DOMAINS, &got);
    char pus[256] = "";
    if (m) hwloc_bitmap_list_snprintf(pus, sizeof pus, d[0].pus);
    CHECK(m == n && !strcmp(got, level) && !strcmp(pus, first) && !strcmp(d[0].name, name),
          "domains: %d by %s, the first %s PUs %s", m, got, d[0].name, pus);
    ciot_place_free(d, m);
}

static void snapdragon(hwloc_topology_t t) {
    domains(t, "L2", 3, "0-3", "L2 0");
    PICK(t, CIOT_PLACE_COMPACT, NULL, 4, "0,1,2,3");
    PICK(t, CIOT_PLACE_SPREAD, NULL, 4, "0,4,8,1");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 6, "0,1,4,5,8,9");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 4, "0,1,4,8");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 2, "refused: --place domains with 2 threads leaves a domain empty");
    PICK(t, CIOT_PLACE_DOMAINS, "0-7", 4, "refused: --place domains: --cpus leaves domain L2 2 empty");
    PICK(t, CIOT_PLACE_SPREAD, "0-7", 3, "0,4,1");
    PICK(t, CIOT_PLACE_COMPACT, NULL, 13, "refused: 13 threads, but the placement has 12 processing units");
    PICK(t, CIOT_PLACE_COMPACT, "12", 1, "refused: --cpus 12 names processing units this machine has not (it has 0-11)");
    PICK(t, CIOT_PLACE_COMPACT, "0-x", 1, "refused: --cpus '0-x' is not a list");
}

static void intel_hybrid(hwloc_topology_t t) {
    domains(t, "cpukind", 2, "8-15", "kind E (IntelAtom)");
    ciot_domain k[CIOT_PLACE_MAX_DOMAINS];
    const int n = ciot_place_kinds(t, k, CIOT_PLACE_MAX_DOMAINS);
    CHECK(n == 2 && !strcmp(k[1].name, "kind P (IntelCore)") && k[1].cores == 4 && k[0].cores == 8, "kinds");
    ciot_place_free(k, n);
    PICK(t, CIOT_PLACE_COMPACT, NULL, 4, "0,2,4,6");
    PICK(t, CIOT_PLACE_COMPACT, NULL, 13, "0,2,4,6,8,9,10,11,12,13,14,15,1");
    PICK(t, CIOT_PLACE_SPREAD, NULL, 4, "8,0,9,2");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 5, "8,9,10,0,2");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 17, "refused: 9 threads, but kind E (IntelAtom) has 8 processing units");
    PICK(t, CIOT_PLACE_SPREAD, NULL, 17, "refused: 17 threads, but the placement has 16 processing units");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 14, "8,9,10,11,12,13,14,0,2,4,6,1,3,5");
    PICK(t, CIOT_PLACE_DOMAINS, "0-1,8-15", 6, "refused: 3 threads, but kind P (IntelCore) has 2 processing units");
    PICK(t, CIOT_PLACE_COMPACT, "0-7", 4, "0,2,4,6");
    PICK(t, CIOT_PLACE_DOMAINS, "8-15", 2, "refused: --place domains: --cpus leaves domain kind P (IntelCore) empty");
}

static void server(hwloc_topology_t t) {
    domains(t, "L3", 6, "0-3,24-27", "L3 0");
    PICK(t, CIOT_PLACE_COMPACT, NULL, 2, "0,1");
    PICK(t, CIOT_PLACE_COMPACT, NULL, 26, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25");
    PICK(t, CIOT_PLACE_SPREAD, NULL, 7, "0,4,8,12,16,20,1");
    PICK(t, CIOT_PLACE_DOMAINS, NULL, 12, "0,1,4,5,8,9,12,13,16,17,20,21");
    PICK(t, CIOT_PLACE_DOMAINS, "0-11,24-35", 3, "refused: --place domains: --cpus leaves domain L3 3 empty");
    PICK(t, CIOT_PLACE_SPREAD, "0-11", 3, "0,4,8");
    PICK(t, CIOT_PLACE_COMPACT, "0-48", 1, "refused: --cpus 0-48 names processing units this machine has not");
}

int main(int argc, char **argv) {
    if (argc != 2) return printf("usage: test_place DIR (tests/data/topologies)\n"), 2;
    static const struct { const char *file; void (*check)(hwloc_topology_t); } shapes[] = {
        {"snapdragon-x-elite.xml", snapdragon}, {"intel-hybrid.xml", intel_hybrid}, {"server-2s.xml", server}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        hwloc_topology_t t = load(argv[1], shapes[i].file);
        CHECK(t != NULL, "%s loads", shapes[i].file);
        if (!t) continue;
        shapes[i].check(t);
        hwloc_topology_destroy(t);
    }
    return check_summary();
}
