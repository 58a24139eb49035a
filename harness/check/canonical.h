/* Expected outputs computed from values, never through a kernel or a decoder under test: the canonical
 * float order of kernels/formats.md (kernels/README-tq.md for TQ1_0 and TQ2_0) from weight codes, scales
 * and int8 activations, and an independent reading of source blocks into codes and scales. The oracle's
 * and `ciot check --gguf`'s expected results. */
#ifndef CIOT_CANONICAL_H
#define CIOT_CANONICAL_H

#include <stdint.h>
#include "kernel.h"

/* One weight row against one activation row. codes: K codes (0..3); dw: the row's fp16 scales, one per
 * block of the format (128 or 256 weights); a: K int8 activations; dy: their scales, one per 256 values
 * (Q8_K d), or for PTQ1_0 one per 32 values (fp32 of the Q8_0 fp16 d). */
float ciot_canonical_row(ciot_format f, int K, const uint8_t *codes, const uint16_t *dw, const int8_t *a,
                         const float *dy);

/* rows x K source weights of format f -> codes[r * K + k] and the fp16 scales (one per block, row-major).
 * Reads each byte and assigns the weights it holds, written from the format tables rather than through
 * the position helpers the quantizers and kernels use; trits by the compare form of kernels/formats.md. */
void ciot_source_codes(ciot_format f, const void *src, int rows, int K, uint8_t *codes, uint16_t *scales);

#endif
