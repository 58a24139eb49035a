/* ciot check --peer: a runtime's reading of the file formats ciot reads, against ciot's references. */
#ifndef CIOT_PEER_CHECK_H
#define CIOT_PEER_CHECK_H

#include <stdio.h>
#include "peer.h"

typedef struct {
    int passed, failed, skipped;   /* cases: one per type x pattern (dequantization), per type x pattern x
                                    * batch x threads (mul_mat) */
    int types;                     /* the module's types whose bytes are a format ciot reads */
} ciot_peer_check_counts;

/* For every type of the module whose bytes are a ciot file format (TQ1_0, TQ2_0, the prismml fork's Q2_0 as
 * PQ2_0), over every test pattern of the oracle:
 * - the runtime's dequantization of the same bytes equals ciot's reference, bit for bit;
 * - the runtime's mul_mat (its activation quantization included) is within the bound its float order allows
 *   of the exact product of those weights and the activations quantized to the type it names, by ciot's
 *   reference quantizer of that type: gamma(n + 7) x M, gamma(m) = m u / (1 - m u), u = 2^-24, n the
 *   activation blocks of a row. A runtime forms integer partial sums exactly, per SIMD lane, of unsigned
 *   codes times activations minus the activation sums, then multiplies each by the block's scale product
 *   (two roundings) and adds the lanes and blocks (one rounding per block in a lane, five more to reduce up
 *   to 32 lanes). A lane's integer is at most (largest code + 1) x sum |q| of its values, whatever the lane
 *   split, so M = sum over the row of |d_x d_w| (largest code + 1) |q|.
 * A disagreement is printed with its first example (type, pattern, row, column, both values). */
void ciot_peer_check(ciot_peer *p, FILE *log, ciot_peer_check_counts *counts);

#endif
