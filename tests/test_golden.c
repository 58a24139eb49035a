/* Our reference quantizers reproduce the runtime's bytes: every record of the golden files. */
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
static void q8_K(const float *x, void *o, int k) { ciot_quantize_q8_K(x, o, k); }
static void q8_0(const float *x, void *o, int k) { ciot_quantize_q8_0(x, o, k); }
static void pq2_0(const float *x, void *o, int k) { ciot_quantize_pq2_0(x, o, k); }

static void golden(const char *name, int values, size_t block, quantize_fn q) {
    long len = 0;
    unsigned char *data = slurp(name, &len);
    CHECK(data != NULL, "cannot read %s/%s", CIOT_GOLDEN_DIR, name);
    if (!data) return;
    const size_t rec = (size_t)values * 4 + block;
    CHECK(len == (long)(256 * rec), "%s: %ld bytes, expected 256 records of %zu", name, len, rec);
    for (long r = 0; r < len / (long)rec; r++) {
        float x[256];
        unsigned char out[512];
        memcpy(x, data + r * rec, (size_t)values * 4);
        q(x, out, values);
        const unsigned char *want = data + r * rec + (size_t)values * 4;
        size_t at = 0;
        while (at < block && out[at] == want[at]) at++;
        CHECK(at == block, "%s record %ld: byte %zu differs: expected 0x%02x got 0x%02x", name, r, at,
              at < block ? want[at] : 0, at < block ? out[at] : 0);
    }
    free(data);
}

int main(void) {
    golden("q8_K.bin", 256, sizeof(block_q8_K), q8_K);
    golden("q8_0.bin", 32, sizeof(block_q8_0), q8_0);
    golden("pq2_0.bin", 128, sizeof(block_pq2_0), pq2_0);
    return check_summary();
}
