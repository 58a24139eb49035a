#if !defined(__ARM_NEON) || !defined(__aarch64__)
#error "tl3_tq1_gemv_neon.c needs AArch64 Advanced SIMD (cmake/isa.cmake gives *_neon.c -march=armv8-a)"
#endif
/* tl3_tq1_gemv_neon: TQ1_0 in TL3's bytes (layout tl3_tq1: 256-block q of a row = TL3 128-blocks 2q and
 * 2q + 1, both carrying its scale) times Q8_K activations by table lookup, base Advanced SIMD only. Per group
 * of five activations a 128-entry table T = 32 h + l (two byte planes of 8 registers each); 16 rows' group
 * codes are looked up by TBL (entries 0..63) and TBX (64..127) on their low 7 bits, bit 7 negating as in
 * kernels/README.md. TQ1_0's float order: the eight sub-block sums of a 256-block added as integers (16-bit,
 * exact), then one fmaf per row with block 2q + 1's scales. K % 256 == 0, rows % 256 == 0. */
#include <arm_neon.h>
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "neon_helpers.h"
#include "prefetch.h"

typedef struct { uint8_t l[128], h[128]; } group_table; /* T[m] = 32 h[m] + l[m], l in 0..31 */

typedef struct {
    _Alignas(64) group_table g[4][6]; /* [sub-block q][group g] */
    uint8_t pl[4][16], ph[4][16];     /* pair tables, code c = 0..15 */
    float dy;                         /* the Q8_K scale of the 256-block */
    int half;                         /* 0: its weights 0..127, 1: 128..255 */
} block_tables;

/* One tile's state between the two halves of a 256-block and across blocks (row r at index r). */
typedef struct {
    _Alignas(64) uint16_t s[256]; /* isum + 32768 so far */
    float acc[256];
} tile_state;

/* Coefficient (u_n(m) - 1) of activation n in entry m = 81 u0 + 27 u1 + 9 u2 + 3 u3 + u4, m = 0..127. */
#define C0(m) ((m) / 81 % 3 - 1)
#define C1(m) ((m) / 27 % 3 - 1)
#define C2(m) ((m) / 9 % 3 - 1)
#define C3(m) ((m) / 3 % 3 - 1)
#define C4(m) ((m) % 3 - 1)
#define ROW128(F) {CIOT_L32(F, 0), CIOT_L32(F, 32), CIOT_L32(F, 64), CIOT_L32(F, 96)}
static const int16_t coef[5][128] = {ROW128(C0), ROW128(C1), ROW128(C2), ROW128(C3), ROW128(C4)};
/* pair code c: value V = c < 8 ? c : 16 - c, coefficients of a30 (V / 3 - 1) and a31 (V % 3 - 1) */
#define PV(c) ((c) < 8 ? (c) : 16 - (c))
#define P30(c) (PV(c) / 3 - 1)
#define P31(c) (PV(c) % 3 - 1)
static const int16_t pair_coef[2][16] = {{CIOT_L16(P30, 0)}, {CIOT_L16(P31, 0)}};

/* The byte planes of eight int16 entries t per vector: l = t & 31, h = t >> 5. */
static inline void split(int16x8_t t0, int16x8_t t1, uint8_t *l, uint8_t *h) {
    const int16x8_t c31 = vdupq_n_s16(31);
    vst1q_u8(l, vreinterpretq_u8_s8(vmovn_high_s16(vmovn_s16(vandq_s16(t0, c31)), vandq_s16(t1, c31))));
    vst1q_u8(h, vreinterpretq_u8_s8(vmovn_high_s16(vmovn_s16(vshrq_n_s16(t0, 5)), vshrq_n_s16(t1, 5))));
}

/* T[m] = sum_n (u_n(m) - 1) a[n] for m = 0..127; int16 safe: |T| <= 5 * 127, so h is in -20..19. */
static void build_group(const int8_t *a, group_table *out) {
    for (int j = 0; j < 128; j += 16) {
        int16x8_t t[2];
        for (int k = 0; k < 2; k++) {
            t[k] = vmulq_n_s16(vld1q_s16(coef[0] + j + 8 * k), a[0]);
            for (int n = 1; n < 5; n++) t[k] = vmlaq_n_s16(t[k], vld1q_s16(coef[n] + j + 8 * k), a[n]);
        }
        split(t[0], t[1], out->l + j, out->h + j);
    }
}

static void build(const void *x, int i, void *tables) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_tables *tb = tables;
    for (int q = 0; q < 4; q++) {
        const int8_t *a = y->qs + CIOT_QK * (i & 1) + 32 * q;
        for (int g = 0; g < 6; g++) build_group(a + 5 * g, &tb->g[q][g]);
        int16x8_t t[2]; /* |T| <= 2 * 127: h in -8..7 */
        for (int k = 0; k < 2; k++)
            t[k] = vmlaq_n_s16(vmulq_n_s16(vld1q_s16(pair_coef[0] + 8 * k), a[30]), vld1q_s16(pair_coef[1] + 8 * k), a[31]);
        split(t[0], t[1], tb->pl[q], tb->ph[q]);
    }
    tb->dy = y->d, tb->half = i & 1;
}

/* scripts/neon-cost: the hot loop is one group's lookups of 16 rows (5 weights each) per iteration */
CIOT_MCA_TILE("tl3_tq1_gemv_neon", "weight_rows=16 activation_rows=1 anchor=tbl+tbx weights_per_iteration=5");

/* One 128-block (half) of a tile: sub-block by sub-block, each 256-byte code plane read whole, the byte sums
 * al, ah of the 256 rows kept in L1 (sixteen 16-row vectors). */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    tile_state *st = state;
    const uint8x16_t c31 = vdupq_n_u8(31), c15 = vdupq_n_u8(15), c127 = vdupq_n_u8(127), c64 = vdupq_n_u8(64);
    const uint8x8_t c32 = vdup_n_u8(32);
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    if (!tb->half)
        for (int r = 0; r < 256; r += 8) vst1q_u16(st->s + r, vdupq_n_u16(0));
    CIOT_MCA_BEGIN("tl3_tq1_gemv_neon");
    for (int q = 0; q < 4; q++) {
        /* per row: al = sum l' + (negated groups) in 0..223 (l' <= 31, 6 groups and the pair), u8 safe;
         * ah = 128 + sum h' in 0..249 (h' in -20..19 per group, -8..7 for the pair), u8 safe;
         * the sub-block's isum = al + 32 ah - 4096 */
        _Alignas(16) uint8_t al[256], ah[256];
        for (int r = 0; r < 256; r += 16) vst1q_u8(al + r, vdupq_n_u8(0)), vst1q_u8(ah + r, vdupq_n_u8(128));
        for (int g = 0; g < 6; g++) {
            const group_table *T = &tb->g[q][g];
            const uint8x16x4_t l0 = vld1q_u8_x4(T->l), l1 = vld1q_u8_x4(T->l + 64);
            const uint8x16x4_t h0 = vld1q_u8_x4(T->h), h1 = vld1q_u8_x4(T->h + 64);
            const uint8_t *codes = w->sb[q].qs[g];
            ciot_prefetch(codes, 256, prefetch);
            for (int r = 0; r < 256; r += 16) {
                const uint8x16_t b = vld1q_u8(codes + r), lo = vandq_u8(b, c127), hi = veorq_u8(lo, c64);
                /* entries 0..63 by TBL (0 for 64..127), 64..127 by TBX on m ^ 64 (out of range for m < 64) */
                const uint8x16_t l = vqtbx4q_u8(vqtbl4q_u8(l0, lo), l1, hi), h = vqtbx4q_u8(vqtbl4q_u8(h0, lo), h1, hi);
                const uint8x16_t neg = vreinterpretq_u8_s8(vshrq_n_s8(vreinterpretq_s8_u8(b), 7)); /* 0xff: bit 7 set */
                /* negated: -T = 32 ~h + (l ^ 31) + 1, the +1 counted by subtracting neg (-1) */
                vst1q_u8(al + r, vsubq_u8(vaddq_u8(vld1q_u8(al + r), veorq_u8(l, vandq_u8(neg, c31))), neg));
                vst1q_u8(ah + r, vaddq_u8(vld1q_u8(ah + r), veorq_u8(h, neg)));
            }
        }
        const uint8x16_t pl = vld1q_u8(tb->pl[q]), ph = vld1q_u8(tb->ph[q]);
        ciot_prefetch(w->sb[q].qn, sizeof w->sb[q].qn, prefetch);
        for (int r = 0; r < 256; r += 16) {
            /* qn byte j: row j in the low nibble, row j + 128 in the high one */
            const uint8x16_t n = vld1q_u8(w->sb[q].qn + (r & 127)), c = r < 128 ? vandq_u8(n, c15) : vshrq_n_u8(n, 4);
            const uint8x16_t a = vaddq_u8(vld1q_u8(al + r), vqtbl1q_u8(pl, c)), b = vaddq_u8(vld1q_u8(ah + r), vqtbl1q_u8(ph, c));
            /* s += al + 32 ah: over the 256-block's eight sub-blocks isum + 32768 in 256..65280 (|isum| <= 256 * 127),
             * each step non-negative, so no partial sum leaves u16 */
            vst1q_u16(st->s + r, vaddw_u8(vmlal_u8(vld1q_u16(st->s + r), vget_low_u8(b), c32), vget_low_u8(a)));
            vst1q_u16(st->s + r + 8, vaddw_high_u8(vmlal_high_u8(vld1q_u16(st->s + r + 8), b, vdupq_n_u8(32)), a));
        }
    }
    CIOT_MCA_END();
    if (!tb->half) return;
    const float32x4_t dy = vdupq_n_f32(tb->dy);
    for (int r = 0; r < 256; r += 8) {
        const int16x8_t isum = vreinterpretq_s16_u16(veorq_u16(vld1q_u16(st->s + r), vdupq_n_u16(0x8000)));
        for (int k = 0; k < 2; k++) {
            const int32x4_t i32 = k ? vmovl_high_s16(isum) : vmovl_s16(vget_low_s16(isum));
            const float32x4_t scale = vmulq_f32(ciot_neon_h2f4(w->d + r + 4 * k), dy);
            vst1q_f32(st->acc + r + 4 * k, vfmaq_f32(vld1q_f32(st->acc + r + 4 * k), vcvtq_f32_s32(i32), scale));
        }
    }
}

static void finish(const void *state, float *y) {
    const tile_state *st = state;
    for (int r = 0; r < 256; r += 4) vst1q_f32(y + r, vld1q_f32(st->acc + r));
}

static const ciot_lut_method method = {CIOT_TL3_GROUP, sizeof(block_tables), sizeof(tile_state), sizeof(block_tl3),
                                       build, run, finish};
_Static_assert(sizeof(block_tables) <= CIOT_LUT_TABLE_BUDGET, "a block's tables fit");
_Static_assert(CIOT_TL3_GROUP * sizeof(tile_state) <= CIOT_LUT_STATE_BUDGET, "a group's state fits");
_Static_assert(sizeof(tile_state) % 64 == 0, "tile states stay 64-byte aligned");

static void tl3_tq1_gemv_neon(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }

const ciot_kernel ciot_k_tl3_tq1_gemv_neon = {
    "tl3_tq1_gemv_neon", &ciot_layout_tl3_tq1, &ciot_act_q8_K, CIOT_OP_GEMV, CIOT_F_NEON, "tl3_tq1_gemv_ref",
    tl3_tq1_gemv_neon,
};
