#if !defined(__ARM_NEON)
#error "tl2_neon.c needs NEON (cmake/isa.cmake gives -march=armv8-a to *_neon.c)"
#endif
/* The gemv: TL2 tiles (256 rows x 128 weights) times Q8_K activations by 16-entry TBL lookups. Byte
 * qs[j][r] holds row r's weights 4j + n in bits 2n, 2n + 1 (code - 1 = weight): its low nibble indexes a table
 * of (c0 - 1) a_{4j} + (c1 - 1) a_{4j+1}, its high nibble one of the same for a_{4j+2}, a_{4j+3}, each kept as
 * byte planes l (0..31) and h (-16..15) of value 32 h + l. PQ2_0's float order: per row one fmaf per block.
 * Baseline NEON (TBL, no SDOT). K % 256 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "util_neon.h"
#include "prefetch.h"

/* Byte j: t[j][0], t[j][1] = planes l, h of its low nibble's table, t[j][2], t[j][3] of its high nibble's. */
typedef struct {
    uint8_t t[32][4][16];
    float dy; /* the Q8_K scale */
} block_tables;

/* coefficients (code - 1) of a nibble's two weights, per nibble value c */
#define N0(c) (((c) & 3) - 1)
#define N1(c) (((c) >> 2) - 1)
static const int8_t coef[2][16] = {{CIOT_L16(N0, 0)}, {CIOT_L16(N1, 0)}};

static void build(const void *x, int i, void *tables) {
    const block_q8_K *b = (const block_q8_K *)x + (i >> 1);
    const int8_t *a = b->qs + 128 * (i & 1);
    block_tables *tb = tables;
    for (int j = 0; j < 32; j++)
        for (int n = 0; n < 2; n++) /* |T| <= 2 * 2 * 127: l in 0..31, h in -16..15 */
            ciot_lut_table16_neon(coef[0], coef[1], a[4 * j + 2 * n], a[4 * j + 2 * n + 1], tb->t[j][2 * n],
                                  (int8_t *)tb->t[j][2 * n + 1]);
    tb->dy = b->d;
}

CIOT_MCA_TILE("tl2_gemv_neon", "weight_rows=32 anchor=tbl weights_per_iteration=16");

/* One 128-block of a tile: sixteen vectors v of 16 rows; acc[4v + k] = rows 16v + 4k .. + 3. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl2 *w = wp;
    const block_tables *tb = tables;
    float32x4_t *acc = state;
    /* s[v]: the block's sum so far of rows 16v .. 16v + 15 (int16 safe: every partial sum is a sum of at most 128
     * products of at most 2 * 127) */
    int16x8_t s[16][2];
    for (int v = 0; v < 16; v++) s[v][0] = s[v][1] = vdupq_n_s16(0);
    const uint8x16_t c15 = vdupq_n_u8(15);
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    CIOT_MCA_BEGIN("tl2_gemv_neon");
    for (int j0 = 0; j0 < 32; j0 += 4) {
        /* four bytes' tables stay in registers while their four 256-byte planes are read whole */
        uint8x16x4_t T[4];
        for (int j = 0; j < 4; j++) T[j] = vld1q_u8_x4(tb->t[j0 + j][0]);
        ciot_prefetch(w->qs[j0], 4 * sizeof w->qs[j0], prefetch);
#pragma clang loop unroll(disable) /* the loop scripts/arm-cost measures: 32 rows x 16 weights */
        for (int v = 0; v < 16; v += 2) {
            /* byte sums of the 8 lookups: al = sum l in 0..248 (u8 safe), ah = sum h in -128..120 (s8 safe) */
            uint8x16_t al[2] = {vdupq_n_u8(0), vdupq_n_u8(0)}, ah[2] = {vdupq_n_u8(0), vdupq_n_u8(0)};
#pragma clang loop unroll(full)
            for (int j = 0; j < 4; j++)
                for (int u = 0; u < 2; u++) {
                    const uint8x16_t x = vld1q_u8(w->qs[j0 + j] + 16 * (v + u));
                    const uint8x16_t lo = vandq_u8(x, c15), hi = vshrq_n_u8(x, 4);
                    al[u] = vaddq_u8(al[u], vaddq_u8(vqtbl1q_u8(T[j].val[0], lo), vqtbl1q_u8(T[j].val[2], hi)));
                    ah[u] = vaddq_u8(ah[u], vaddq_u8(vqtbl1q_u8(T[j].val[1], lo), vqtbl1q_u8(T[j].val[3], hi)));
                }
#pragma clang loop unroll(full)
            for (int u = 0; u < 2; u++) ciot_lut_widen_neon(al[u], vreinterpretq_s8_u8(ah[u]), s[v + u]);
        }
    }
    CIOT_MCA_END();
    for (int v = 0; v < 16; v++) {
        float32x4_t dw[4];
        ciot_lut_scales_neon(w->d + 16 * v, dw);
        ciot_lut_fma16_neon(s[v], dw, tb->dy, acc + 4 * v);
    }
}

static void finish(const void *state, float *y) {
    const float32x4_t *acc = state;
    for (int k = 0; k < 64; k++) vst1q_f32(y + 4 * k, acc[k]);
}

CIOT_LUT_METHOD(CIOT_TL2_GROUP, block_tables, float32x4_t[64], block_tl2, NULL);

CIOT_LUT_KERNELS(tl2, neon, ciot_act_q8_K, CIOT_F_NEON, CIOT_MAC_LOOKUP);
