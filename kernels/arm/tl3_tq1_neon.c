#if !defined(__ARM_NEON) || !defined(__aarch64__)
#error "tl3_tq1_neon.c needs AArch64 Advanced SIMD (cmake/isa.cmake gives *_neon.c -march=armv8-a)"
#endif
/* The gemv: TQ1_0 in TL3's bytes (layout tl3_tq1: 256-block q of a row = TL3 128-blocks 2q and
 * 2q + 1, both carrying its scale) times Q8_K activations by table lookup, base Advanced SIMD only. The
 * tables and the lookups are tl3_gemv_neon's (tl3_sums_neon.h: 128-entry tables of five activations' sums, TBL
 * on 32 rows' group codes, bit 7 negating); only the float order differs. TQ1_0's: the eight sub-block sums
 * of a 256-block added as integers (16-bit, exact), then one fmaf per row with block 2q + 1's scales.
 * K % 256 == 0, rows % 256 == 0. */
#include <arm_neon.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "util_neon.h"
#include "prefetch.h"
#include "tl3_sums_neon.h"

typedef struct {
    ciot_tl3_tables_neon t; /* tl3_sums_neon.h */
    float dy;               /* the Q8_K scale of the 256-block */
    int half;               /* 0: its weights 0..127, 1: 128..255 */
} block_tables;

/* One tile's state between the two halves of a 256-block and across blocks (row r at index r). */
typedef struct {
    _Alignas(64) int16_t s[256]; /* isum so far, exact: |isum| <= 256 * 127 over the 256-block */
    float acc[256];
} tile_state;

static void build(const void *x, int i, void *tables) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_tables *tb = tables;
    ciot_tl3_build_block_neon(y->qs + CIOT_QK * (i & 1), &tb->t);
    tb->dy = y->d, tb->half = i & 1;
}

/* 32 rows r0 .. r0 + 31 of sub-block q: their byte sums (tl3_sums_neon.h) added to the rows' 16-bit sums S. Each
 * partial sum is the isum of the sub-blocks so far, within +-8 * 32 * 127: no step leaves int16. */
static inline __attribute__((always_inline)) void pass(const block_tl3 *w, const block_tables *tb, int q, int r0,
                                                        int nibble, int16_t *S) {
    uint8x16_t al[2];
    int8x16_t ah[2];
    ciot_tl3_subblock_sums_neon(w, &tb->t, q, r0, nibble, al, ah);
#pragma clang loop unroll(full)
    for (int v = 0; v < 2; v++) {
        int16x8_t s[2] = {vld1q_s16(S + 16 * v), vld1q_s16(S + 16 * v + 8)};
        ciot_lut_widen_neon(al[v], ah[v], s);
        vst1q_s16(S + 16 * v, s[0]), vst1q_s16(S + 16 * v + 8, s[1]);
    }
}

CIOT_MCA_TILE("tl3_tq1_gemv_neon", "weight_rows=32 anchor=tbl weights_per_iteration=32");

/* One 128-block (half) of a tile. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    tile_state *st = state;
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    if (!tb->half)
        for (int r = 0; r < 256; r += 8) vst1q_s16(st->s + r, vdupq_n_s16(0));
    CIOT_MCA_BEGIN("tl3_tq1_gemv_neon");
    for (int q = 0; q < 4; q++) {
        ciot_prefetch(&w->sb[q], sizeof w->sb[q], prefetch);
        /* the loops scripts/arm-cost measures: 32 rows x 32 weights, rows 0..127 and 128..255 */
#pragma clang loop unroll(disable)
        for (int r0 = 0; r0 < 128; r0 += 32) pass(w, tb, q, r0, 0, st->s + r0);
#pragma clang loop unroll(disable)
        for (int r0 = 128; r0 < 256; r0 += 32) pass(w, tb, q, r0, 1, st->s + r0);
    }
    CIOT_MCA_END();
    if (!tb->half) return;
    const float32x4_t dy = vdupq_n_f32(tb->dy);
    for (int r = 0; r < 256; r += 8) {
        const int16x8_t isum = vld1q_s16(st->s + r);
        for (int k = 0; k < 2; k++) {
            const int32x4_t i32 = k ? vmovl_high_s16(isum) : vmovl_s16(vget_low_s16(isum));
            const float32x4_t scale = vmulq_f32(ciot_fp16x4_neon(w->d + r + 4 * k), dy);
            vst1q_f32(st->acc + r + 4 * k, vfmaq_f32(vld1q_f32(st->acc + r + 4 * k), vcvtq_f32_s32(i32), scale));
        }
    }
}

static void finish(const void *state, float *y) {
    const tile_state *st = state;
    for (int r = 0; r < 256; r += 4) vst1q_f32(y + r, vld1q_f32(st->acc + r));
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_tables, tile_state, block_tl3, NULL);

CIOT_LUT_KERNELS(tl3_tq1, neon, ciot_act_q8_K, CIOT_F_NEON, CIOT_MAC_LOOKUP);
