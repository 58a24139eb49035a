/* The domains, CPU kinds, --cpus lists and the PUs each placement picks (place.h), on any hwloc topology. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "place.h"

static int cores_in(hwloc_topology_t t, hwloc_const_bitmap_t set) {
    const int n = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE);
    return n > 0 ? n : hwloc_bitmap_weight(set);
}

static void add(hwloc_topology_t t, ciot_domain *d, const char *name, hwloc_const_bitmap_t set) {
    snprintf(d->name, sizeof d->name, "%s", name);
    d->pus = hwloc_bitmap_dup(set);
    d->cores = cores_in(t, set);
}

/* The objects of type as domains when there are at least two, each over at least min_cores cores. */
static int level(hwloc_topology_t t, hwloc_obj_type_t type, int min_cores, const char *word, ciot_domain *d, int max) {
    const int n = hwloc_get_nbobjs_by_type(t, type);
    if (n < 2 || n > max) return 0;
    for (int i = 0; i < n; i++)
        if (cores_in(t, hwloc_get_obj_by_type(t, type, (unsigned)i)->cpuset) < min_cores) return 0;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s %d", word, i);
        add(t, &d[i], name, hwloc_get_obj_by_type(t, type, (unsigned)i)->cpuset);
    }
    return n;
}

int ciot_place_kinds(hwloc_topology_t t, ciot_domain *d, int max) {
    const int n = hwloc_cpukinds_get_nr(t, 0);
    int m = 0;
    for (int i = 0; i < n && m < max; i++) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        int eff = -1;
        unsigned ninfos = 0;
        struct hwloc_info_s *infos = NULL;
        if (!set || hwloc_cpukinds_get_info(t, (unsigned)i, set, &eff, &ninfos, &infos, 0) != 0) {
            hwloc_bitmap_free(set);
            continue;
        }
        const char *type = NULL;
        for (unsigned k = 0; k < ninfos; k++)
            if (!strcmp(infos[k].name, "CoreType")) type = infos[k].value;
        char name[32];
        /* hwloc lists the kinds by efficiency, least efficient first: of two, the first is the E cores */
        if (n == 2) snprintf(name, sizeof name, "kind %s%s%s%s", i ? "P" : "E", type ? " (" : "", type ? type : "", type ? ")" : "");
        else if (type) snprintf(name, sizeof name, "kind %s", type);
        else snprintf(name, sizeof name, "kind %d", i);
        add(t, &d[m++], name, set);
        hwloc_bitmap_free(set);
    }
    return m;
}

int ciot_place_domains(hwloc_topology_t t, ciot_domain *d, int max, const char **which) {
    int n;
    if ((n = level(t, HWLOC_OBJ_L3CACHE, 1, "L3", d, max))) return *which = "L3", n;
    if ((n = level(t, HWLOC_OBJ_L2CACHE, 2, "L2", d, max))) return *which = "L2", n;
    if ((n = ciot_place_kinds(t, d, max)) > 1) return *which = "cpukind", n;
    ciot_place_free(d, n);
    if ((n = level(t, HWLOC_OBJ_NUMANODE, 1, "NUMA", d, max))) return *which = "NUMA", n;
    add(t, d, "machine", hwloc_topology_get_topology_cpuset(t));
    return *which = "machine", 1;
}

void ciot_place_free(ciot_domain *d, int n) {
    for (int i = 0; i < n; i++) hwloc_bitmap_free(d[i].pus), d[i].pus = NULL;
}

ciot_status ciot_place_cpus(hwloc_topology_t t, const char *list, hwloc_bitmap_t *out, char *why, size_t len) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    *out = NULL;
    for (const char *c = list; *c; c++)
        if (!strchr("0123456789,-", *c))
            return hwloc_bitmap_free(set), ciot_error(CIOT_E_ARG, why, len, "--cpus '%s' is not a list of processing "
                                                      "units such as 0-3,8", list);
    if (!set || !*list || hwloc_bitmap_list_sscanf(set, list) != 0 || hwloc_bitmap_iszero(set) || hwloc_bitmap_weight(set) < 0)
        return hwloc_bitmap_free(set), ciot_error(CIOT_E_ARG, why, len, "--cpus '%s' is not a list of processing units "
                                                  "such as 0-3,8", list);
    hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t);
    if (!hwloc_bitmap_isincluded(set, all)) {
        char have[256];
        hwloc_bitmap_list_snprintf(have, sizeof have, all);
        hwloc_bitmap_free(set);
        return ciot_error(CIOT_E_ARG, why, len, "--cpus %s names processing units this machine has not (it has %s)", list, have);
    }
    *out = set;
    return CIOT_OK;
}
