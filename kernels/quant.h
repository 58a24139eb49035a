/* Reference quantizers and dequantizers (kernels/formats.md), byte-exact with the runtime's. */
#ifndef CIOT_QUANT_H
#define CIOT_QUANT_H

#include <stddef.h>
#include <stdint.h>
#include "formats.h"

/* Inputs a format cannot represent, defined (the runtime's reference leaves them to chance or to
 * undefined behaviour; for every finite input the bytes are the runtime's):
 * - a block holding NaN or +-Inf is quantized with a NaN scale (fp32 for Q8_K, fp16 0x7e00 otherwise)
 *   and all codes zero (Q8: qs and bsums 0; PQ2_0, PTQ1_0: code 1, weight 0), so every output that
 *   reads the block is NaN: bad input is never silently turned into a finite number;
 * - a block so small that the inverse scale overflows (|amax| < 127 / FLT_MAX for Q8, < 1 / FLT_MAX for
 *   the weights) gets all codes zero (weight 0) and its scale as computed (a zero or a subnormal that
 *   rounds to fp16 0): the block contributes 0, as in the runtime.
 * Callers that must refuse such input instead (ciot run) find it with ciot_first_nonfinite. */
size_t ciot_first_nonfinite(const float *x, size_t n);   /* index of the first NaN or +-Inf, n when none */

/* Activations. k must be a multiple of the block (256 for Q8_K, 32 for Q8_0). */
void ciot_quantize_q8_K(const float *x, block_q8_K *y, int k);
void ciot_quantize_q8_0(const float *x, block_q8_0 *y, int k);
/* batch rows of k floats -> ceil(batch / 4) groups of k / 256 Q8_Kx4 blocks, group-major
 * (group g, K-block i at g * (k / 256) + i); rows past batch in the last group are zero. */
void ciot_quantize_q8_Kx4(const float *x, block_q8_Kx4 *y, int batch, int k);
/* Interleaves four Q8_K rows of one 256-block into Q8_Kx4 (NULL rows are zero), and back. */
void ciot_q8_Kx4_interleave(const block_q8_K *const rows[4], block_q8_Kx4 *out);
void ciot_q8_Kx4_row(const block_q8_Kx4 *in, int r, block_q8_K *out);
/* Recomputes bsums of a Q8_K block from its qs. */
void ciot_q8_K_bsums(block_q8_K *b);

/* Weights. k must be a multiple of 128. */
void ciot_quantize_pq2_0(const float *x, block_pq2_0 *y, int k);
void ciot_quantize_ptq1_0(const float *x, block_ptq1_0 *y, int k);
void ciot_dequantize_pq2_0(const block_pq2_0 *x, float *y, int k);
void ciot_dequantize_ptq1_0(const block_ptq1_0 *x, float *y, int k);
void ciot_dequantize_q8_K(const block_q8_K *x, float *y, int k);
void ciot_dequantize_q8_0(const block_q8_0 *x, float *y, int k);

/* PTQ1_0 bytes: five codes (u0 most significant) into a qs byte, four into a qh byte, and
 * trit n of a byte: floor(3 * ((b * 3^n) mod 256) / 256). */
static inline uint8_t ciot_ptq1_pack5(const uint8_t u[5]) {
    unsigned v = u[0] * 81u + u[1] * 27u + u[2] * 9u + u[3] * 3u + u[4];
    return (uint8_t)((v * 256 + 242) / 243);
}
static inline uint8_t ciot_ptq1_pack4(const uint8_t u[4]) {
    unsigned v = 3 * (u[0] * 27u + u[1] * 9u + u[2] * 3u + u[3]);
    return (uint8_t)((v * 256 + 242) / 243);
}
static inline int ciot_ptq1_trit(uint8_t b, int n) {
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    uint8_t v = (uint8_t)(b * pow3[n]);
    return (3 * v) >> 8;
}
/* Both trit formats split their bytes into runs: in a run of `count` bytes, trit n (n < trits) of byte j
 * holds the run's weight count * n + j. A whole run decoded and packed, one byte at a time. */
static inline void ciot_trit_run_decode(const uint8_t *bytes, int count, int trits, uint8_t *codes) {
    for (int n = 0; n < trits; n++)
        for (int j = 0; j < count; j++) codes[count * n + j] = (uint8_t)ciot_ptq1_trit(bytes[j], n);
}
static inline void ciot_trit_run_pack(const uint8_t *codes, int count, int trits, uint8_t *bytes) {
    for (int j = 0; j < count; j++) {
        uint8_t u[5] = {0};
        for (int n = 0; n < trits; n++) u[n] = codes[count * n + j];
        bytes[j] = trits == 5 ? ciot_ptq1_pack5(u) : ciot_ptq1_pack4(u);
    }
}
/* Code (0..2) of weight k (0..127) of a PTQ1_0 block. */
int ciot_ptq1_code(const block_ptq1_0 *b, int k);
/* All 128 codes at once: codes[k] == ciot_ptq1_code(b, k) for every k. */
void ciot_ptq1_codes(const block_ptq1_0 *b, uint8_t codes[128]);
/* Rebuilds a block's trit bytes from 128 codes (0..2); d is left as it is. */
void ciot_ptq1_set_codes(block_ptq1_0 *b, const uint8_t codes[128]);

/* TQ1_0 and TQ2_0 (quant_tq.c), byte-exact with the runtime's quantize_row_tq{1,2}_0_ref and its
 * dequantizers. k must be a multiple of 256. */
void ciot_quantize_tq1_0(const float *x, block_tq1_0 *y, int k);
void ciot_quantize_tq2_0(const float *x, block_tq2_0 *y, int k);
void ciot_dequantize_tq1_0(const block_tq1_0 *x, float *y, int k);
void ciot_dequantize_tq2_0(const block_tq2_0 *x, float *y, int k);
/* Code (0..2) of weight k (0..255) of a TQ1_0 block; every byte decodes to codes 0..2. */
int ciot_tq1_code(const block_tq1_0 *b, int k);
/* All 256 codes at once: codes[k] == ciot_tq1_code(b, k) for every k. */
void ciot_tq1_codes(const block_tq1_0 *b, uint8_t codes[256]);
/* Rebuilds a block's code bytes from 256 codes (TQ1_0: 0..2; TQ2_0: 0..3); d is left as it is. */
void ciot_tq1_set_codes(block_tq1_0 *b, const uint8_t codes[256]);
void ciot_tq2_set_codes(block_tq2_0 *b, const uint8_t codes[256]);

#endif
