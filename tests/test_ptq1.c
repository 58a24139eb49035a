/* PTQ1_0 packing: every five-trit and four-trit value decodes back, weights sit where formats.md puts
 * them, the block decoders (PTQ1_0 and TQ1_0, the same byte codec) agree with the one-weight ones on every
 * byte value in every position, and quantize/dequantize agree. */
#include <string.h>
#include "check.h"
#include "quant.h"

/* Block v of 256 has (v + 97 p) & 255 at trit byte p: every position meets every byte value, and
 * neighbouring positions differ, so a decoder reading the wrong byte or trit fails. */
static uint8_t sweep_byte(int v, int p) { return (uint8_t)((v + 97 * p) & 255); }

#define CANARY 0xa5 /* written past the codes: a block decoder must not touch it */

static void ptq1_block_decoder(void) {
    int bad = 0, over = 0;
    for (int v = 0; v < 256; v++) {
        block_ptq1_0 b;
        for (int p = 0; p < 24; p++) b.qs[p] = sweep_byte(v, p);
        for (int p = 0; p < 2; p++) b.qh[p] = sweep_byte(v, 24 + p);
        b.d = 0x3c00;
        uint8_t codes[128 + 4];
        memset(codes, CANARY, sizeof codes);
        ciot_ptq1_codes(&b, codes);
        for (int k = 0; k < 128; k++)
            if (codes[k] != ciot_ptq1_code(&b, k) && bad++ < 5)
                printf("FAIL PTQ1_0 sweep %d weight %d: block decoder %u, one-weight %d\n", v, k, codes[k],
                       ciot_ptq1_code(&b, k));
        for (int j = 128; j < 132; j++) over += codes[j] != CANARY;
    }
    CHECK(bad == 0, "%d PTQ1_0 block-decoded codes differ from ciot_ptq1_code (of 256 x 128)", bad);
    CHECK(over == 0, "ciot_ptq1_codes wrote %d bytes past its 128 codes", over);
}

static void tq1_block_decoder(void) {
    int bad = 0, over = 0;
    for (int v = 0; v < 256; v++) {
        block_tq1_0 b;
        for (int p = 0; p < 48; p++) b.qs[p] = sweep_byte(v, p);
        for (int p = 0; p < 4; p++) b.qh[p] = sweep_byte(v, 48 + p);
        b.d = 0x3c00;
        uint8_t codes[256 + 4];
        memset(codes, CANARY, sizeof codes);
        ciot_tq1_codes(&b, codes);
        for (int k = 0; k < 256; k++)
            if (codes[k] != ciot_tq1_code(&b, k) && bad++ < 5)
                printf("FAIL TQ1_0 sweep %d weight %d: block decoder %u, one-weight %d\n", v, k, codes[k],
                       ciot_tq1_code(&b, k));
        for (int j = 256; j < 260; j++) over += codes[j] != CANARY;
    }
    CHECK(bad == 0, "%d TQ1_0 block-decoded codes differ from ciot_tq1_code (of 256 x 256)", bad);
    CHECK(over == 0, "ciot_tq1_codes wrote %d bytes past its 256 codes", over);
}

/* The packer against formats.md's table: block v puts the five-trit value (v + 7p) % 243 (four-trit
 * (v + 7p) % 81 in qh) at byte p, so every valid value meets every position; each byte must be its pack,
 * and the block decoder must give the codes back. */
static int sweep_value(int v, int p) { return p < 24 ? (v + 7 * p) % 243 : (v + 7 * p) % 81; }

static void ptq1_packer(void) {
    int bad = 0, back = 0;
    for (int v = 0; v < 243; v++) {
        uint8_t u[26][5] = {{0}}, codes[128];
        for (int p = 0; p < 26; p++)
            for (int n = p < 24 ? 4 : 3, x = sweep_value(v, p); n >= 0; n--, x /= 3) u[p][n] = (uint8_t)(x % 3);
        for (int k = 0; k < 128; k++) {
            int byte, n;
            if (k < 80) byte = k & 15, n = k >> 4;
            else if (k < 120) byte = 16 + ((k - 80) & 7), n = (k - 80) >> 3;
            else byte = 24 + ((k - 120) & 1), n = (k - 120) >> 1;
            codes[k] = u[byte][n];
        }
        block_ptq1_0 b;
        ciot_ptq1_set_codes(&b, codes);
        for (int p = 0; p < 26; p++) {
            const uint8_t got = p < 24 ? b.qs[p] : b.qh[p - 24], want = p < 24 ? ciot_ptq1_pack5(u[p]) : ciot_ptq1_pack4(u[p]);
            if (got != want && bad++ < 5) printf("FAIL PTQ1_0 pack %d byte %d: %u, want %u\n", v, p, got, want);
        }
        uint8_t again[128];
        ciot_ptq1_codes(&b, again);
        back += memcmp(again, codes, sizeof codes) != 0;
    }
    CHECK(bad == 0, "%d PTQ1_0 packed bytes wrong (of 243 x 26)", bad);
    CHECK(back == 0, "%d PTQ1_0 blocks did not decode back to their codes (of 243)", back);
}

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

    ptq1_block_decoder();
    tq1_block_decoder();
    ptq1_packer();

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
