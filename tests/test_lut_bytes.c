/* The lookup-table kernels on every code byte, not only the ones the packer writes. TL3 group bytes 122..127
 * and 249..255 and pair nibbles 5..7 and 12..15 are valid codes (kernels/README.md) that the PTQ1_0 and TQ1_0
 * repacks never produce, so the oracle's packed weights never reach them, nor TL16's nibbles 14, 15 and signed
 * zero groups; TL2 takes any byte. TL16 also gets blocks at the bounds of its byte sums. Here the weight bytes
 * cycle through all 256 values in every plane or are drawn at random (fp16 scales finite), activations are
 * random in -127..127 or at the +-127 bounds, and every kernel of a lookup layout (the registry's layouts of
 * 256-row tiles) this CPU runs must give its reference's outputs bit for bit. A gemm runs 5 activation rows,
 * each with another pattern: 4 at once (lut_loop.h's run of rows, a kernel's run_rows) and 1 alone. Every
 * lookup layout of the registry must have its byte map below (where its scales are): one without fails, rather
 * than its kernels going unchecked. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cpu.h"
#include "fp16.h"
#include "quant.h"
#include "registry.h"

enum { TILES = 3, ROWS = TILES * CIOT_LUT_TILE, K = 512, GEMM_BATCH = 5 };

static unsigned seed = 2024;
static unsigned rnd(void) { return (seed = seed * 1103515245u + 12345u) >> 16; }

/* Activation value j: 0 random, 1 all +127, 2 all -127, 3 alternating in runs of 5 (one TL3 group). */
static int8_t act(int pattern, int j) {
    switch (pattern) {
    case 1: return 127;
    case 2: return -127;
    case 3: return (j / 5) & 1 ? -127 : 127;
    default: return (int8_t)((int)(rnd() % 255) - 127);
    }
}

/* `batch` rows of activations, row b with pattern (pattern + b) % 4. */
static void *activations(const ciot_act_format *a, int pattern, int batch) {
    const size_t row_bytes = ciot_act_bytes(a, 1, K);
    unsigned char *x = calloc(batch, row_bytes);
    if (!x) return NULL;
    for (int b = 0; b < batch; b++) {
        const int p = (pattern + b) % 4;
        if (a == &ciot_act_q8_0) {
            block_q8_0 *y = (block_q8_0 *)(x + b * row_bytes);
            for (int i = 0; i < K / 32; i++) {
                y[i].d = ciot_fp32_to_fp16(0.001f + (float)(rnd() % 1000) / 10000.0f);
                for (int j = 0; j < 32; j++) y[i].qs[j] = act(p, 32 * i + j);
            }
        } else {
            block_q8_K *y = (block_q8_K *)(x + b * row_bytes);
            for (int i = 0; i < K / 256; i++) {
                y[i].d = 0.001f + (float)(rnd() % 1000) / 10000.0f;
                for (int j = 0; j < 256; j++) y[i].qs[j] = act(p, 256 * i + j);
                ciot_q8_K_bsums(&y[i]);
            }
        }
    }
    return x;
}

/* Row r's fp16 scale in a tile block: d[256] opens a TL2 / TL3 block; a TL16 block has d[32] in each of its eight
 * 32-row slices. */
static size_t scale_tl2(int r) { return offsetof(block_tl2, d) + 2 * (size_t)r; }
static size_t scale_tl3(int r) { return offsetof(block_tl3, d) + 2 * (size_t)r; }
static size_t scale_tl16(int r) {
    return sizeof(((block_tl16 *)0)->v[0]) * (size_t)(r / 32) + offsetof(block_tl16, v[0].d) + 2 * (size_t)(r % 32);
}

/* The extreme TL16 block, where the byte sums reach their bounds (tl16_sums_avx2.h): every group of magnitude 13
 * (three equal non-zero trits), all signs set in odd slices and clear in even ones, the pair codes of the same
 * sign (8: +1 +1; 0: -1 -1), so with activations all +-127 every row's |sum| of each plane is the largest the
 * bounds allow. */
static void extreme_tl16(unsigned char *block) {
    for (int v = 0; v < 8; v++) {
        block_tl16 *b = (block_tl16 *)block;
        const int neg = v & 1;
        memset(b->v[v].sx, neg ? 0xff : 0, sizeof b->v[v].sx);
        for (int q = 0; q < 4; q++) {
            memset(b->v[v].sb[q].sg, neg ? 0xff : 0, sizeof b->v[v].sb[q].sg);
            memset(b->v[v].sb[q].qs, 0xdd, sizeof b->v[v].sb[q].qs); /* magnitude 13 in both nibbles */
        }
        memset(b->v[v].qn, neg ? 0x00 : 0x88, sizeof b->v[v].qn);
    }
}

/* What this test knows of a lookup layout's bytes: where its scales are, and its extreme block (NULL: none). */
typedef struct {
    const ciot_layout *layout;
    size_t (*scale_at)(int r);
    void (*extreme)(unsigned char *block);
} lut_bytes;

static const lut_bytes known[] = {
    {&ciot_layout_tl2, scale_tl2, NULL},
    {&ciot_layout_tl3, scale_tl3, NULL},
    {&ciot_layout_tl3_tq1, scale_tl3, NULL},
    {&ciot_layout_tl16, scale_tl16, extreme_tl16},
    {&ciot_layout_tl16_tq1, scale_tl16, extreme_tl16},
};

static const lut_bytes *bytes_of(const ciot_layout *l) {
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].layout == l) return &known[i];
    return NULL;
}

/* A lookup layout: the registry's layouts of 256-row tiles (formats.h, CIOT_LUT_TILE). */
static int is_lookup(const ciot_layout *l) { return l->tile_rows == CIOT_LUT_TILE; }

/* Weight bytes of a lookup-layout matrix: the fp16 scales finite and positive; every other byte b(j) = (j +
 * 37 * (j >> 8)) & 255 of its offset j in the block (all values in every 256-byte plane, shifted from plane
 * to plane) for pattern 1, the layout's extreme block for pattern 2, else random. */
static void weights(const ciot_layout *l, const lut_bytes *lb, unsigned char *w, int pattern) {
    const size_t bytes = ciot_layout_bytes(l, ROWS, K), block = l->block_bytes;
    for (size_t j = 0; j < bytes; j++) w[j] = (unsigned char)(pattern == 1 ? (j % block + 37 * (j % block >> 8)) & 255 : rnd() & 255);
    for (size_t b = 0; b < bytes / block; b++) {
        if (pattern == 2) lb->extreme(w + b * block);
        for (int r = 0; r < 256; r++) {
            const uint16_t d = ciot_fp32_to_fp16(0.002f + (float)(rnd() % 1000) / 20000.0f);
            memcpy(w + b * block + lb->scale_at(r), &d, 2);
        }
    }
}

static void check_kernel(const ciot_kernel *k, const lut_bytes *lb) {
    const ciot_kernel *ref = k->reference;
    const int batch = k->op == CIOT_OP_GEMM ? GEMM_BATCH : 1, n = batch * ROWS;
    const size_t bytes = ciot_layout_bytes(k->layout, ROWS, K);
    unsigned char *w = malloc(bytes);
    float *want = malloc(sizeof(float) * n), *got = malloc(sizeof(float) * n);
    if (!(w && want && got)) CHECK(0, "%s: out of memory", k->name); /* a failure, not a case of its own when it passes */
    for (int cycle = 0; w && want && got && cycle < (lb->extreme ? 3 : 2); cycle++) {
        weights(k->layout, lb, w, cycle);
        for (int pattern = 0; pattern < 4; pattern++) {
            void *x = activations(k->act, pattern, batch);
            if (!x) {
                CHECK(0, "%s: out of memory", k->name);
                continue;
            }
            ciot_mm mm = {w, x, want, ROWS, K, batch, ROWS, 0};
            ref->compute(&mm, 0, TILES);
            mm.y = got;
            k->compute(&mm, 0, TILES);
            int differ = 0;
            for (int r = 0; r < n; r++) differ += memcmp(&want[r], &got[r], 4) != 0;
            CHECK(differ == 0, "%s, %s weight bytes, activation pattern %d: %d of %d outputs differ from %s", k->name,
                  cycle == 2 ? "extreme" : cycle ? "cycled" : "random", pattern, differ, n, ref->name);
            free(x);
        }
    }
    free(w), free(want), free(got);
}

int main(void) {
    const unsigned cpu = ciot_cpu_features();
    int layouts = 0, kernels = 0;
    for (int i = 0; i < ciot_layout_count(); i++) {
        const ciot_layout *l = ciot_layout_at(i);
        if (!is_lookup(l)) continue;
        layouts++;
        CHECK(bytes_of(l) != NULL, "lookup layout %s: no byte map in tests/test_lut_bytes.c (known[]), so its kernels "
              "would go unchecked", l->name);
    }
    CHECK(layouts > 0, "the registry holds lookup layouts");
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        const lut_bytes *lb = bytes_of(k->layout);
        if (!is_lookup(k->layout) || !lb || k->reference == k) continue; /* a layout without a map failed above */
        kernels++;
        if (ciot_kernel_missing(k, cpu)) SKIP("%s: this CPU lacks features 0x%x", k->name, ciot_kernel_missing(k, cpu));
        else check_kernel(k, lb);
    }
    CHECK(kernels > 0, "the registry holds optimized kernels of lookup layouts");
    return check_summary();
}
