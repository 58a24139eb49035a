/* Lookup-table layouts: PTQ1_0 -> TL3 -> PTQ1_0, TQ1_0 -> TL3 -> TQ1_0 and PQ2_0 -> TL2 -> PQ2_0 give back
 * the same bytes, every code sits where formats.h / kernels/README.md / README-tq.md say (read back here with
 * the layouts' own formulas), every group and pair code decodes to valid trits, and shapes the layouts cannot
 * take are refused. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cpu.h"
#include "kernel.h"
#include "quant.h"
#include "registry.h"
#include "repack.h"

static unsigned seed = 12345;
static unsigned rnd(void) { return (seed = seed * 1103515245u + 12345u) >> 16; }

/* Block of tile t, 128-block i: groups of G tiles stored group by group, a group block by block, a block
 * tile by tile; the last group may hold fewer tiles. */
static size_t block_at(int t, int i, int tiles, int nb, int G) {
    const int group = t / G, in_group = tiles - group * G < G ? tiles - group * G : G;
    return (size_t)group * G * nb + (size_t)i * in_group + (size_t)(t % G);
}

/* Trit n (0 = most significant) of the five-trit value of a TL3 group code, and of a pair code. */
static int group_trit(int b, int n) {
    const int V = b < 128 ? b : 370 - b, p[5] = {81, 27, 9, 3, 1};
    return V / p[n] % 3;
}
static int pair_trit(int c, int n) {
    const int V = c < 8 ? c : 16 - c;
    return n ? V % 3 : V / 3;
}

static void test_codes(void) {
    int bad = 0;
    for (int V = 0; V < 243; V++) {
        const int b = ciot_tl3_code(V);
        bad += ciot_tl3_value(b) != V || (V <= 121) != (b < 128);
    }
    for (int b = 0; b < 256; b++) bad += ciot_tl3_value(b) < 0 || ciot_tl3_value(b) > 242;
    /* bit 7 negates: the code b + 128 stands for the trits 2 - u of the code b */
    for (int b = 0; b < 128; b++)
        for (int n = 0; n < 5; n++) bad += group_trit(b + 128, n) != 2 - group_trit(b, n);
    for (int V = 0; V < 9; V++) bad += ciot_tl3_pair_value(ciot_tl3_pair_code(V)) != V || ciot_tl3_pair_code(V) > 15;
    for (int c = 0; c < 16; c++) bad += ciot_tl3_pair_value(c) < 0 || ciot_tl3_pair_value(c) > 8;
    CHECK(bad == 0, "%d TL3 code values wrong", bad);
}

static void test_tl3(void) {
    const int tiles = CIOT_TL3_GROUP + 2, rows = CIOT_LUT_TILE * tiles, K = 3 * CIOT_QK, nb = K / CIOT_QK, n = rows * nb;
    block_ptq1_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_tl3 *t = malloc(sizeof *t * (size_t)tiles * nb);
    for (int b = 0; b < n; b++) { /* canonical bytes, as the quantizer writes them */
        uint8_t codes[CIOT_QK];
        for (int k = 0; k < CIOT_QK; k++) codes[k] = (uint8_t)(rnd() % 3);
        ciot_ptq1_set_codes(&src[b], codes);
        src[b].d = (uint16_t)rnd();
    }
    CHECK(ciot_repack_tl3(src, t, rows, K) == CIOT_OK, "tl3 repack");
    CHECK(ciot_unpack_tl3(t, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "tl3 round trip");
    int bad = 0, bad_d = 0;
    for (int tt = 0; tt < tiles; tt++)
        for (int i = 0; i < nb; i++) {
            const block_tl3 *blk = &t[block_at(tt, i, tiles, nb, CIOT_TL3_GROUP)];
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const block_ptq1_0 *s = &src[(size_t)(CIOT_LUT_TILE * tt + r) * nb + i];
                bad_d += blk->d[r] != s->d;
                for (int k = 0; k < CIOT_QK; k++) {
                    const int q = k / 32, e = k % 32;
                    const int trit = e < 30 ? group_trit(blk->sb[q].qs[e / 5][r], e % 5)
                                            : pair_trit((blk->sb[q].qn[r % 128] >> (4 * (r / 128))) & 15, e - 30);
                    bad += trit != ciot_ptq1_code(s, k);
                }
            }
        }
    CHECK(bad == 0, "%d TL3 trits misplaced", bad);
    CHECK(bad_d == 0, "%d TL3 row scales not copied bit for bit", bad_d);
    /* any bytes (not only canonical ones): the trits and scales survive, which is all a kernel reads */
    for (size_t j = 0; j < sizeof *src * n; j++) ((unsigned char *)src)[j] = (unsigned char)rnd();
    ciot_repack_tl3(src, t, rows, K);
    ciot_unpack_tl3(t, back, rows, K);
    bad = 0;
    for (int b = 0; b < n; b++) {
        bad += src[b].d != back[b].d;
        for (int k = 0; k < CIOT_QK; k++) bad += ciot_ptq1_code(&src[b], k) != ciot_ptq1_code(&back[b], k);
    }
    CHECK(bad == 0, "%d trits or scales lost from non-canonical PTQ1_0 bytes", bad);
    free(src), free(back), free(t);
}

/* Trit n (0 = most significant) of TL16 group g of sub-block q, row r, from the bytes at the positions of
 * kernels/README.md: magnitude m = nibble, 0 for 14 and 15; value v = -m when the sign bit is set, else m;
 * trits of 13 + v in base 3. Scale of row r. */
static int tl16_trit(const block_tl16 *b, int r, int q, int g, int n) {
    const unsigned char *slice = (const unsigned char *)b + 928 * (r / 32);
    const int j = r % 32, nib = (slice[96 + 192 * q + 32 + 32 * (g / 2) + j] >> (4 * (g % 2))) & 15;
    const int sign = g < 8 ? (slice[96 + 192 * q + j] >> g) & 1 : (slice[64 + j] >> (2 * q + g - 8)) & 1;
    const int m = nib < 14 ? nib : 0, V = 13 + (sign ? -m : m), p[3] = {9, 3, 1};
    return V / p[n] % 3;
}
static int tl16_pair_trit(const block_tl16 *b, int r, int q, int n) {
    const unsigned char *slice = (const unsigned char *)b + 928 * (r / 32);
    return pair_trit((slice[864 + 32 * (q / 2) + r % 32] >> (4 * (q % 2))) & 15, n);
}
static int tl16_weight_trit(const block_tl16 *b, int r, int k) {
    const int q = k / 32, e = k % 32;
    return e < 30 ? tl16_trit(b, r, q, e / 3, e % 3) : tl16_pair_trit(b, r, q, e - 30);
}
static uint16_t tl16_scale(const block_tl16 *b, int r) {
    uint16_t d;
    memcpy(&d, (const unsigned char *)b + 928 * (r / 32) + 2 * (r % 32), 2);
    return d;
}

static void test_tl16_codes(void) {
    int bad = 0, zero_sign = 0;
    for (int V = 0; V < 27; V++) { /* every 3-trit value: nibble and sign, and back */
        const int u[3] = {V / 9, V / 3 % 3, V % 3}, v = ciot_tl16_value(u[0], u[1], u[2]);
        const int m = ciot_tl16_nibble(v), sg = ciot_tl16_sign(v);
        bad += m > 13 || v != V - 13;
        zero_sign += v == 0 && sg;
        for (int n = 0; n < 3; n++) bad += ciot_tl16_trit(m, sg, n) != u[n];
    }
    for (int m = 0; m < 16; m++) /* the sign negates every trit; 14, 15 read as the zero group */
        for (int n = 0; n < 3; n++) {
            bad += ciot_tl16_trit(m, 1, n) != 2 - ciot_tl16_trit(m, 0, n);
            if (m >= 14) bad += ciot_tl16_trit(m, 0, n) != 1 || ciot_tl16_trit(m, 1, n) != 1;
        }
    CHECK(bad == 0 && zero_sign == 0, "%d TL16 code values wrong, %d zero groups with the sign set", bad, zero_sign);
}

static void test_tl16(void) {
    const int tiles = CIOT_TL16_GROUP + 2, rows = CIOT_LUT_TILE * tiles, K = 3 * CIOT_QK, nb = K / CIOT_QK, n = rows * nb;
    block_ptq1_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_tl16 *t = malloc(sizeof *t * (size_t)tiles * nb);
    for (int b = 0; b < n; b++) { /* canonical bytes, as the quantizer writes them */
        uint8_t codes[CIOT_QK];
        for (int k = 0; k < CIOT_QK; k++) codes[k] = (uint8_t)(rnd() % 3);
        ciot_ptq1_set_codes(&src[b], codes);
        src[b].d = (uint16_t)rnd();
    }
    CHECK(ciot_repack_tl16(src, t, rows, K) == CIOT_OK, "tl16 repack");
    CHECK(ciot_unpack_tl16(t, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "tl16 round trip");
    int bad = 0, bad_d = 0;
    for (int tt = 0; tt < tiles; tt++)
        for (int i = 0; i < nb; i++) {
            const block_tl16 *blk = &t[block_at(tt, i, tiles, nb, CIOT_TL16_GROUP)];
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const block_ptq1_0 *s = &src[(size_t)(CIOT_LUT_TILE * tt + r) * nb + i];
                bad_d += tl16_scale(blk, r) != s->d;
                for (int k = 0; k < CIOT_QK; k++) bad += tl16_weight_trit(blk, r, k) != ciot_ptq1_code(s, k);
            }
        }
    CHECK(bad == 0, "%d TL16 trits misplaced", bad);
    CHECK(bad_d == 0, "%d TL16 row scales not copied bit for bit", bad_d);
    /* any PTQ1_0 bytes: the trits and scales survive */
    for (size_t j = 0; j < sizeof *src * n; j++) ((unsigned char *)src)[j] = (unsigned char)rnd();
    ciot_repack_tl16(src, t, rows, K);
    ciot_unpack_tl16(t, back, rows, K);
    bad = 0;
    for (int b = 0; b < n; b++) {
        bad += src[b].d != back[b].d;
        for (int k = 0; k < CIOT_QK; k++) bad += ciot_ptq1_code(&src[b], k) != ciot_ptq1_code(&back[b], k);
    }
    CHECK(bad == 0, "%d trits or scales lost from non-canonical PTQ1_0 bytes", bad);
    /* any TL16 bytes (nibbles 14, 15, the sign of a zero group, every pair nibble): unpack and repack keep
     * the trits the layout's formulas read */
    for (size_t j = 0; j < sizeof *t * (size_t)tiles * nb; j++) ((unsigned char *)t)[j] = (unsigned char)rnd();
    block_tl16 *again = malloc(sizeof *t * (size_t)tiles * nb);
    CHECK(again && ciot_unpack_tl16(t, back, rows, K) == CIOT_OK && ciot_repack_tl16(back, again, rows, K) == CIOT_OK,
          "tl16 takes any bytes");
    bad = 0;
    for (int b = 0; again && b < tiles * nb; b++)
        for (int r = 0; r < CIOT_LUT_TILE; r++) {
            bad += tl16_scale(&t[b], r) != tl16_scale(&again[b], r);
            for (int k = 0; k < CIOT_QK; k++) bad += tl16_weight_trit(&t[b], r, k) != tl16_weight_trit(&again[b], r, k);
        }
    CHECK(bad == 0, "%d trits or scales of arbitrary TL16 bytes lost", bad);
    free(src), free(back), free(t), free(again);
}

static int tq1_trit(const block_tq1_0 *b, int k);

static void test_tl16_tq1(void) {
    const int tiles = CIOT_TL16_GROUP + 2, rows = CIOT_LUT_TILE * tiles, K = 3 * CIOT_QK_TQ, nq = K / CIOT_QK_TQ,
              nb = K / CIOT_QK, n = rows * nq;
    block_tq1_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_tl16 *t = malloc(sizeof *t * (size_t)tiles * nb);
    for (int b = 0; b < n; b++) {
        uint8_t codes[CIOT_QK_TQ];
        for (int k = 0; k < CIOT_QK_TQ; k++) codes[k] = (uint8_t)(rnd() % 3);
        ciot_tq1_set_codes(&src[b], codes);
        src[b].d = (uint16_t)rnd();
    }
    CHECK(ciot_repack_tl16_tq1(src, t, rows, K) == CIOT_OK, "tl16_tq1 repack");
    CHECK(ciot_unpack_tl16_tq1(t, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "tl16_tq1 round trip");
    int bad = 0, bad_d = 0;
    for (int tt = 0; tt < tiles; tt++)
        for (int q = 0; q < nq; q++)
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const block_tq1_0 *s = &src[(size_t)(CIOT_LUT_TILE * tt + r) * nq + q];
                for (int h = 0; h < 2; h++) { /* weight k of the 256-block is weight k % 128 of 128-block 2q + k / 128 */
                    const block_tl16 *blk = &t[block_at(tt, 2 * q + h, tiles, nb, CIOT_TL16_GROUP)];
                    bad_d += tl16_scale(blk, r) != s->d;
                    for (int k = 0; k < CIOT_QK; k++) bad += tl16_weight_trit(blk, r, k) != tq1_trit(s, CIOT_QK * h + k);
                }
            }
    CHECK(bad == 0, "%d TQ1_0 trits misplaced in TL16", bad);
    CHECK(bad_d == 0, "%d TL16 half-block row scales not the 256-block's bit for bit", bad_d);
    block_tl16 *blk = &t[block_at(tiles - 1, nb - 1, tiles, nb, CIOT_TL16_GROUP)];
    blk->v[5].d[3] ^= 1; /* row 163 of the last tile: its halves disagree */
    memset(back, 0xab, sizeof *back * n);
    CHECK(ciot_unpack_tl16_tq1(t, back, rows, K) == CIOT_E_FORMAT, "tl16_tq1: halves with different scales must be refused");
    CHECK(((unsigned char *)back)[0] == 0xab && ((unsigned char *)back)[sizeof *back * n - 1] == 0xab,
          "a refused tl16_tq1 unpack wrote output");
    free(src), free(back), free(t);
}

static const int pow3_lo[5] = {1, 3, 9, 27, 81};

/* Trit n (0 = most significant) of a TQ1_0 / PTQ1_0 byte: floor(3 * ((b * 3^n) mod 256) / 256). */
static int byte_trit(int b, int n) { return 3 * ((b * pow3_lo[n]) & 255) / 256; }

/* TQ1_0 weight k (0..255) from the block's bytes at the positions of kernels/README-tq.md. */
static int tq1_trit(const block_tq1_0 *b, int k) {
    if (k < 160) return byte_trit(b->qs[k % 32], k / 32);
    if (k < 240) return byte_trit(b->qs[32 + (k - 160) % 16], (k - 160) / 16);
    return byte_trit(b->qh[(k - 240) % 4], (k - 240) / 4);
}

/* The canonical byte of five trits (u[0] most significant): ceil(V * 256 / 243), kernels/formats.md. */
static int canonical5(const int u[5]) {
    int V = 0;
    for (int m = 0; m < 5; m++) V = 3 * V + u[m];
    return (V * 256 + 242) / 243;
}

static void test_tl3_tq1(void) {
    const int tiles = CIOT_TL3_GROUP + 2, rows = CIOT_LUT_TILE * tiles, K = 3 * CIOT_QK_TQ, nq = K / CIOT_QK_TQ,
              nb = K / CIOT_QK, n = rows * nq;
    block_tq1_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_tl3 *t = malloc(sizeof *t * (size_t)tiles * nb);
    for (int b = 0; b < n; b++) { /* canonical bytes, as the quantizer writes them */
        uint8_t codes[CIOT_QK_TQ];
        for (int k = 0; k < CIOT_QK_TQ; k++) codes[k] = (uint8_t)(rnd() % 3);
        ciot_tq1_set_codes(&src[b], codes);
        src[b].d = (uint16_t)rnd();
    }
    CHECK(ciot_repack_tl3_tq1(src, t, rows, K) == CIOT_OK, "tl3_tq1 repack");
    CHECK(ciot_unpack_tl3_tq1(t, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "tl3_tq1 round trip");
    int bad = 0, bad_d = 0;
    for (int tt = 0; tt < tiles; tt++)
        for (int q = 0; q < nq; q++)
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const block_tq1_0 *s = &src[(size_t)(CIOT_LUT_TILE * tt + r) * nq + q];
                for (int k = 0; k < CIOT_QK_TQ; k++) { /* weight k is weight k % 128 of 128-block 2q + k / 128 */
                    const block_tl3 *blk = &t[block_at(tt, 2 * q + k / 128, tiles, nb, CIOT_TL3_GROUP)];
                    const int sb = k % 128 / 32, e = k % 32;
                    const int trit = e < 30 ? group_trit(blk->sb[sb].qs[e / 5][r], e % 5)
                                            : pair_trit((blk->sb[sb].qn[r % 128] >> (4 * (r / 128))) & 15, e - 30);
                    bad += trit != tq1_trit(s, k);
                    if (k % 128 == 0) bad_d += blk->d[r] != s->d;
                }
            }
    CHECK(bad == 0, "%d TQ1_0 trits misplaced in TL3", bad);
    CHECK(bad_d == 0, "%d TL3 half-block row scales not the 256-block's bit for bit", bad_d);
    /* halves that disagree on one row's scale: refused, nothing written */
    t[block_at(tiles - 1, nb - 1, tiles, nb, CIOT_TL3_GROUP)].d[77] ^= 1;
    memset(back, 0xab, sizeof *back * n);
    CHECK(ciot_unpack_tl3_tq1(t, back, rows, K) == CIOT_E_FORMAT, "halves with different scales must be refused");
    CHECK(((unsigned char *)back)[0] == 0xab && ((unsigned char *)back)[sizeof *back * n - 1] == 0xab,
          "a refused unpack wrote output");
    /* any bytes: trits and scales survive; a byte comes back as it was when it is the canonical encoding of
     * its trits (qh: four trits and a zero fifth), else as that encoding */
    for (size_t j = 0; j < sizeof *src * n; j++) ((unsigned char *)src)[j] = (unsigned char)rnd();
    CHECK(ciot_repack_tl3_tq1(src, t, rows, K) == CIOT_OK && ciot_unpack_tl3_tq1(t, back, rows, K) == CIOT_OK,
          "tl3_tq1 takes any bytes");
    int lost = 0, wrong = 0, kept = 0, changed = 0;
    for (int b = 0; b < n; b++) {
        lost += src[b].d != back[b].d;
        for (int k = 0; k < CIOT_QK_TQ; k++) lost += tq1_trit(&src[b], k) != tq1_trit(&back[b], k);
        for (int j = 0; j < 52; j++) {
            const int in = j < 48 ? src[b].qs[j] : src[b].qh[j - 48], out = j < 48 ? back[b].qs[j] : back[b].qh[j - 48];
            int u[5];
            for (int m = 0; m < 5; m++) u[m] = m == 4 && j >= 48 ? 0 : byte_trit(in, m);
            wrong += out != canonical5(u);
            if (in == out) kept++;
            else changed++;
        }
    }
    CHECK(lost == 0, "%d trits or scales lost from non-canonical TQ1_0 bytes", lost);
    CHECK(wrong == 0, "%d bytes not back in the canonical encoding of their trits", wrong);
    CHECK(kept > 0 && changed > 0, "random bytes: %d kept, %d made canonical", kept, changed);
    free(src), free(back), free(t);
}

/* Which scale copy the tl3_tq1 kernels read: block 2q + 1's (README-tq.md). With the copies of half 2q
 * changed every kernel still gives the reference's bits on the intact matrix; with those of half 2q + 1
 * changed the reference's output changes (so the comparison can fail). */
static void test_tl3_tq1_scale_copy(void) {
    enum { ROWS = CIOT_LUT_TILE, K = 2 * CIOT_QK_TQ, NQ = K / CIOT_QK_TQ, NB = K / CIOT_QK };
    static block_tq1_0 src[ROWS * NQ];
    static block_tl3 t[NB], bent[NB];
    static block_q8_K x[NQ];
    static float want[ROWS], got[ROWS];
    for (int b = 0; b < ROWS * NQ; b++) {
        uint8_t codes[CIOT_QK_TQ];
        for (int k = 0; k < CIOT_QK_TQ; k++) codes[k] = (uint8_t)(rnd() % 3);
        ciot_tq1_set_codes(&src[b], codes);
        src[b].d = (uint16_t)(0x2000 + rnd() % 0x1000); /* finite */
    }
    float xf[K];
    for (int k = 0; k < K; k++) xf[k] = (float)(int)(rnd() % 255) - 127.0f;
    ciot_quantize_q8_K(xf, x, K);
    const ciot_kernel *ref = ciot_kernel_find("tl3_tq1_gemv_ref");
    CHECK(ref && ciot_repack_tl3_tq1(src, t, ROWS, K) == CIOT_OK, "tl3_tq1_gemv_ref and the repack");
    if (!ref) return;
    ciot_mm mm = {t, x, want, ROWS, K, 1, ROWS, 0};
    ref->compute(&mm, 0, 1);
    for (int h = 0; h < 2; h++) {
        memcpy(bent, t, sizeof t);
        for (int q = 0; q < NQ; q++)
            for (int r = 0; r < CIOT_LUT_TILE; r++) bent[2 * q + h].d[r] ^= 0x0400; /* one tile: block i is i */
        int differs = 0;
        for (int i = 0; i < ciot_kernel_count(); i++) {
            const ciot_kernel *k = ciot_kernel_at(i);
            if (k->layout != &ciot_layout_tl3_tq1) continue;
            if (ciot_kernel_missing(k, ciot_cpu_features())) {
                SKIP("%s: this CPU lacks its features", k->name);
                continue;
            }
            ciot_mm mb = {bent, x, got, ROWS, K, 1, ROWS, 0};
            k->compute(&mb, 0, 1);
            differs = memcmp(got, want, sizeof got) != 0;
            if (h == 0) CHECK(!differs, "%s reads the scales of block 2q", k->name);
            else CHECK(differs, "%s ignores the scales of block 2q + 1", k->name);
        }
    }
}

static void test_tl2(void) {
    const int tiles = CIOT_TL2_GROUP + 2, rows = CIOT_LUT_TILE * tiles, K = CIOT_QK_K, nb = K / CIOT_QK, n = rows * nb;
    block_pq2_0 *src = malloc(sizeof *src * n), *back = malloc(sizeof *back * n);
    block_tl2 *t = malloc(sizeof *t * (size_t)tiles * nb);
    for (size_t j = 0; j < sizeof *src * n; j++) ((unsigned char *)src)[j] = (unsigned char)rnd(); /* code 3 included */
    CHECK(ciot_repack_tl2(src, t, rows, K) == CIOT_OK, "tl2 repack");
    CHECK(ciot_unpack_tl2(t, back, rows, K) == CIOT_OK && !memcmp(src, back, sizeof *src * n), "tl2 round trip");
    int bad = 0;
    for (int tt = 0; tt < tiles; tt++)
        for (int i = 0; i < nb; i++) {
            const block_tl2 *blk = &t[block_at(tt, i, tiles, nb, CIOT_TL2_GROUP)];
            for (int r = 0; r < CIOT_LUT_TILE; r++) {
                const block_pq2_0 *s = &src[(size_t)(CIOT_LUT_TILE * tt + r) * nb + i];
                bad += blk->d[r] != s->d;
                for (int k = 0; k < CIOT_QK; k++) bad += ((blk->qs[k / 4][r] >> (2 * (k % 4))) & 3) != ciot_pq2_code(s, k);
            }
        }
    CHECK(bad == 0, "%d TL2 codes or scales misplaced", bad);
    free(src), free(back), free(t);
}

static void test_refusals(void) {
    static block_ptq1_0 p[4 * CIOT_LUT_TILE];
    static block_pq2_0 q[4 * CIOT_LUT_TILE];
    static block_tl3 t3[4];
    static block_tl2 t2[4];
    static const int shapes[][2] = {{64, 256}, {128, 512}, {320, 256}, {256, 100}, {255, 256}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int r = shapes[s][0], k = shapes[s][1];
        memset(t3, 0xab, sizeof t3), memset(t2, 0xab, sizeof t2);
        CHECK(ciot_repack_tl3(p, t3, r, k) == CIOT_E_SHAPE && ciot_unpack_tl3(t3, p, r, k) == CIOT_E_SHAPE, "tl3 takes %d x %d", r, k);
        CHECK(ciot_repack_tl2(q, t2, r, k) == CIOT_E_SHAPE && ciot_unpack_tl2(t2, q, r, k) == CIOT_E_SHAPE, "tl2 takes %d x %d", r, k);
        CHECK(((unsigned char *)t3)[0] == 0xab && ((unsigned char *)t2)[0] == 0xab, "a refused repack wrote output");
    }
    CHECK(ciot_repack_tl3(p, t3, CIOT_LUT_TILE, 384) == CIOT_OK, "tl3 takes K = 384 (PTQ1_0 blocks of 128)");
    static block_tl16 t16[4];
    static block_tq1_0 tq16[2 * CIOT_LUT_TILE];
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int r = shapes[s][0], k = shapes[s][1];
        memset(t16, 0xab, sizeof t16);
        CHECK(ciot_repack_tl16(p, t16, r, k) == CIOT_E_SHAPE && ciot_unpack_tl16(t16, p, r, k) == CIOT_E_SHAPE &&
                  ciot_repack_tl16_tq1(tq16, t16, r, k) == CIOT_E_SHAPE && ciot_unpack_tl16_tq1(t16, tq16, r, k) == CIOT_E_SHAPE &&
                  ((unsigned char *)t16)[0] == 0xab,
              "tl16 / tl16_tq1 take %d x %d", r, k);
    }
    CHECK(ciot_repack_tl16(p, t16, CIOT_LUT_TILE, 384) == CIOT_OK && ciot_repack_tl16_tq1(tq16, t16, CIOT_LUT_TILE, 384) == CIOT_E_SHAPE,
          "tl16 takes K = 384, tl16_tq1 refuses it");
    CHECK(ciot_repack_tl16(NULL, t16, CIOT_LUT_TILE, 256) == CIOT_E_ARG && ciot_repack_tl16(p, t16, 0, 256) == CIOT_E_ARG,
          "tl16: NULL, 0 rows");
    CHECK(ciot_layout_bits_per_weight(&ciot_layout_tl16) == 1.8125 && ciot_layout_bits_per_weight(&ciot_layout_tl16_tq1) == 1.8125,
          "TL16 takes 1.8125 bits per weight, scales included");
    static block_tq1_0 tq[2 * CIOT_LUT_TILE];
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int r = shapes[s][0], k = shapes[s][1];
        memset(t3, 0xab, sizeof t3);
        CHECK(ciot_repack_tl3_tq1(tq, t3, r, k) == CIOT_E_SHAPE && ciot_unpack_tl3_tq1(t3, tq, r, k) == CIOT_E_SHAPE &&
                  ((unsigned char *)t3)[0] == 0xab, "tl3_tq1 takes %d x %d", r, k);
    }
    CHECK(ciot_repack_tl3_tq1(tq, t3, CIOT_LUT_TILE, 384) == CIOT_E_SHAPE, "tl3_tq1 refuses K = 384 (TQ1_0 blocks of 256)");
    CHECK(ciot_repack_tl3_tq1(tq, t3, CIOT_LUT_TILE, 512) == CIOT_OK, "tl3_tq1 takes 256 x 512");
    CHECK(ciot_layout_bytes(&ciot_layout_tl3_tq1, 1024, 5120) == ciot_source_bytes(CIOT_FMT_TQ1_0, 1024, 5120) / 54 * 56,
          "tl3_tq1: 56 bytes per 256 weights of a row (TQ1_0's 54 and the scale again)");
    CHECK(ciot_repack_tl2(q, t2, CIOT_LUT_TILE, 384) == CIOT_E_SHAPE, "tl2 refuses K = 384 (Q8_K blocks of 256)");
    CHECK(ciot_repack_tl3(NULL, t3, CIOT_LUT_TILE, 256) == CIOT_E_ARG && ciot_repack_tl2(q, NULL, CIOT_LUT_TILE, 256) == CIOT_E_ARG, "NULL");
    CHECK(ciot_repack_tl3(p, t3, 0, 256) == CIOT_E_ARG, "0 rows is an argument error");
    /* every model row count of profiles/ fits the tile */
    static const int model_rows[] = {1024, 5120, 6144, 10240, 12288, 17408, 248320};
    for (size_t m = 0; m < sizeof model_rows / sizeof *model_rows; m++)
        CHECK(ciot_layout_check(&ciot_layout_tl3, model_rows[m], 5120) == CIOT_OK &&
                  ciot_layout_check(&ciot_layout_tl3_tq1, model_rows[m], 5120) == CIOT_OK &&
                  ciot_layout_check(&ciot_layout_tl2, model_rows[m], 5120) == CIOT_OK,
              "%d rows refused", model_rows[m]);
    CHECK(ciot_layout_bits_per_weight(&ciot_layout_tl3) == 1.75 && ciot_layout_bits_per_weight(&ciot_layout_tl3_tq1) == 1.75 &&
              ciot_layout_bits_per_weight(&ciot_layout_tl2) == 2.125,
          "TL3 takes 1.75 bits per weight (from TQ1_0 too: 1.6875 and the scale twice), TL2 2.125, scales included");
}

int main(void) {
    test_codes();
    test_tl16_codes();
    test_tl3();
    test_tl3_tq1();
    test_tl3_tq1_scale_copy();
    test_tl16();
    test_tl16_tq1();
    test_tl2();
    test_refusals();
    return check_summary();
}
