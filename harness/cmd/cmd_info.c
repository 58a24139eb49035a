/* ciot info: what this machine is and which kernel each source file and each layout gets on it. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "info_choice.h"
#include "opts.h"
#include "registry.h"
#include "rules.h"
#include "topo.h"
#include "tuning.h"

int ciot_cmd_info(int argc, char **argv) {
    const ciot_cmdline c = {"info", "", "CPU model, detected features and the SVE vector length, cores and caches (hwloc),\n"
                            "the kernels this CPU can run, the one chosen per source file and per layout, and\n"
                            "why: its rank and where that was measured.", NULL, 0, NULL, 0};
    const int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    char buf[256];
    const unsigned cpu = ciot_cpu_features(), hw = ciot_cpu_detect();
    printf("cpu          %s\n", ciot_cpu_model(buf, sizeof buf));
    printf("features     %s", ciot_feature_list(cpu, buf, sizeof buf));
    if (cpu != hw) printf("   (masked by CIOT_CPU; detected %s)", ciot_feature_list(hw, buf, sizeof buf));
    printf("\n");
    const int vl = ciot_cpu_sve_vector_bytes();
    if (vl) printf("sve vector   %d bits (%d bytes; the SVE kernels run at any length)\n", 8 * vl, vl);
    ciot_topology t;
    if (ciot_topology_read(&t) != 0) printf("topology     hwloc could not read the topology\n");
    printf("cores        %d (%d processing units, %d package%s)\n", t.cores, t.pus, t.packages, t.packages > 1 ? "s" : "");
    for (int i = 0; i < t.ncaches; i++)
        printf("cache L%d     %zu KiB %s x %d\n", t.caches[i].level, t.caches[i].bytes >> 10, t.caches[i].type, t.caches[i].count);
    if (!ciot_llc_plausible()) printf("llc rule     %s\n", ciot_llc_rule_note(buf, sizeof buf));
    printf("memory       %.1f GiB\n", (double)t.memory_bytes / (1u << 30));
    ciot_info_domains();
    printf("\nkernels this CPU can run:\n");
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (!ciot_kernel_missing(k, cpu)) printf("  %s\n", k->name);
    }
    char path[1100];
    const int tuned = ciot_tuning_use("info");
    printf("\ntuning file  %s", ciot_tuning_path(NULL, path, sizeof path)[0] ? path : "none (no cache folder)");
    printf(tuned ? " (%d choices measured here)\n" : " (not in force: the static rank chooses)\n", tuned);
    const int cores = ciot_topo_cores();
    for (int th = 1; th <= cores; th = th == cores ? cores + 1 : cores) {
        printf("\nchosen per source file at %d thread%s (fastest of its layouts):\n", th, th > 1 ? "s" : "");
        ciot_info_choices(cpu, th, 0);
    }
    printf("\nchosen per layout (the static rank):\n");
    for (int i = 0; i < ciot_layout_count(); i++) {
        const ciot_layout *l = ciot_layout_at(i);
        for (int op = CIOT_OP_GEMV; op <= CIOT_OP_GEMM; op++) {
            const ciot_kernel *k = ciot_kernel_best(l, (ciot_op)op, cpu);
            if (k) printf("  %-7s %s  %s\n", l->name, op == CIOT_OP_GEMV ? "gemv" : "gemm", k->name);
        }
    }
    for (int th = 1; th <= cores; th = th == cores ? cores + 1 : cores) {
        printf("\nwhy, at %d thread%s: measured here (the tuning file), or the static rank within its source file and op\n"
               "and where that was measured:\n", th, th > 1 ? "s" : "");
        ciot_info_choices(cpu, th, 1);
    }
    return 0;
}
