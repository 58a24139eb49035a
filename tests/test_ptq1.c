/* PTQ1_0 packing: every five-trit and four-trit value decodes back, weights sit where formats.md puts
 * them, and quantize/dequantize agree. */
#include <string.h>
#include "check.h"
#include "quant.h"

int main(void) {
    int bad5 = 0, bad4 = 0;
    for (int v = 0; v < 243; v++) {
        uint8_t u[5] = {(uint8_t)(v / 81), (uint8_t)(v / 27 % 3), (uint8_t)(v / 9 % 3), (uint8_t)(v / 3 % 3), (uint8_t)(v % 3)};
        const uint8_t b = ciot_ptq1_pack5(u);
        for (int n = 0; n < 5; n++)
            if (ciot_ptq1_trit(b, n) != u[n] && bad5++ < 5) printf("FAIL 5-trit %d byte %u trit %d\n", v, b, n);
        /* the SIMD form: -1 - mask(v >= 86) - mask(v >= 171) on (b * 3^n) mod 256 */
        static const uint8_t p3[5] = {1, 3, 9, 27, 81};
        for (int n = 0; n < 5; n++) {
            const uint8_t m = (uint8_t)(b * p3[n]);
            if ((m >= 86) + (m >= 171) != u[n] && bad5++ < 5) printf("FAIL compare decode %d trit %d\n", v, n);
        }
    }
    for (int v = 0; v < 81; v++) {
        uint8_t u[4] = {(uint8_t)(v / 27), (uint8_t)(v / 9 % 3), (uint8_t)(v / 3 % 3), (uint8_t)(v % 3)};
        const uint8_t b = ciot_ptq1_pack4(u);
        for (int n = 0; n < 4; n++)
            if (ciot_ptq1_trit(b, n) != u[n] && bad4++ < 5) printf("FAIL 4-trit %d byte %u trit %d\n", v, b, n);
    }
    CHECK(bad5 == 0, "%d five-trit decodes wrong (of 243 x 5 x 2)", bad5);
    CHECK(bad4 == 0, "%d four-trit decodes wrong (of 81 x 4)", bad4);

    /* placement, written from formats.md's table: one weight at a time set to 2 among zeros (code 0) */
    for (int k = 0; k < 128; k++) {
        uint8_t codes[128] = {0};
        codes[k] = 2;
        block_ptq1_0 b;
        ciot_ptq1_set_codes(&b, codes);
        int byte, n;
        if (k < 80) byte = k & 15, n = k >> 4;
        else if (k < 120) byte = 16 + ((k - 80) & 7), n = (k - 80) >> 3;
        else byte = 24 + ((k - 120) & 1), n = (k - 120) >> 1;
        const uint8_t v = byte < 24 ? b.qs[byte] : b.qh[byte - 24];
        CHECK(ciot_ptq1_trit(v, n) == 2, "weight %d not at byte %d trit %d", k, byte, n);
        int others = 0;
        for (int j = 0; j < 128; j++) others += j != k && ciot_ptq1_code(&b, j) != 0;
        CHECK(others == 0, "weight %d: %d other weights changed", k, others);
    }

    /* quantize -> dequantize returns (code - 1) * fp16(amax) */
    float x[256], y[256];
    for (int j = 0; j < 256; j++) x[j] = (float)((j * 7) % 3 - 1) * 0.25f;
    block_ptq1_0 q[2];
    ciot_quantize_ptq1_0(x, q, 256);
    ciot_dequantize_ptq1_0(q, y, 256);
    int bad = 0;
    for (int j = 0; j < 256; j++) bad += y[j] != (float)((j * 7) % 3 - 1) * 0.25f;
    CHECK(bad == 0, "%d dequantized PTQ1_0 values differ", bad);
    return check_summary();
}
