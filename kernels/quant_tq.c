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

void ciot_tq1_set_codes(block_tq1_0 *b, const uint8_t codes[CIOT_QK_TQ]) {
    uint8_t u[52][5] = {{0}};
    for (int k = 0; k < CIOT_QK_TQ; k++) u[ciot_tq1_byte(k)][ciot_tq1_trit_pos(k)] = codes[k];
    for (int j = 0; j < 48; j++) b->qs[j] = ciot_ptq1_pack5(u[j]);
    for (int j = 0; j < 4; j++) b->qh[j] = ciot_ptq1_pack4(u[48 + j]);
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
        for (int j = 0; j < CIOT_QK_TQ; j++) *y++ = (float)(ciot_tq1_code(&x[i], j) - 1) * d;
    }
}

void ciot_dequantize_tq2_0(const block_tq2_0 *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK_TQ; i++) {
        const float d = ciot_fp16_to_fp32(x[i].d);
        for (int j = 0; j < CIOT_QK_TQ; j++) *y++ = (float)(ciot_tq2_code(&x[i], j) - 1) * d;
    }
}
