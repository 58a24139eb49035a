/* state_copy: checks, sizes and the reference (a plain copy). */
#include <stdint.h>
#include <string.h>
#include "ops_impl.h"

ciot_status ciot_state_copy_check(const ciot_state_copy_args *a, char *why, size_t len) {
    if (!a->src || !a->dst) return ciot_error(CIOT_E_ARG, why, len, "state_copy: a NULL pointer");
    uintptr_t s = (uintptr_t)a->src, d = (uintptr_t)a->dst;
    if (a->bytes && s < d + a->bytes && d < s + a->bytes)
        return ciot_error(CIOT_E_ARG, why, len, "state_copy: source and destination overlap");
    return CIOT_OK;
}

int ciot_state_copy_phases(const ciot_state_copy_args *a) { return 1; }
size_t ciot_state_copy_scratch_bytes(const ciot_state_copy_args *a) { return 0; }

void ciot_state_copy_traffic(const ciot_state_copy_args *a, ciot_op_traffic *t) {
    *t = (ciot_op_traffic){.state_read = a->bytes, .state_written = a->bytes};
}
size_t ciot_state_copy_bytes(const ciot_state_copy_args *a) { return 2 * a->bytes; }

void ciot_state_copy_share(const ciot_state_copy_args *a, int part, int parts, size_t *lo, size_t *hi) {
    size_t lines = (a->bytes + 63) / 64;
    *lo = lines * part / parts * 64;
    *hi = lines * (part + 1) / parts * 64;
    if (*hi > a->bytes) *hi = a->bytes;
    if (*lo > *hi) *lo = *hi;
}

void ciot_state_copy_ref(const ciot_state_copy_args *a, int phase, int part, int parts) {
    size_t lo, hi;
    ciot_state_copy_share(a, part, parts, &lo, &hi);
    if (hi > lo) memcpy((char *)a->dst + lo, (const char *)a->src + lo, hi - lo);
}
