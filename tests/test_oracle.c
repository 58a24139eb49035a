/* The oracle over the whole registry: every kernel this CPU runs, unit and scaled, every slice.
 * CIOT_ORACLE_MAX_WEIGHTS sizes the cases (smaller under emulation); CIOT_ORACLE_FILTER keeps the
 * kernels whose name contains it (the mutation check runs only its mutant). */
#include <stdlib.h>
#include "oracle.h"

int main(void) {
    ciot_oracle_opts o = {0};
    o.log = stdout;
    o.verbose = 1;
    const char *cap = getenv("CIOT_ORACLE_MAX_WEIGHTS");
    if (cap) o.max_weights = atol(cap);
    o.filter = getenv("CIOT_ORACLE_FILTER");
    ciot_oracle_result r;
    ciot_oracle_run(&o, &r);
    printf("%d kernels checked, %d skipped (listed above with the reason)\n", r.kernels_run, r.kernels_skipped);
    printf("%d passed, %d failed, %d skipped\n", r.passed, r.failed, r.skipped);
    return r.failed || r.kernels_run == 0 ? 1 : 0;
}
