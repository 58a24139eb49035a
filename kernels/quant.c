/* Reference quantizers (kernels/formats.md): every rounding step as the runtime's reference does it. Inputs
 * the format cannot represent are defined here (quant.h): a block holding NaN or +-Inf gets a NaN scale
 * and zero codes, and no float is converted to an integer it does not fit (no undefined behaviour). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "fp16.h"
#include "quant.h"

/* Round to nearest, ties to even, via the 1.5 * 2^23 trick (default rounding mode). */
static inline int nearest_int(float f) {
    float v = f + 12582912.0f;
    int32_t bits;
    memcpy(&bits, &v, 4);
    return (bits & 0x007fffff) - 0x00400000;
}

void ciot_q8_K_bsums(block_q8_K *b) {
    for (int j = 0; j < 16; j++) {
        int s = 0;
        for (int e = 0; e < 16; e++) s += b->qs[16 * j + e];
        b->bsums[j] = (int16_t)s;
    }
}

size_t ciot_first_nonfinite(const float *x, size_t n) {
    for (size_t j = 0; j < n; j++)
        if (!(fabsf(x[j]) <= FLT_MAX)) return j;
    return n;
}

static int any_nonfinite(const float *x, int n) { return ciot_first_nonfinite(x, (size_t)n) < (size_t)n; }

void ciot_quantize_q8_K(const float *x, block_q8_K *y, int k) {
    for (int i = 0; i < k / CIOT_QK_K; i++, x += CIOT_QK_K) {
        float amax = 0, max = 0;
        int nan = 0;   /* found in the same pass: the scan never picks a NaN, and an Inf becomes amax */
        for (int j = 0; j < CIOT_QK_K; j++) {
            float ax = fabsf(x[j]);
            nan |= ax != ax;
            if (ax > amax) { amax = ax; max = x[j]; }
        }
        memset(&y[i], 0, sizeof y[i]);
        if (nan || isinf(amax)) {
            y[i].d = NAN;
            continue;
        }
        if (amax == 0) continue;
        const float iscale = -127.f / max;
        /* |max| < 127 / FLT_MAX: iscale overflows and every product is +-Inf or NaN, which the runtime's
         * bit trick turns into codes 0; written out here, as d = 1 / iscale (a signed zero). */
        if (isinf(iscale)) {
            y[i].d = 1 / iscale;
            continue;
        }
        for (int j = 0; j < CIOT_QK_K; j++) {
            int v = nearest_int(iscale * x[j]);
            y[i].qs[j] = (int8_t)(v < 127 ? v : 127);
        }
        ciot_q8_K_bsums(&y[i]);
        y[i].d = 1 / iscale;
    }
}

void ciot_q8_Kx4_interleave(const block_q8_K *const rows[4], block_q8_Kx4 *out) {
    memset(out, 0, sizeof *out);
    for (int r = 0; r < 4; r++) {
        if (!rows[r]) continue;
        out->d[r] = rows[r]->d;
        for (int c = 0; c < 32; c++) memcpy(&out->qs[32 * c + 8 * r], &rows[r]->qs[8 * c], 8);
        for (int g = 0; g < 16; g++) out->bsums[16 * (g >> 2) + 4 * r + (g & 3)] = rows[r]->bsums[g];
    }
}

void ciot_q8_Kx4_row(const block_q8_Kx4 *in, int r, block_q8_K *out) {
    out->d = in->d[r];
    for (int c = 0; c < 32; c++) memcpy(&out->qs[8 * c], &in->qs[32 * c + 8 * r], 8);
    for (int g = 0; g < 16; g++) out->bsums[g] = in->bsums[16 * (g >> 2) + 4 * r + (g & 3)];
}

void ciot_quantize_q8_Kx4(const float *x, block_q8_Kx4 *y, int batch, int k) {
    const int nb = k / CIOT_QK_K;
    for (int g = 0; g < (batch + 3) / 4; g++) {
        for (int i = 0; i < nb; i++) {
            block_q8_K q[4];
            const block_q8_K *rows[4] = {0};
            for (int r = 0; r < 4 && 4 * g + r < batch; r++) {
                ciot_quantize_q8_K(x + (size_t)(4 * g + r) * k + (size_t)i * CIOT_QK_K, &q[r], CIOT_QK_K);
                rows[r] = &q[r];
            }
            ciot_q8_Kx4_interleave(rows, &y[(size_t)g * nb + i]);
        }
    }
}

void ciot_quantize_q8_0(const float *x, block_q8_0 *y, int k) {
    for (int i = 0; i < k / CIOT_QK8_0; i++, x += CIOT_QK8_0) {
        float amax = 0;
        int nan = 0;   /* found in the same pass: fmaxf skips a NaN, and an Inf becomes amax */
        for (int j = 0; j < CIOT_QK8_0; j++) {
            nan |= x[j] != x[j];
            amax = fmaxf(amax, fabsf(x[j]));
        }
        const float d = amax / 127;
        const float id = d ? 1.0f / d : 0.0f;
        const int bad = nan || isinf(amax);
        y[i].d = ciot_fp32_to_fp16(bad ? NAN : d);
        /* Non-finite input, or 1 / d overflowing (d < 1 / FLT_MAX, whose fp16 is 0 anyway): codes 0. */
        if (bad || isinf(id)) {
            memset(y[i].qs, 0, sizeof y[i].qs);
            continue;
        }
        /* int8 safe: |x| <= amax, so |x * id| rounds to at most 127 */
        for (int j = 0; j < CIOT_QK8_0; j++) y[i].qs[j] = (int8_t)roundf(x[j] * id);
    }
}

/* amax of a block and the fp32 inverse scale the codes come from. */
static float block_amax(const float *x, int n) {
    float amax = 0;
    for (int j = 0; j < n; j++) amax = fmaxf(amax, fabsf(x[j]));
    return amax;
}

void ciot_quantize_pq2_0(const float *x, block_pq2_0 *y, int k) {
    for (int i = 0; i < k / CIOT_QK; i++, x += CIOT_QK) {
        const float d = block_amax(x, CIOT_QK);
        const float id = d > 0 ? 1.0f / d : 0.0f;
        const int bad = any_nonfinite(x, CIOT_QK);
        y[i].d = ciot_fp32_to_fp16(bad ? NAN : d);
        memset(y[i].qs, 0, sizeof y[i].qs);
        /* Non-finite input, or 1 / d overflowing (d below fp16's range): code 1 (weight 0) throughout. */
        if (bad || isinf(id)) {
            memset(y[i].qs, 0x55, sizeof y[i].qs);
            continue;
        }
        for (int j = 0; j < CIOT_QK; j++) {
            int c = (int)roundf(x[j] * id) + 1; /* int safe: |x * id| <= 1 */
            c = c < 0 ? 0 : c > 3 ? 3 : c;
            y[i].qs[j >> 2] |= (uint8_t)(c << (2 * (j & 3)));
        }
    }
}

/* Where weight k sits: byte index into the 26 trit bytes (qs then qh) and trit position n. */
static void ptq1_place(int k, int *byte, int *n) {
    if (k < 80) { *byte = k & 15; *n = k >> 4; }
    else if (k < 120) { *byte = 16 + ((k - 80) & 7); *n = (k - 80) >> 3; }
    else { *byte = 24 + ((k - 120) & 1); *n = (k - 120) >> 1; }
}

int ciot_ptq1_code(const block_ptq1_0 *b, int k) {
    int byte, n;
    ptq1_place(k, &byte, &n);
    return ciot_ptq1_trit(byte < 24 ? b->qs[byte] : b->qh[byte - 24], n);
}

/* ptq1_place as three runs (quant.h): qs[0..15] hold weights 0..79, qs[16..23] 80..119, qh 120..127. */
void ciot_ptq1_codes(const block_ptq1_0 *b, uint8_t codes[128]) {
    ciot_trit_run_decode(b->qs, 16, 5, codes);
    ciot_trit_run_decode(b->qs + 16, 8, 5, codes + 80);
    ciot_trit_run_decode(b->qh, 2, 4, codes + 120);
}

void ciot_ptq1_set_codes(block_ptq1_0 *b, const uint8_t codes[128]) {
    ciot_trit_run_pack(codes, 16, 5, b->qs);
    ciot_trit_run_pack(codes + 80, 8, 5, b->qs + 16);
    ciot_trit_run_pack(codes + 120, 2, 4, b->qh);
}

void ciot_quantize_ptq1_0(const float *x, block_ptq1_0 *y, int k) {
    for (int i = 0; i < k / CIOT_QK; i++, x += CIOT_QK) {
        const float d = block_amax(x, CIOT_QK);
        const float id = d > 0 ? 1.0f / d : 0.0f;
        const int bad = any_nonfinite(x, CIOT_QK);
        uint8_t codes[128];
        for (int j = 0; j < CIOT_QK; j++) {
            /* A non-finite input, or 1 / d overflowing (d below fp16's range): code 1 (weight 0). */
            long c = bad || isinf(id) ? 1 : lroundf(x[j] * id) + 1;
            codes[j] = (uint8_t)(c < 0 ? 0 : c > 2 ? 2 : c);
        }
        ciot_ptq1_set_codes(&y[i], codes);
        y[i].d = ciot_fp32_to_fp16(bad ? NAN : d);
    }
}

void ciot_dequantize_pq2_0(const block_pq2_0 *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK; i++) {
        const float d = ciot_fp16_to_fp32(x[i].d);
        for (int j = 0; j < CIOT_QK; j++) *y++ = (float)(ciot_pq2_code(&x[i], j) - 1) * d;
    }
}

void ciot_dequantize_ptq1_0(const block_ptq1_0 *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK; i++) {
        const float d = ciot_fp16_to_fp32(x[i].d);
        uint8_t codes[CIOT_QK];
        ciot_ptq1_codes(&x[i], codes);
        for (int j = 0; j < CIOT_QK; j++) *y++ = (float)(codes[j] - 1) * d;
    }
}

void ciot_dequantize_q8_K(const block_q8_K *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK_K; i++)
        for (int j = 0; j < CIOT_QK_K; j++) *y++ = x[i].d * x[i].qs[j];
}

void ciot_dequantize_q8_0(const block_q8_0 *x, float *y, int k) {
    for (int i = 0; i < k / CIOT_QK8_0; i++) {
        const float d = ciot_fp16_to_fp32(x[i].d);
        for (int j = 0; j < CIOT_QK8_0; j++) *y++ = d * x[i].qs[j];
    }
}
