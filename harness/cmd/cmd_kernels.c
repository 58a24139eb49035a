/* ciot kernels: one line per registered kernel, name<TAB>available or name<TAB>unavailable: needs X,
 * then <TAB>source=FORMAT, the file format the kernel reads (through its layout's load-time repack). */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "opts.h"
#include "registry.h"

int ciot_cmd_kernels(int argc, char **argv) {
    const ciot_cmdline c = {"kernels", "", "One line per registered kernel: name<TAB>available (or unavailable: needs X)\n"
                            "<TAB>source=FORMAT, the file format the kernel reads.", NULL, 0, NULL, 0};
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
        printf("\tsource=%s\n", ciot_format_name(k->layout->source));
    }
    return 0;
}
