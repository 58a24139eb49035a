/* ciot info's choice sections: the kernel chosen per source file, op, batch regime and thread count, and why
 * (choice.h). */
#include "info_choice.h"

#include <stdio.h>
#include "choice.h"
#include "place.h"
#include "registry.h"
#include "topo.h"

/* The regimes to show for a file and op at threads: the installed ones, or the one static regime. */
static int regimes_of(ciot_format f, ciot_op op, int threads, int *lo, int *hi, int max) {
    const ciot_tuned *t = ciot_choice_table();
    int n = 0;
    for (int i = 0; i < ciot_choice_installed() && n < max; i++)
        if (t[i].format == f && t[i].op == op && t[i].threads == threads) lo[n] = t[i].batch_min, hi[n++] = t[i].batch_max;
    if (!n) lo[0] = 1, hi[0] = op == CIOT_OP_GEMM ? 4096 : 1, n = 1;
    return n;
}

static const char *batches(ciot_op op, int lo, int hi, char *buf, size_t len) {
    if (op == CIOT_OP_GEMV) snprintf(buf, len, "decode");
    else if (lo == 1 && hi >= 4096) snprintf(buf, len, "any batch");
    else if (hi >= 4096) snprintf(buf, len, "batch %d+", lo);
    else snprintf(buf, len, lo == hi ? "batch %d" : "batch %d-%d", lo, hi);
    return buf;
}

void ciot_info_choices(unsigned cpu, int threads, int with_why) {
    for (int i = 0; i < ciot_layout_count(); i++) {
        const ciot_format f = ciot_layout_at(i)->source;
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= ciot_layout_at(j)->source == f;
        for (int op = CIOT_OP_GEMV; op <= CIOT_OP_GEMM && !seen; op++) {
            int lo[64], hi[64];
            const int n = regimes_of(f, (ciot_op)op, threads, lo, hi, 64);
            for (int r = 0; r < n; r++) {
                const ciot_choice_ask a = {f, NULL, (ciot_op)op, lo[r], threads, 0, 0, cpu};
                const ciot_choice c = ciot_kernel_choose(&a);
                char b[32], why[512];
                if (!c.kernel) continue;
                printf("  %-7s %s %-12s %s", ciot_format_name(f), op == CIOT_OP_GEMV ? "gemv" : "gemm",
                       batches((ciot_op)op, lo[r], hi[r], b, sizeof b), c.kernel->name);
                if (with_why) printf("  %s\n", ciot_choice_why(&c, why, sizeof why));
                else printf(" (layout %s)\n", c.kernel->layout->name);
            }
        }
    }
}

/* "NAME PUs LIST (N cores)" of each domain, comma-separated. */
static void print_domains(const ciot_domain *d, int n) {
    for (int i = 0; i < n; i++) {
        char pus[256];
        hwloc_bitmap_list_snprintf(pus, sizeof pus, d[i].pus);
        printf("%s%s PUs %s (%d core%s)", i ? ", " : "", d[i].name, pus, d[i].cores, d[i].cores == 1 ? "" : "s");
    }
    printf("\n");
}

void ciot_info_domains(void) {
    hwloc_topology_t t;
    ciot_domain d[CIOT_PLACE_MAX_DOMAINS];
    const char *level;
    if (ciot_topo_get(&t) != CIOT_OK) return;
    const int n = ciot_place_domains(t, d, CIOT_PLACE_MAX_DOMAINS, &level);
    printf("domains      %d by %s (--place): ", n, level);
    print_domains(d, n);
    ciot_place_free(d, n);
    const int k = ciot_place_kinds(t, d, CIOT_PLACE_MAX_DOMAINS);
    printf("cpu kinds    ");
    if (k > 1) print_domains(d, k);
    else printf("one kind (hwloc reports %s)\n", k ? "a single CPU kind" : "no CPU kinds");
    ciot_place_free(d, k);
}
