/* Our reference quantizers reproduce the runtime's bytes: every record of the golden files. For TQ1_0 and
 * TQ2_0 the records also hold the runtime's dequantized floats: our decoders must give them bit for bit,
 * from the golden block. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "quant.h"

static unsigned char *slurp(const char *name, long *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CIOT_GOLDEN_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*len);
    if (b && fread(b, 1, (size_t)*len, f) != (size_t)*len) { free(b); b = NULL; }
    fclose(f);
    return b;
}

typedef void (*quantize_fn)(const float *x, void *out, int k);
typedef void (*dequantize_fn)(const void *in, float *out, int k);
static void q8_K(const float *x, void *o, int k) { ciot_quantize_q8_K(x, o, k); }
static void q8_0(const float *x, void *o, int k) { ciot_quantize_q8_0(x, o, k); }
static void pq2_0(const float *x, void *o, int k) { ciot_quantize_pq2_0(x, o, k); }
static void tq1_0(const float *x, void *o, int k) { ciot_quantize_tq1_0(x, o, k); }
static void tq2_0(const float *x, void *o, int k) { ciot_quantize_tq2_0(x, o, k); }
static void dq_tq1_0(const void *in, float *y, int k) { ciot_dequantize_tq1_0(in, y, k); }
static void dq_tq2_0(const void *in, float *y, int k) { ciot_dequantize_tq2_0(in, y, k); }

/* Records of `values` float inputs and one block, then (when dq is given) `values` dequantized floats:
 * our quantizer's bytes, and our decoder on the runtime's own block, must match. */
static void golden(const char *name, int values, size_t block, quantize_fn q, dequantize_fn dq) {
    long len = 0;
    unsigned char *data = slurp(name, &len);
    CHECK(data != NULL, "cannot read %s/%s", CIOT_GOLDEN_DIR, name);
    if (!data) return;
    const size_t rec = (size_t)values * 4 + block + (dq ? (size_t)values * 4 : 0);
    CHECK(len == (long)(256 * rec), "%s: %ld bytes, expected 256 records of %zu", name, len, rec);
    for (long r = 0; r < len / (long)rec; r++) {
        float x[256], want[256], got[256];
        _Alignas(8) unsigned char out[512];
        memcpy(x, data + r * rec, (size_t)values * 4);
        q(x, out, values);
        const unsigned char *blk = data + r * rec + (size_t)values * 4;
        size_t at = 0;
        while (at < block && out[at] == blk[at]) at++;
        CHECK(at == block, "%s record %ld: byte %zu differs: expected 0x%02x got 0x%02x", name, r, at,
              at < block ? blk[at] : 0, at < block ? out[at] : 0);
        if (!dq) continue;
        memcpy(out, blk, block);
        memcpy(want, blk + block, (size_t)values * 4);
        dq(out, got, values);
        int k = 0;
        while (k < values && !memcmp(&got[k], &want[k], 4)) k++;
        CHECK(k == values, "%s record %ld: dequantized value %d: expected %.9g got %.9g", name, r, k,
              k < values ? want[k] : 0, k < values ? got[k] : 0);
    }
    free(data);
}

/* TQ2_0 code 3 is legal input: the runtime's dequantizer computes (q & 3) - 1, so 3 reads as +2. */
static void tq2_code3(void) {
    block_tq2_0 b;
    uint8_t codes[256];
    for (int k = 0; k < 256; k++) codes[k] = (uint8_t)(k % 4);
    ciot_tq2_set_codes(&b, codes);
    b.d = 0x3c00; /* 1.0 */
    float y[256];
    ciot_dequantize_tq2_0(&b, y, 256);
    int bad = 0;
    for (int k = 0; k < 256; k++) bad += y[k] != (float)(k % 4 - 1) || ciot_tq2_code(&b, k) != k % 4;
    CHECK(bad == 0, "TQ2_0 codes 0..3 must read -1, 0, +1, +2 (%d wrong)", bad);
}

int main(void) {
    golden("q8_K.bin", 256, sizeof(block_q8_K), q8_K, NULL);
    golden("q8_0.bin", 32, sizeof(block_q8_0), q8_0, NULL);
    golden("pq2_0.bin", 128, sizeof(block_pq2_0), pq2_0, NULL);
    golden("tq1_0.bin", 256, sizeof(block_tq1_0), tq1_0, dq_tq1_0);
    golden("tq2_0.bin", 256, sizeof(block_tq2_0), tq2_0, dq_tq2_0);
    tq2_code3();
    return check_summary();
}
