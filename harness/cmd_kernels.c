/* ciot kernels: one line per registered kernel, name<TAB>available or name<TAB>unavailable: needs X,
 * then <TAB>source=FORMAT, the file format the kernel reads (through its layout's load-time repack). */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cpu.h"
#include "registry.h"

int ciot_cmd_kernels(int argc, char **argv) {
    if (argc > 1) {
        int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        fprintf(help ? stdout : stderr, "usage: ciot kernels\n%s", help ? "" : "ciot kernels: takes no options\n");
        return help ? 0 : 2;
    }
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
