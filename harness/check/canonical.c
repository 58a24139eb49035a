/* Canonical results from values, and source blocks read byte by byte into codes (see canonical.h). */
#include <math.h>
#include <string.h>
#include "canonical.h"
#include "fp16.h"

static int32_t dot(const uint8_t *c, const int8_t *a, int n) {
    int32_t s = 0;
    for (int k = 0; k < n; k++) s += (c[k] - 1) * a[k];
    return s;
}

float ciot_canonical_row(ciot_format f, int K, const uint8_t *c, const uint16_t *dw, const int8_t *a, const float *dy) {
    if (f == CIOT_FMT_PTQ1_0) {
        /* four lanes, one per 32-weight sub-block, joined as (acc0 + acc1) + (acc2 + acc3) */
        float acc[4] = {0, 0, 0, 0};
        for (int i = 0; i < K / 128; i++)
            for (int s = 0; s < 4; s++) {
                const int32_t isum = dot(c + 128 * i + 32 * s, a + 128 * i + 32 * s, 32);
                acc[s] = fmaf((float)isum, dy[4 * i + s] * ciot_fp16_to_fp32(dw[i]), acc[s]);
            }
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    /* one step per weight block: 128 weights (PQ2_0) or 256 (TQ1_0, TQ2_0), both against Q8_K */
    const int bv = ciot_format_block_values(f);
    float acc = 0;
    for (int i = 0; i < K / bv; i++) {
        const int32_t isum = dot(c + bv * i, a + bv * i, bv);
        acc = fmaf((float)isum, ciot_fp16_to_fp32(dw[i]) * dy[bv * i / 256], acc);
    }
    return acc;
}

/* Trit n (0 = most significant) of a packed byte: (b * 3^n) mod 256 compared with 86 and 171. */
static int trit(uint8_t b, int n) {
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    const uint8_t m = (uint8_t)(b * pow3[n]);
    return (m >= 86) + (m >= 171);
}

/* Where the trits of a trit format sit: runs of bytes, byte first + j holding in trit n (0 = most
 * significant) weight base + stride * n + j. */
typedef struct {
    int first, count, trits, base, stride;
} trit_run;
static const trit_run ptq1_runs[] = {{0, 16, 5, 0, 16}, {16, 8, 5, 80, 8}, {24, 2, 4, 120, 2}};
static const trit_run tq1_runs[] = {{0, 32, 5, 0, 32}, {32, 16, 5, 160, 16}, {48, 4, 4, 240, 4}};

static void trit_codes(const uint8_t *b, const trit_run runs[3], uint8_t *c) {
    for (int r = 0; r < 3; r++)
        for (int j = 0; j < runs[r].count; j++)
            for (int n = 0; n < runs[r].trits; n++)
                c[runs[r].base + runs[r].stride * n + j] = (uint8_t)trit(b[runs[r].first + j], n);
}

/* One block: its codes (bv of them) and fp16 scale. */
static uint16_t block_codes(ciot_format f, const uint8_t *b, uint8_t *c) {
    uint16_t d;
    switch (f) {
    case CIOT_FMT_PQ2_0: /* d, then byte j holds weights 4j .. 4j + 3, low bits first */
        for (int j = 0; j < 32; j++)
            for (int s = 0; s < 4; s++) c[4 * j + s] = (b[2 + j] >> (2 * s)) & 3;
        memcpy(&d, b, 2);
        return d;
    case CIOT_FMT_TQ2_0: /* byte j holds weights 128 (j / 32) + 32 s + j % 32 in bits 2s; then d */
        for (int j = 0; j < 64; j++)
            for (int s = 0; s < 4; s++) c[128 * (j / 32) + 32 * s + j % 32] = (b[j] >> (2 * s)) & 3;
        memcpy(&d, b + 64, 2);
        return d;
    case CIOT_FMT_PTQ1_0: /* 26 trit bytes, then d */
        trit_codes(b, ptq1_runs, c);
        memcpy(&d, b + 26, 2);
        return d;
    case CIOT_FMT_TQ1_0: /* 52 trit bytes, then d */
        trit_codes(b, tq1_runs, c);
        memcpy(&d, b + 52, 2);
        return d;
    }
    return 0;
}

void ciot_source_codes(ciot_format f, const void *src, int rows, int K, uint8_t *codes, uint16_t *scales) {
    const int bv = ciot_format_block_values(f);
    const size_t bytes = ciot_format_block_bytes(f), nblocks = (size_t)rows * (size_t)(K / bv);
    for (size_t i = 0; i < nblocks; i++)
        scales[i] = block_codes(f, (const uint8_t *)src + i * bytes, codes + i * (size_t)bv);
}
