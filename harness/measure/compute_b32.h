/* What the compute probe's `_b32` loops share (kernels/isa.def): the shape of PTQ1_0's per-32 float order
 * as its gemms issue it. Each of CIOT_B32_CHAINS chains (the AVX2 loop: its own 6, compute_avx2.c) sums
 * CIOT_B32_STEPS multiply steps (32 weights of a vector of rows) in an integer register, then takes one fp32
 * step: the sum converted, the product of the two scales (one reloaded per chain, as a slice's row scales are,
 * one opaque, as an activation row's is) and one fused add into a float state in L1, as the gemms keep theirs. */
#ifndef CIOT_COMPUTE_B32_H
#define CIOT_COMPUTE_B32_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { CIOT_B32_CHAINS = 10, CIOT_B32_STEPS = 8 };

/* Operands of 1 (integer) and 1.0 (scales), float states of 0. */
static inline void ciot_b32_init(int8_t *w, size_t w_bytes, float *dw, float *acc, size_t floats) {
    memset(w, 1, w_bytes);
    for (size_t i = 0; i < floats; i++) dw[i] = 1.0f, acc[i] = 0.0f;
}

/* A checksum of the float states, so that no chain can be dropped. */
static inline uint64_t ciot_b32_checksum(const float *acc, size_t floats) {
    double s = 0;
    for (size_t i = 0; i < floats; i++) s += acc[i];
    return (uint64_t)s;
}

#endif
