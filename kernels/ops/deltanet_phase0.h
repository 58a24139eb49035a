/* deltanet's phase 0 as every version shares it (kernels/ops.md, steps 1 to 3): a unit around the version's
 * conv, dot and scale, and the gates, scalar. Inline, so that each version's file compiles the gates' fused
 * multiply-adds to the instruction where it has one rather than a libm call (the same correctly rounded
 * results, without 50 calls per value head), and its own pieces into the unit. */
#ifndef CIOT_DELTANET_PHASE0_H
#define CIOT_DELTANET_PHASE0_H

#include <math.h>
#include "ops_impl.h"
#include "ops_math.h"

/* Phase 0's gates of value head h into scratch (2 values per head). */
static inline void ciot_deltanet_gates(const ciot_deltanet_args *a, int h) {
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    float g = -ciot_ops_expf(a->a_log[h]) * ciot_ops_softplusf(a->alpha[h] + a->dt_bias[h]);
    s.decay[h] = ciot_ops_expf(g);
    s.beta[h] = ciot_ops_sigmoidf(a->beta_in[h]);
}

/* Phase 0's unit u (q head u, k head u - k_heads or v head u - 2 k_heads) with the version's pieces:
 * conv(qkv, state, w, dst, C, n, taps) runs the conv and SiLU of n channels from each array's first (taps
 * rows C apart); then a q or k head is L2-normalized (q also scaled by 1 / sqrt(head_dim)) with dot and
 * scale (x[i] * mul), a value head gets its gates. Inlined, and conv with it: taps is a constant where it is
 * Bonsai's 4, so the tap loops unroll and the unit's pointers stay in registers (with it read from the
 * arguments clang reloaded them every step; results/kernel-bounds.md, "DeltaNet"). */
typedef void ciot_deltanet_conv_fn(const float *qkv, float *state, const float *w, float *dst, size_t C, int n,
                                   int taps);
typedef float ciot_deltanet_dot_fn(const float *x, const float *y, int n);
typedef void ciot_deltanet_scale_fn(float *x, int n, float mul);
static inline __attribute__((always_inline)) void ciot_deltanet_unit(const ciot_deltanet_args *a, int u,
                                                                    ciot_deltanet_conv_fn *conv,
                                                                    ciot_deltanet_dot_fn *dot,
                                                                    ciot_deltanet_scale_fn *scale) {
    const int D = a->head_dim;
    const size_t C = (size_t)ciot_deltanet_channels(a), c = (size_t)u * D;
    float *dst = ciot_deltanet_scratch_of(a).q + c; /* q, k and v sit back to back in scratch, as in qkv */
    if (a->conv == 4) conv(a->qkv + c, a->conv_state + c, a->conv_w + c, dst, C, D, 4);
    else conv(a->qkv + c, a->conv_state + c, a->conv_w + c, dst, C, D, a->conv);
    if (u < 2 * a->k_heads) {
        float mul = 1.0f / sqrtf(dot(dst, dst, D) + a->eps);
        if (u < a->k_heads) mul = mul * (1.0f / sqrtf((float)D));
        scale(dst, D, mul);
    } else {
        ciot_deltanet_gates(a, u - 2 * a->k_heads);
    }
}

/* Phase 0 of one part: its share of the 2 k_heads + v_heads units, each as ciot_deltanet_unit runs it. */
static inline __attribute__((always_inline)) void ciot_deltanet_phase0(const ciot_deltanet_args *a, int part, int parts,
                                                                      ciot_deltanet_conv_fn *conv,
                                                                      ciot_deltanet_dot_fn *dot,
                                                                      ciot_deltanet_scale_fn *scale) {
    long lo, hi;
    ciot_ops_share(2 * a->k_heads + a->v_heads, part, parts, &lo, &hi);
    for (long u = lo; u < hi; u++) ciot_deltanet_unit(a, (int)u, conv, dot, scale);
}

#endif
