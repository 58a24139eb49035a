/* ciot check: the exactness oracle over every kernel this CPU can run, on drawn weights or on the real
 * tensors of a GGUF file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "gguf_check.h"
#include "oracle.h"

static int usage(FILE *f, int code) {
    fprintf(f, "usage: ciot check [--quick] [--kernel SUBSTRING] [--max-weights N] [--verbose]\n"
               "       ciot check --gguf FILE [--tensors REGEX] [--kernel SUBSTRING]\n"
               "  every kernel this CPU can run, against the exact integer dot and its reference, bit for bit;\n"
               "  with --gguf, on each 2-D ternary tensor of FILE whose name matches REGEX (POSIX extended):\n"
               "  every kernel that takes it, against the canonical result from its bytes and its reference\n");
    return code;
}

static int check_gguf(const char *path, const ciot_gguf_check_opts *o) {
    ciot_gguf *g;
    char why[512];
    ciot_status s = ciot_gguf_open(path, &g, why, sizeof why);
    if (s != CIOT_OK) {
        fprintf(stderr, "ciot check: %s: %s\n", path, why);
        return s == CIOT_E_NOMEM ? 1 : 2;
    }
    ciot_gguf_check_result r;
    s = ciot_gguf_check(g, o, &r, stdout, why, sizeof why);
    ciot_gguf_close(g);
    if (s != CIOT_OK) {
        fprintf(stderr, "ciot check: %s\n", why);
        return 2;
    }
    if (r.tensors_checked == 0) {
        fprintf(stderr, "ciot check: no ternary tensor of %s%s%s has a kernel this CPU runs\n", path,
                o->tensor_regex ? " matches " : "", o->tensor_regex ? o->tensor_regex : "");
        return 2;
    }
    printf("%d tensors checked, %d skipped\n%d passed, %d failed\n", r.tensors_checked, r.tensors_skipped, r.passed,
           r.failed);
    return r.failed ? 1 : 0;
}

int ciot_cmd_check(int argc, char **argv) {
    ciot_oracle_opts o = {0};
    o.log = stdout;
    o.verbose = 1;
    const char *gguf = NULL;
    ciot_gguf_check_opts go = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) o.quick = 1;
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) o.filter = go.kernel_filter = argv[++i];
        else if (!strcmp(argv[i], "--gguf") && i + 1 < argc) gguf = argv[++i];
        else if (!strcmp(argv[i], "--tensors") && i + 1 < argc) go.tensor_regex = argv[++i];
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
    if (go.tensor_regex && !gguf) {
        fprintf(stderr, "ciot check: --tensors needs --gguf FILE\n");
        return 2;
    }
    if (gguf) {
        if (o.quick || o.max_weights) {
            fprintf(stderr, "ciot check: --quick and --max-weights apply to drawn weights, not to --gguf\n");
            return 2;
        }
        return check_gguf(gguf, &go);
    }
    ciot_oracle_result r;
    ciot_oracle_run(&o, &r);
    if (r.kernels_run == 0) {
        fprintf(stderr, "ciot check: no kernel matched%s%s\n", o.filter ? " " : "", o.filter ? o.filter : "");
        return 2;
    }
    printf("%d kernels checked, %d skipped\n%d passed, %d failed\n", r.kernels_run, r.kernels_skipped, r.passed, r.failed);
    return r.failed ? 1 : 0;
}
