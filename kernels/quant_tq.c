/* TQ1_0 and TQ2_0 (mainline ggml types 34 and 35): reference quantizers, dequantizers and code access,
 * written from the layout facts in formats.h. Both quantizers: d = amax of the 256-block, id = 1/d in
 * fp32 (0 when d is 0), code = lroundf(x * id) + 1, fp16(d) stored. For finite inputs |x * id| rounds to
 * at most 1, so the codes are 0..2 and the clamp below never changes one (the runtime does not clamp). */
#include <math.h>
#include <string.h>
#include "fp16.h"
#include "quant.h"

static float tq_amax(const float *x) {
    float amax = 0;
    for (int j = 0; j < CIOT_QK_TQ; j++) amax = fmaxf(amax, fabsf(x[j]));
    return amax;
}

/* Codes of one 256-block and its scale, as both quantizers compute them. */
static uint16_t tq_codes(const float *x, uint8_t codes[CIOT_QK_TQ]) {
    const float d = tq_amax(x);
    const float id = d != 0 ? 1.0f / d : 0.0f;
    for (int j = 0; j < CIOT_QK_TQ; j++) {
        const long c = lroundf(x[j] * id) + 1;
        codes[j] = (uint8_t)(c < 0 ? 0 : c > 2 ? 2 : c);
    }
    return ciot_fp32_to_fp16(d);
}

int ciot_tq1_code(const block_tq1_0 *b, int k) {
    const int byte = ciot_tq1_byte(k);
    return ciot_ptq1_trit(byte < 48 ? b->qs[byte] : b->qh[byte - 48], ciot_tq1_trit_pos(k));
}

/* ciot_tq1_byte / ciot_tq1_trit_pos as three runs (quant.h): qs[0..31] hold weights 0..159, qs[32..47]
 * 160..239, qh 240..255. */
void ciot_tq1_codes(const block_tq1_0 *b, uint8_t codes[CIOT_QK_TQ]) {
    ciot_trit_run_decode(b->qs, 32, 5, codes);
    ciot_trit_run_decode(b->qs + 32, 16, 5, codes + 160);
    ciot_trit_run_decode(b->qh, 4, 4, codes + 240);
}

void ciot_tq1_set_codes(block_tq1_0 *b, const uint8_t codes[CIOT_QK_TQ]) {
    ciot_trit_run_pack(codes, 32, 5, b->qs);
    ciot_trit_run_pack(codes + 160, 16, 5, b->qs + 32);
    ciot_trit_run_pack(codes + 240, 4, 4, b->qh);
}

void ciot_tq2_set_codes(block_tq2_0 *b, const uint8_t codes[CIOT_QK_TQ]) {
    memset(b->qs, 0, sizeof b->qs);
    for (int k = 0; k < CIOT_QK_TQ; k++) b->qs[ciot_tq2_byte(k)] |= (uint8_t)((codes[k] & 3) << ciot_tq2_shift(k));
}

void ciot_quantize_tq1_0(const float *x, block_tq1_0 *y, int k) {
    for (int i = 0; i < k / CIOT_QK_TQ; i++, x += CIOT_QK_TQ) {
        uint8_t codes[CIOT_QK_TQ];
        y[i].d = tq_codes(x, codes);
        ciot_tq1_set_codes(&y[i], codes);
    }
}

void ciot_quantize_tq2_0(const float *x, block_tq2_0 *y, int k) {
    for (int i = 0; i < k / CIOT_QK_TQ; i++, x += CIOT_QK_TQ) {
        uint8_t codes[CIOT_QK_TQ];
        y[i].d = tq_codes(x, codes);
        ciot_tq2_set_codes(&y[i], codes);
    }
}

void ciot_dequantize_tq1_0(const block_tq1_0 *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK_TQ; i++) {
        const float d = ciot_fp16_to_fp32(x[i].d);
        uint8_t codes[CIOT_QK_TQ];
        ciot_tq1_codes(&x[i], codes);
        for (int j = 0; j < CIOT_QK_TQ; j++) *y++ = (float)(codes[j] - 1) * d;
    }
}

void ciot_dequantize_tq2_0(const block_tq2_0 *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK_TQ; i++) {
        const float d = ciot_fp16_to_fp32(x[i].d);
        for (int j = 0; j < CIOT_QK_TQ; j++) *y++ = (float)(ciot_tq2_code(&x[i], j) - 1) * d;
    }
}
