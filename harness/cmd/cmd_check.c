/* ciot check: the exactness oracle over every kernel this CPU can run, on drawn weights or on the real
 * tensors of a GGUF file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "gguf_check.h"
#include "opts.h"
#include "oracle.h"
#include "peer_check.h"

/* --peer: the runtime's reading of ciot's file formats (peer_check.h). */
static int check_peer(const char *module) {
    char why[4352];
    ciot_peer *p;
    if (ciot_peer_open(module, &p, why, sizeof why) != CIOT_OK) {
        ciot_say("check", "--peer %s", why);
        return 2;
    }
    ciot_peer_check_counts n;
    ciot_peer_check(p, stdout, &n);
    if (!n.types) {
        char list[1024];
        ciot_say("check", "--peer %s: no type of %s has the bytes of a format ciot reads (q2_0 as PQ2_0, tq1_0, tq2_0; "
                          "its types: %s)", module, ciot_peer_name(p), ciot_peer_type_list(p, list, sizeof list));
        ciot_peer_close(p);
        return 2;
    }
    printf("%d types checked against %s\n%d passed, %d failed, %d skipped\n", n.types, ciot_peer_api_of(p)->build, n.passed,
           n.failed, n.skipped);
    ciot_peer_close(p);
    return n.failed ? 1 : 0;
}

static int check_gguf(const char *path, const ciot_gguf_check_opts *o) {
    ciot_gguf *g;
    char why[512];
    ciot_status s = ciot_gguf_open(path, &g, why, sizeof why);
    if (s != CIOT_OK) {
        ciot_say("check", "%s: %s", path, why);
        return s == CIOT_E_NOMEM ? 1 : 2;
    }
    ciot_gguf_check_result r;
    s = ciot_gguf_check(g, o, &r, stdout, why, sizeof why);
    ciot_gguf_close(g);
    if (s != CIOT_OK) {
        if (s == CIOT_E_ARG) ciot_say("check", "%s", why);
        else ciot_say("check", "%s: %s", path, why);
        return s == CIOT_E_NOMEM ? 1 : 2;
    }
    if (r.tensors_checked == 0) {
        ciot_say("check", "no ternary tensor of %s%s%s has a kernel this CPU runs%s%s", path,
                 o->tensor_regex ? " matching --tensors " : "", o->tensor_regex ? o->tensor_regex : "",
                 o->kernel_filter ? " among --kernel " : "", o->kernel_filter ? o->kernel_filter : "");
        return 2;
    }
    printf("%d tensors checked, %d skipped\n%d passed, %d failed, %d skipped\n", r.tensors_checked, r.tensors_skipped,
           r.passed, r.failed, r.skipped);
    return r.failed ? 1 : 0;
}

int ciot_cmd_check(int argc, char **argv) {
    ciot_oracle_opts o = {.log = stdout, .verbose = 1};
    const char *gguf = NULL, *filter = NULL, *peer = NULL;
    ciot_gguf_check_opts go = {0};
    int max_weights = 0, quiet = 0, verbose = 0;
    const ciot_opt opts[] = {
        {"--quick", CIOT_OPT_FLAG, &o.quick, 0, 0, NULL, NULL, "fewer, smaller shapes (cases up to 1M weights x batch)", NULL},
        {"--kernel", CIOT_OPT_STRING, &filter, 0, 0, NULL, "SUBSTRING", "only the kernels whose name contains it", NULL},
        {"--max-weights", CIOT_OPT_INT, &max_weights, 1, 2e9, NULL, "N",
         "leave out cases above N weights x batch (default 6M; --quick 1M)", NULL},
        {"--gguf", CIOT_OPT_STRING, &gguf, 0, 0, NULL, "FILE",
         "instead of drawn weights, every 2-D ternary tensor of a GGUF file", NULL},
        {"--tensors", CIOT_OPT_STRING, &go.tensor_regex, 0, 0, NULL, "REGEX",
         "with --gguf: the tensors whose name matches (POSIX extended)", NULL},
        {"--peer", CIOT_OPT_STRING, &peer, 0, 0, NULL, "MODULE",
         "instead of the kernels, a runtime's own dequantizer and mul_mat (a peer module) on the\n"
         "formats ciot reads: bit for bit, and within the bound of its float order", NULL},
        {"--verbose", CIOT_OPT_FLAG, &verbose, 0, 0, NULL, NULL, "one line per kernel (the default)", NULL},
        {"--quiet", CIOT_OPT_FLAG, &quiet, 0, 0, NULL, NULL, "only failures, skipped kernels and the summary", NULL},
    };
    const ciot_cmdline c = {"check", "[options]",
                            "Every kernel this CPU can run against the exact integer dot and its reference twin,\n"
                            "bit for bit, over shapes, batches, edge inputs and every slice a pool could cut; with\n"
                            "--gguf, every kernel that takes a tensor, on its real bytes, against the canonical\n"
                            "result read from them. Ends with \"N passed, M failed, K skipped\" (K: the cases of\n"
                            "kernels this CPU cannot run); exit 1 when a case failed.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc >= 0) return rc;
    if (quiet && verbose) return ciot_opts_fail(&c, "--quiet and --verbose contradict each other");
    o.verbose = !quiet;
    o.filter = go.kernel_filter = filter;
    o.max_weights = max_weights;
    if (peer) {
        if (gguf || filter || o.quick || max_weights)
            return ciot_opts_fail(&c, "--peer takes no other option: it checks the runtime's types, not ciot's kernels");
        return check_peer(peer);
    }
    if (go.tensor_regex && !gguf) return ciot_opts_fail(&c, "--tensors needs --gguf FILE");
    if (gguf) {
        if (o.quick || o.max_weights)
            return ciot_opts_fail(&c, "--quick and --max-weights apply to drawn weights, not to --gguf");
        return check_gguf(gguf, &go);
    }
    ciot_oracle_result r;
    ciot_oracle_run(&o, &r);
    if (r.kernels_run == 0) {
        ciot_say("check", "no kernel matched%s%s%s", o.filter ? " " : "", o.filter ? o.filter : "",
                 r.kernels_skipped ? " that this CPU can run" : "");
        return 2;
    }
    printf("%d kernels checked, %d skipped\n%d passed, %d failed, %d skipped\n", r.kernels_run, r.kernels_skipped, r.passed,
           r.failed, r.skipped);
    return r.failed ? 1 : 0;
}
