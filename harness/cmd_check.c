/* ciot check: the exactness oracle over every kernel this CPU can run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "oracle.h"

static int usage(FILE *f, int code) {
    fprintf(f, "usage: ciot check [--quick] [--kernel SUBSTRING] [--max-weights N] [--verbose]\n"
               "  every kernel this CPU can run, against the exact integer dot and its reference, bit for bit\n");
    return code;
}

int ciot_cmd_check(int argc, char **argv) {
    ciot_oracle_opts o = {0};
    o.log = stdout;
    o.verbose = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) o.quick = 1;
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) o.filter = argv[++i];
        else if (!strcmp(argv[i], "--max-weights") && i + 1 < argc) {
            char *end;
            o.max_weights = strtol(argv[++i], &end, 10);
            if (*end || o.max_weights <= 0) {
                fprintf(stderr, "ciot check: --max-weights takes a positive number, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return usage(stdout, 0);
        else {
            fprintf(stderr, "ciot check: unknown option '%s'\n", argv[i]);
            return usage(stderr, 2);
        }
    }
    ciot_oracle_result r;
    ciot_oracle_run(&o, &r);
    if (r.kernels_run == 0) {
        fprintf(stderr, "ciot check: no kernel matched%s%s\n", o.filter ? " " : "", o.filter ? o.filter : "");
        return 2;
    }
    printf("%d kernels checked, %d skipped\n%d passed, %d failed, %d skipped\n", r.kernels_run, r.kernels_skipped, r.passed,
           r.failed, r.skipped);
    return r.failed ? 1 : 0;
}
