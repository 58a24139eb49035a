/* The lookup-table kernels on every code byte, not only the ones the packer writes. TL3 group bytes 122..127
 * and 249..255 and pair nibbles 5..7 and 12..15 are valid codes (kernels/README.md) that the PTQ1_0 repack
 * never produces, so the oracle's packed weights never reach them; TL2 takes any byte. Here the weight bytes
 * cycle through all 256 values in every plane or are drawn at random (fp16 scales finite), activations are
 * random in -127..127 or at the +-127 bounds, and every TL2 / TL3 kernel this CPU runs must give its
 * reference's outputs bit for bit. A gemm runs 5 activation rows, each with another pattern: 4 at once
 * (lut_loop.h's run of rows, a kernel's run_rows) and 1 alone. */
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

/* Weight bytes of a TL2 / TL3 matrix: the fp16 scales (the first 512 bytes of each tile block) finite and
 * positive; every other byte b(j) = (j + 37 * (j >> 8)) & 255 (all values in every 256-byte plane, shifted
 * from plane to plane) when `cycle`, else random. */
static void weights(const ciot_layout *l, unsigned char *w, int cycle) {
    const size_t bytes = ciot_layout_bytes(l, ROWS, K), block = l->block_bytes;
    for (size_t j = 0; j < bytes; j++) {
        if (j % block < 512) continue;
        w[j] = (unsigned char)(cycle ? (j % block + 37 * (j % block >> 8)) & 255 : rnd() & 255);
    }
    for (size_t b = 0; b < bytes / block; b++)
        for (int r = 0; r < 256; r++) {
            const uint16_t d = ciot_fp32_to_fp16(0.002f + (float)(rnd() % 1000) / 20000.0f);
            memcpy(w + b * block + 2 * r, &d, 2);
        }
}

static void check_kernel(const ciot_kernel *k) {
    const ciot_kernel *ref = k->reference;
    const int batch = k->op == CIOT_OP_GEMM ? GEMM_BATCH : 1, n = batch * ROWS;
    const size_t bytes = ciot_layout_bytes(k->layout, ROWS, K);
    unsigned char *w = malloc(bytes);
    float *want = malloc(sizeof(float) * n), *got = malloc(sizeof(float) * n);
    CHECK(w && want && got, "out of memory");
    for (int cycle = 0; w && want && got && cycle < 2; cycle++) {
        weights(k->layout, w, cycle);
        for (int pattern = 0; pattern < 4; pattern++) {
            void *x = activations(k->act, pattern, batch);
            CHECK(x != NULL, "out of memory");
            if (!x) continue;
            ciot_mm mm = {w, x, want, ROWS, K, batch, ROWS, 0};
            ref->compute(&mm, 0, TILES);
            mm.y = got;
            k->compute(&mm, 0, TILES);
            int differ = 0;
            for (int r = 0; r < n; r++) differ += memcmp(&want[r], &got[r], 4) != 0;
            CHECK(differ == 0, "%s, %s weight bytes, activation pattern %d: %d of %d outputs differ from %s", k->name,
                  cycle ? "cycled" : "random", pattern, differ, n, ref->name);
            free(x);
        }
    }
    free(w), free(want), free(got);
}

int main(void) {
    const unsigned cpu = ciot_cpu_features();
    int kernels = 0;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if ((k->layout != &ciot_layout_tl2 && k->layout != &ciot_layout_tl3) || k->reference == k) continue;
        kernels++;
        if (ciot_kernel_missing(k, cpu)) SKIP("%s: this CPU lacks features 0x%x", k->name, ciot_kernel_missing(k, cpu));
        else check_kernel(k);
    }
    CHECK(kernels > 0, "the registry holds optimized TL2 / TL3 kernels");
    return check_summary();
}
