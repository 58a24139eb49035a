/* t2p_gemv_mutant_ref: a test-only kernel, registered only in the ciot_mutant test build: t2p_gemv_ref
 * with the lowest bit of the last row's output flipped. ciot check must fail it, with a non-zero exit;
 * the ctest entries that run it pass only because that failure is expected (tests/mutant.cmake). */
#include <stdint.h>
#include <string.h>
#include "kernel.h"

extern const ciot_kernel ciot_k_t2p_gemv_ref;

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_k_t2p_gemv_ref.compute(mm, first, count);
    const int last = mm->rows - 1;
    if (last >= 4 * first && last < 4 * (first + count)) {
        uint32_t bits;
        memcpy(&bits, &mm->y[last], 4);
        bits ^= 1;
        memcpy(&mm->y[last], &bits, 4);
    }
}

CIOT_KERNEL(t2p_gemv_mutant_ref, t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .compute = gemv, .mac = CIOT_MAC_SCALAR);
