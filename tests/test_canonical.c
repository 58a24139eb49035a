/* canonical.c's byte-by-byte reader of source blocks agrees with the position helpers the quantizers and
 * kernels use (formats.h, quant.c, quant_tq.c), for random codes of every format, and decodes the
 * runtime's golden TQ1_0 / TQ2_0 blocks into its own dequantized values. */
#include <stdlib.h>
#include <string.h>
#include "canonical.h"
#include "check.h"
#include "fp16.h"
#include "quant.h"

static uint64_t rng = 0x1234567;
static unsigned draw(unsigned n) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng >> 33) % n;
}

/* rows x K random codes (0..top) and scales into blocks of format f through the library's writers. */
static void build(ciot_format f, int rows, int K, const uint8_t *codes, const uint16_t *d, void *src) {
    const int bv = ciot_format_block_values(f);
    for (int i = 0; i < rows * K / bv; i++) {
        const uint8_t *c = codes + (size_t)i * bv;
        switch (f) {
        case CIOT_FMT_PQ2_0: {
            block_pq2_0 *b = (block_pq2_0 *)src + i;
            memset(b->qs, 0, sizeof b->qs);
            for (int k = 0; k < 128; k++) b->qs[k >> 2] |= (uint8_t)(c[k] << (2 * (k & 3)));
            b->d = d[i];
            break;
        }
        case CIOT_FMT_PTQ1_0: ciot_ptq1_set_codes((block_ptq1_0 *)src + i, c), ((block_ptq1_0 *)src)[i].d = d[i]; break;
        case CIOT_FMT_TQ1_0: ciot_tq1_set_codes((block_tq1_0 *)src + i, c), ((block_tq1_0 *)src)[i].d = d[i]; break;
        case CIOT_FMT_TQ2_0: ciot_tq2_set_codes((block_tq2_0 *)src + i, c), ((block_tq2_0 *)src)[i].d = d[i]; break;
        }
    }
}

/* The library's own code readers, for comparison. */
static int code_at(ciot_format f, const void *src, int block, int k) {
    switch (f) {
    case CIOT_FMT_PQ2_0: return ciot_pq2_code((const block_pq2_0 *)src + block, k);
    case CIOT_FMT_PTQ1_0: return ciot_ptq1_code((const block_ptq1_0 *)src + block, k);
    case CIOT_FMT_TQ1_0: return ciot_tq1_code((const block_tq1_0 *)src + block, k);
    case CIOT_FMT_TQ2_0: return ciot_tq2_code((const block_tq2_0 *)src + block, k);
    }
    return -1;
}

static void agree(ciot_format f) {
    const int rows = 6, K = 512, bv = ciot_format_block_values(f), nb = rows * K / bv;
    const int top = f == CIOT_FMT_PQ2_0 || f == CIOT_FMT_TQ2_0 ? 3 : 2;
    uint8_t *codes = malloc((size_t)rows * K), *got = malloc((size_t)rows * K);
    uint16_t d[24], gd[24];
    void *src = calloc(1, ciot_source_bytes(f, rows, K));
    for (int i = 0; i < rows * K; i++) codes[i] = (uint8_t)draw((unsigned)top + 1);
    for (int i = 0; i < nb; i++) d[i] = (uint16_t)draw(0x7c00);
    build(f, rows, K, codes, d, src);
    ciot_source_codes(f, src, rows, K, got, gd);
    int bad = 0, bad_lib = 0;
    for (int i = 0; i < rows * K; i++) {
        bad += got[i] != codes[i];
        bad_lib += code_at(f, src, i / bv, i % bv) != codes[i];
    }
    CHECK(bad == 0, "%s: %d codes read back wrong by canonical.c", ciot_format_name(f), bad);
    CHECK(bad_lib == 0, "%s: %d codes read back wrong by the library", ciot_format_name(f), bad_lib);
    CHECK(!memcmp(d, gd, sizeof(uint16_t) * (size_t)nb), "%s: scales read back wrong", ciot_format_name(f));
    free(codes), free(got), free(src);
}

/* Golden records: 256 inputs, the runtime's block, its 256 dequantized values. */
static void golden(const char *name, ciot_format f, size_t block) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CIOT_GOLDEN_DIR, name);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "cannot read %s", path);
    if (!fp) return;
    const size_t rec = 1024 + block + 1024;
    unsigned char *r = malloc(rec);
    int records = 0, bad = 0;
    while (fread(r, 1, rec, fp) == rec) {
        _Alignas(8) unsigned char b[128];
        uint8_t c[256];
        uint16_t d;
        memcpy(b, r + 1024, block);
        ciot_source_codes(f, b, 1, 256, c, &d);
        for (int k = 0; k < 256; k++) {
            float want;
            memcpy(&want, r + 1024 + block + 4 * k, 4);
            const float got = (float)(c[k] - 1) * ciot_fp16_to_fp32(d);
            bad += memcmp(&got, &want, 4) != 0;
        }
        records++;
    }
    fclose(fp);
    free(r);
    CHECK(records == 256, "%s: %d records", name, records);
    CHECK(bad == 0, "%s: %d values decoded by canonical.c differ from the runtime's", name, bad);
}

int main(void) {
    for (int f = CIOT_FMT_PQ2_0; f <= CIOT_FMT_TQ2_0; f++) agree((ciot_format)f);
    golden("tq1_0.bin", CIOT_FMT_TQ1_0, sizeof(block_tq1_0));
    golden("tq2_0.bin", CIOT_FMT_TQ2_0, sizeof(block_tq2_0));
    return check_summary();
}
