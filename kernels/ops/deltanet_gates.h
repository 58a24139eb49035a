/* deltanet's gates, scalar and the same in every version (kernels/ops.md, step 3). Inline, so that each
 * version's file compiles its fused multiply-adds to the instruction where it has one rather than a libm
 * call: the same correctly rounded results, without 50 calls per value head. */
#ifndef CIOT_DELTANET_GATES_H
#define CIOT_DELTANET_GATES_H

#include "ops_impl.h"
#include "ops_math.h"

/* Phase 0's gates of value head h into scratch (2 values per head). */
static inline void ciot_deltanet_gates(const ciot_deltanet_args *a, int h) {
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    float g = -ciot_ops_expf(a->a_log[h]) * ciot_ops_softplusf(a->alpha[h] + a->dt_bias[h]);
    s.decay[h] = ciot_ops_expf(g);
    s.beta[h] = ciot_ops_sigmoidf(a->beta_in[h]);
}

#endif
