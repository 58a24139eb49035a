/* ciot info: what this machine is and which kernel each source file and each layout gets on it. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "opts.h"
#include "registry.h"
#include "topo.h"

int ciot_cmd_info(int argc, char **argv) {
    const ciot_cmdline c = {"info", "", "CPU model, detected features, cores and caches (hwloc), the kernels this CPU\n"
                            "can run and the one chosen per layout.", NULL, 0, NULL, 0};
    const int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    char buf[256];
    const unsigned cpu = ciot_cpu_features(), hw = ciot_cpu_detect();
    printf("cpu          %s\n", ciot_cpu_model(buf, sizeof buf));
    printf("features     %s", ciot_feature_list(cpu, buf, sizeof buf));
    if (cpu != hw) printf("   (masked by CIOT_CPU; detected %s)", ciot_feature_list(hw, buf, sizeof buf));
    printf("\n");
    ciot_topology t;
    if (ciot_topology_read(&t) != 0) printf("topology     hwloc could not read the topology\n");
    printf("cores        %d (%d processing units, %d package%s)\n", t.cores, t.pus, t.packages, t.packages > 1 ? "s" : "");
    for (int i = 0; i < t.ncaches; i++)
        printf("cache L%d     %zu KiB %s x %d\n", t.caches[i].level, t.caches[i].bytes >> 10, t.caches[i].type, t.caches[i].count);
    printf("memory       %.1f GiB\n", (double)t.memory_bytes / (1u << 30));
    printf("\nkernels this CPU can run:\n");
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (!ciot_kernel_missing(k, cpu)) printf("  %s\n", k->name);
    }
    printf("\nchosen per source file (fastest of its layouts):\n");
    for (int i = 0; i < ciot_layout_count(); i++) {
        const ciot_format f = ciot_layout_at(i)->source;
        int seen = 0; /* each source once, in layout order */
        for (int j = 0; j < i; j++) seen |= ciot_layout_at(j)->source == f;
        for (int op = CIOT_OP_GEMV; op <= CIOT_OP_GEMM && !seen; op++) {
            const ciot_kernel *k = ciot_kernel_best_source(f, (ciot_op)op, cpu);
            if (k) printf("  %-7s %s  %s (layout %s)\n", ciot_format_name(f), op == CIOT_OP_GEMV ? "gemv" : "gemm", k->name, k->layout->name);
        }
    }
    printf("\nchosen per layout:\n");
    for (int i = 0; i < ciot_layout_count(); i++) {
        const ciot_layout *l = ciot_layout_at(i);
        for (int op = CIOT_OP_GEMV; op <= CIOT_OP_GEMM; op++) {
            const ciot_kernel *k = ciot_kernel_best(l, (ciot_op)op, cpu);
            if (k) printf("  %-7s %s  %s\n", l->name, op == CIOT_OP_GEMV ? "gemv" : "gemm", k->name);
        }
    }
    return 0;
}
