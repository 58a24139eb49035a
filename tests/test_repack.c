/* Repacks: PQ2_0 -> T2X4 / T2P -> PQ2_0 and TQ2_0 -> T2P -> TQ2_0 are the identity, bytes land where
 * formats.md (and formats.h for TQ2_0) says, and shapes the layouts cannot take are refused with
 * CIOT_E_SHAPE before anything is written. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kernel.h"
#include "registry.h"
#include "repack.h"

static void fill_bytes(void *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) ((unsigned char *)p)[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
}

/* TQ2_0 -> T2P: every code (0..3, random bytes) where T2P puts weight k of the 256-block's half k >> 7,
 * the scale in both halves, the unpack the identity, a pair of halves with different scales refused. */
static void tq2_t2p(void) {
    const int rows = 8, K = 768, nq = K / 256, n = rows * nq;
    block_tq2_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_t2p *p = malloc(sizeof *p * n / 2);
    fill_bytes(src, sizeof *src * n, 11);
    CHECK(ciot_repack_t2p_tq2(src, p, rows, K) == CIOT_OK, "tq2 -> t2p repack");
    int bad = 0, bad_d = 0;
    for (int g = 0; g < rows / 4; g++)
        for (int q = 0; q < nq; q++)
            for (int r = 0; r < 4; r++) {
                const block_tq2_0 *b = &src[(4 * g + r) * nq + q];
                for (int h = 0; h < 2; h++) {
                    const block_t2p *t = &p[g * 2 * nq + 2 * q + h];
                    bad_d += t->d[r] != b->d;
                    for (int k = 0; k < 128; k++) {
                        /* TQ2_0 weight 128h + k: byte 32h + (k & 31), bits 2 ((k >> 5) & 3), written out here */
                        const int want = (b->qs[32 * h + (k & 31)] >> (2 * ((k >> 5) & 3))) & 3;
                        bad += ((t->qs[ciot_t2p_byte(r, k)] >> ciot_t2p_shift(k)) & 3) != want;
                    }
                }
            }
    CHECK(bad == 0, "%d TQ2_0 codes misplaced in T2P", bad);
    CHECK(bad_d == 0, "%d T2P scales differ from their TQ2_0 block's", bad_d);
    memset(back, 0, sizeof *back * n);
    CHECK(ciot_unpack_t2p_tq2(p, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "t2p -> tq2 round trip");
    p[2 * nq + 3].d[2] ^= 1; /* row group 1, 256-block 1, second half, row 2 */
    memset(back, 0xab, sizeof *back * n);
    CHECK(ciot_unpack_t2p_tq2(p, back, rows, K) == CIOT_E_FORMAT, "halves with different scales must be refused");
    CHECK(((unsigned char *)back)[0] == 0xab, "a refused unpack wrote output");
    CHECK(ciot_repack_t2p_tq2(src, p, 6, K) == CIOT_E_SHAPE && ciot_repack_t2p_tq2(src, p, 4, 384) == CIOT_E_SHAPE,
          "tq2 -> t2p must refuse rows %% 4 and K %% 256");
    CHECK(ciot_layout_bytes(&ciot_layout_t2p_tq2, rows, K) == ciot_source_bytes(CIOT_FMT_TQ2_0, rows, K) / 66 * 68,
          "T2P of TQ2_0: 2 x 136 bytes per 4 x 66");
    CHECK(ciot_source_bytes(CIOT_FMT_TQ2_0, rows, K) == (size_t)rows * nq * 66, "TQ2_0 source bytes");
    CHECK(ciot_source_bytes(CIOT_FMT_TQ1_0, rows, K) == (size_t)rows * nq * 54, "TQ1_0 source bytes");
    CHECK(ciot_layout_bytes(&ciot_layout_tq2_0, rows, K) == (size_t)rows * nq * 66, "tq2_0 layout bytes");
    free(src), free(back), free(p);
}

int main(void) {
    tq2_t2p();
    const int rows = 12, K = 1280, nb = K / 128, n = rows * nb;
    block_pq2_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_t2x4 *t = malloc(sizeof *t * n / 4);
    block_t2p *p = malloc(sizeof *p * n / 4);
    fill_bytes(src, sizeof *src * n, 7);
    CHECK(ciot_repack_t2x4(src, t, rows, K) == CIOT_OK, "t2x4 repack");
    CHECK(ciot_unpack_t2x4(t, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "t2x4 round trip");
    CHECK(ciot_repack_t2p(src, p, rows, K) == CIOT_OK, "t2p repack");
    CHECK(ciot_unpack_t2p(p, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "t2p round trip");

    /* positions, from formats.md: T2X4 byte 64g + 16r + j slot s = weight 64g + 16s + j;
     * T2P byte 64p + 16w + j slot s = row 2p + (j >= 8), weight 8(4w + s) + (j & 7) */
    int bad_x4 = 0, bad_p = 0;
    for (int g = 0; g < rows / 4; g++)
        for (int i = 0; i < nb; i++)
            for (int byte = 0; byte < 128; byte++)
                for (int s = 0; s < 4; s++) {
                    const int cx = (t[g * nb + i].qs[byte] >> (2 * s)) & 3, cp = (p[g * nb + i].qs[byte] >> (2 * s)) & 3;
                    const int gx = byte / 64, rx = byte % 64 / 16, jx = byte % 16;
                    bad_x4 += cx != ciot_pq2_code(&src[(4 * g + rx) * nb + i], 64 * gx + 16 * s + jx);
                    const int pp = byte / 64, w = byte % 64 / 16, j = byte % 16;
                    bad_p += cp != ciot_pq2_code(&src[(4 * g + 2 * pp + (j >= 8)) * nb + i], 8 * (4 * w + s) + (j & 7));
                }
    CHECK(bad_x4 == 0, "%d T2X4 codes misplaced", bad_x4);
    CHECK(bad_p == 0, "%d T2P codes misplaced", bad_p);
    for (int g = 0; g < rows / 4; g++)
        for (int r = 0; r < 4; r++)
            CHECK(t[g * nb].d[r] == src[(4 * g + r) * nb].d && p[g * nb].d[r] == src[(4 * g + r) * nb].d,
                  "scale of row %d group %d not copied bit for bit", r, g);

    /* refusals: rows not a multiple of 4, K not a multiple of 256, nonsense */
    static const int bad_shapes[][2] = {{6, 256}, {4, 128}, {4, 384}, {3, 512}, {1, 256}, {4, 100}};
    for (size_t s = 0; s < sizeof bad_shapes / sizeof *bad_shapes; s++) {
        const int r = bad_shapes[s][0], k = bad_shapes[s][1];
        memset(t, 0xab, sizeof *t);
        CHECK(ciot_repack_t2x4(src, t, r, k) == CIOT_E_SHAPE, "t2x4 must refuse %d x %d", r, k);
        CHECK(ciot_repack_t2p(src, p, r, k) == CIOT_E_SHAPE, "t2p must refuse %d x %d", r, k);
        CHECK(ciot_unpack_t2x4(t, back, r, k) == CIOT_E_SHAPE, "t2x4 unpack must refuse %d x %d", r, k);
        CHECK(ciot_unpack_t2p(p, back, r, k) == CIOT_E_SHAPE, "t2p unpack must refuse %d x %d", r, k);
        CHECK(((unsigned char *)t)[0] == 0xab, "a refused repack wrote output");
    }
    CHECK(ciot_repack_t2p(src, p, 0, 256) == CIOT_E_ARG, "0 rows is an argument error");
    CHECK(ciot_repack_t2p(NULL, p, 4, 256) == CIOT_E_ARG, "NULL source");
    /* every registered kernel refuses shapes its layout cannot take */
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        const int tr = k->layout->tile_rows, km = k->layout->k_multiple;
        if (tr > 1) CHECK(ciot_kernel_check(k, tr + 1, km, 1) == CIOT_E_SHAPE, "%s takes rows %d", k->name, tr + 1);
        CHECK(ciot_kernel_check(k, tr, km + 32, 1) == CIOT_E_SHAPE, "%s takes K %d", k->name, km + 32);
        CHECK(ciot_kernel_check(k, tr, km, 0) == CIOT_E_ARG, "%s takes batch 0", k->name);
        CHECK(ciot_kernel_check(k, tr, km, 1) == CIOT_OK, "%s refuses %d x %d", k->name, tr, km);
        if (k->op == CIOT_OP_GEMV) CHECK(ciot_kernel_check(k, tr, km, 2) == CIOT_E_ARG, "%s gemv takes batch 2", k->name);
    }
    free(src), free(back), free(t), free(p);
    return check_summary();
}
