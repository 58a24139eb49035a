/* ciot kernels: one line per registered kernel, name<TAB>available or name<TAB>unavailable: needs X,
 * then <TAB>source=FORMAT, the file format the kernel reads (through its layout's load-time repack), and
 * <TAB>mac=WHAT, what its inner loop multiplies with (kernel.h's ciot_mac: a compute-probe family, lookup
 * or scalar), with <TAB>mac_from=B:WHAT when a gemm's loop changes at activation batch B. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "opts.h"
#include "probe_compute.h"
#include "registry.h"

/* "lookup", "scalar" or the compute family's name (ciot compute's row) */
static const char *mac_name(ciot_mac mac) {
    ciot_compute_family f;
    if (mac == CIOT_MAC_LOOKUP) return "lookup";
    if (mac == CIOT_MAC_SCALAR) return "scalar";
    return ciot_compute_family_of(mac, &f) == CIOT_OK ? ciot_compute_family_name(f) : "undeclared";
}

int ciot_cmd_kernels(int argc, char **argv) {
    const ciot_cmdline c = {"kernels", "", "One line per registered kernel: name<TAB>available (or unavailable: needs X)\n"
                            "<TAB>source=FORMAT, the file format the kernel reads, <TAB>mac=WHAT, what its inner\n"
                            "loop multiplies with (a compute family of `ciot compute`, lookup or scalar), and\n"
                            "<TAB>mac_from=B:WHAT when a gemm's loop changes at activation batch B.", NULL, 0, NULL, 0};
    const int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    const unsigned cpu = ciot_cpu_features();
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        const unsigned missing = ciot_kernel_missing(k, cpu);
        char buf[128];
        if (missing)
            printf("%s\tunavailable: needs %s", k->name, ciot_feature_list(missing, buf, sizeof buf));
        else
            printf("%s\tavailable", k->name);
        printf("\tsource=%s\tmac=%s", ciot_format_name(k->layout->source), mac_name(k->mac));
        if (k->mac_batch > 0) printf("\tmac_from=%d:%s", k->mac_batch, mac_name(k->mac_at_batch));
        printf("\n");
    }
    return 0;
}
