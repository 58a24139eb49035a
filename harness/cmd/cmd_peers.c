/* ciot peers MODULE: what a peer module offers (peers/peer_abi.h): the runtime it was built from, and per
 * type its name, bits per weight at the gemm's K, block, activation type and whether it is ternary. */
#include <stdio.h>
#include "commands.h"
#include "opts.h"
#include "peer.h"

enum { SAMPLE_K = 5120 };   /* the default gemm's K, a multiple of every block: bits per weight with row metadata */

int ciot_cmd_peers(int argc, char **argv) {
    const ciot_cmdline c = {"peers", "MODULE",
                            "What a peer module offers: the runtime it was built from and, per type (the runtime's\n"
                            "own name), bits per weight at K = 5120 (row metadata included), weights per block,\n"
                            "the activation type its mul_mat quantizes to, and whether it is ternary. MODULE is a\n"
                            "path or a NAME made by scripts/peer-build (build/peers/NAME/).",
                            NULL, 0, NULL, 1};
    char *rest[2] = {NULL, NULL};
    int n_rest = 0;
    int rc = ciot_opts_parse(&c, argc, argv, rest, &n_rest);
    if (rc >= 0) return rc;
    if (n_rest != 1) return ciot_opts_fail(&c, "which module? (a peer MODULE is required)");
    char why[4352];
    ciot_peer *p;
    if (ciot_peer_open(rest[0], &p, why, sizeof why) != CIOT_OK) {
        ciot_say("peers", "%s", why);
        return 2;
    }
    const ciot_peer_api *a = ciot_peer_api_of(p);
    printf("module   %s (%s)\nengine   %s\nbuild    %s\nabi      %u\n\n", ciot_peer_name(p), ciot_peer_path(p), a->engine,
           a->build, a->abi);
    printf("%-12s %9s %6s %-8s %s\n", "type", "bits/w", "block", "acts", "ternary");
    for (int i = 0; i < a->n_types; i++) {
        const ciot_peer_type *t = &a->types[i];
        printf("%-12s %9.4f %6d %-8s %s\n", t->name, ciot_peer_bits_per_weight(p, i, SAMPLE_K), t->block_values, t->act,
               t->ternary ? "yes" : "no");
    }
    ciot_peer_close(p);
    return 0;
}
