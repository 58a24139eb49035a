#if !defined(__ARM_NEON)
#error "tl3_gemv_neon.c needs NEON (cmake/isa.cmake gives -march=armv8-a to *_neon.c)"
#endif
/* tl3_gemv_neon: TL3 tiles (256 rows x 128 weights) times Q8_0 activations by 128-entry TBL lookups. Row r's
 * group code sb[q].qs[g][r] (weights 32q + 5g .. + 4) indexes, by its low 7 bits, T[m] = sum_n (u_n(m) - 1) a_n,
 * kept as byte planes l (0..31) and h (-20..19) of value 32 h + l; bit 7 negates. Its pair code, nibble r >> 7 of
 * sb[q].qn[r & 127], indexes a 16-entry table. PTQ1_0's float order: four lanes per row (one per Q8_0 block),
 * then (a0 + a1) + (a2 + a3). Baseline NEON (TBL, no SDOT). K % 128 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "neon_helpers.h"
#include "prefetch.h"

/* T[m] = 32 h[m] + l[m], m = 0..127: entries 0..63 and 64..127 are four registers each. */
typedef struct { uint8_t l[128], h[128]; } group_table;
_Static_assert(sizeof(group_table) == 256, "a sub-block's group tables are read front to back, 256 bytes each");

typedef struct {
    group_table g[4][6];          /* [sub-block q][group g] */
    uint8_t pl[4][16], ph[4][16]; /* pair tables of sub-block q, code c = 0..15 */
    float dy[4];                  /* fp32 scale of each Q8_0 block */
} block_tables;                   /* 6288 bytes */

/* T[m] = P[m / 9] + Q[m % 9]: P over the first three trits (H = 9 u0 + 3 u1 + u2 = 0..14 for m < 128), Q over
 * the last two (L = 3 u3 + u4 = 0..8). Coefficients u - 1 of each entry (H = 15 and L > 8 are never indexed): */
#define P0(H) ((H) / 9 - 1)
#define P1(H) ((H) / 3 % 3 - 1)
#define P2(H) ((H) % 3 - 1)
#define Q3(L) ((L) < 9 ? (L) / 3 - 1 : 0)
#define Q4(L) ((L) < 9 ? (L) % 3 - 1 : 0)
static const int8_t coef_p[3][16] = {{CIOT_L16(P0, 0)}, {CIOT_L16(P1, 0)}, {CIOT_L16(P2, 0)}};
static const int8_t coef_q[2][16] = {{CIOT_L16(Q3, 0)}, {CIOT_L16(Q4, 0)}};
#define IH(m) ((m) / 9)
#define IL(m) ((m) % 9)
static const uint8_t idx_h[128] = {CIOT_L32(IH, 0), CIOT_L32(IH, 32), CIOT_L32(IH, 64), CIOT_L32(IH, 96)};
static const uint8_t idx_l[128] = {CIOT_L32(IL, 0), CIOT_L32(IL, 32), CIOT_L32(IL, 64), CIOT_L32(IL, 96)};
/* pair code c -> value V = c < 8 ? c : 16 - c -> coefficients of a30 (V / 3 - 1) and a31 (V % 3 - 1) */
#define PV(c) ((c) < 8 ? (c) : 16 - (c))
#define C30(c) (PV(c) / 3 - 1)
#define C31(c) (PV(c) % 3 - 1)
static const int8_t coef_pair[2][16] = {{CIOT_L16(C30, 0)}, {CIOT_L16(C31, 0)}};

/* The planes of group g's table from its activations a[0..4]. */
static void build_group(const int8_t *a, group_table *out) {
    uint8_t Pl[16], Ql[16];
    int8_t Ph[16], Qh[16];
    const int8x16_t x0 = vdupq_n_s8(a[0]), x1 = vdupq_n_s8(a[1]), x2 = vdupq_n_s8(a[2]), x3 = vdupq_n_s8(a[3]),
                    x4 = vdupq_n_s8(a[4]);
    const int8x16_t c0 = vld1q_s8(coef_p[0]), c1 = vld1q_s8(coef_p[1]), c2 = vld1q_s8(coef_p[2]);
    const int8x16_t c3 = vld1q_s8(coef_q[0]), c4 = vld1q_s8(coef_q[1]);
    /* int16 safe: |P| <= 3 * 127, |Q| <= 2 * 127 */
    int16x8_t p0 = vmull_s8(vget_low_s8(c0), vget_low_s8(x0)), p1 = vmull_high_s8(c0, x0);
    p0 = vmlal_s8(p0, vget_low_s8(c1), vget_low_s8(x1)), p1 = vmlal_high_s8(p1, c1, x1);
    p0 = vmlal_s8(p0, vget_low_s8(c2), vget_low_s8(x2)), p1 = vmlal_high_s8(p1, c2, x2);
    int16x8_t q0 = vmull_s8(vget_low_s8(c3), vget_low_s8(x3)), q1 = vmull_high_s8(c3, x3);
    q0 = vmlal_s8(q0, vget_low_s8(c4), vget_low_s8(x4)), q1 = vmlal_high_s8(q1, c4, x4);
    ciot_lut_neon_planes(p0, p1, Pl, Ph);
    ciot_lut_neon_planes(q0, q1, Ql, Qh);
    const uint8x16_t pl = vld1q_u8(Pl), ql = vld1q_u8(Ql);
    const uint8x16_t ph = vreinterpretq_u8_s8(vld1q_s8(Ph)), qh = vreinterpretq_u8_s8(vld1q_s8(Qh));
    for (int k = 0; k < 128; k += 16) {
        const uint8x16_t H = vld1q_u8(idx_h + k), L = vld1q_u8(idx_l + k);
        /* T = 32 (Ph + Qh) + s with s = Pl + Ql in 0..62: l = s & 31, h = Ph + Qh + (s >> 5) */
        const uint8x16_t s = vaddq_u8(vqtbl1q_u8(pl, H), vqtbl1q_u8(ql, L));
        vst1q_u8(out->l + k, vandq_u8(s, vdupq_n_u8(31)));
        vst1q_u8(out->h + k, vsraq_n_u8(vaddq_u8(vqtbl1q_u8(ph, H), vqtbl1q_u8(qh, L)), s, 5));
    }
}

static void build(const void *x, int i, void *tables) {
    const block_q8_0 *y = (const block_q8_0 *)x + 4 * (size_t)i;
    block_tables *tb = tables;
    for (int q = 0; q < 4; q++) {
        const int8_t *a = y[q].qs;
        for (int g = 0; g < 6; g++) build_group(a + 5 * g, &tb->g[q][g]); /* |T| <= 5 * 127 */
        ciot_lut_neon_table16(coef_pair[0], coef_pair[1], a[30], a[31], tb->pl[q], (int8_t *)tb->ph[q]);
        tb->dy[q] = ciot_neon_h2f(&y[q].d);
    }
}

/* p += n, hidden from the optimizer by a volatile asm (no instruction): it is not hoisted out of a loop. */
#define STEP(p, n)                        \
    do {                                  \
        (p) += (n);                       \
        __asm__ volatile("" : "+r"(p));   \
    } while (0)

/* 32 rows r0 .. r0 + 31 of sub-block q: the six group lookups and the pair lookup per row, then the
 * canonical step into acc[k] (rows r0 + 4k .. + 3). `nibble` is r0 >> 7, the pair nibble of these rows. */
static inline __attribute__((always_inline)) void pass(const block_tl3 *w, const block_tables *tb, int q, int r0,
                                                        int nibble, const float32x4_t dw[8], float32x4_t acc[8]) {
    const uint8x16_t c7f = vdupq_n_u8(0x7f), c40 = vdupq_n_u8(0x40), c32 = vdupq_n_u8(32);
    /* Byte sums over the sub-block's 6 group lookups and its pair lookup, per row:
     * al = sum l' in 0..223 (l' = l in 0..31 for a group, 32 - l in 1..32 for a negated one), u8 safe;
     * ah = sum h' in -128..121 (h' in -20..19 per group, -8..7 for the pair), s8 safe. */
    uint8x16_t al[2] = {vdupq_n_u8(0), vdupq_n_u8(0)}, ah[2] = {vdupq_n_u8(0), vdupq_n_u8(0)};
    /* Both streams are walked by STEP: a group's loads then wait for the group, and clang keeps one pointer
     * per stream (with the steps hidden by a plain asm, as CIOT_NEON_STEP does, it hoists all 24 table
     * addresses out of the caller's loop and runs out of registers). */
    const uint8_t *tp = tb->g[q][0].l, *cp = w->sb[q].qs[0] + r0;
#pragma clang loop unroll(full) /* one straight pass: the measured loop is the caller's */
    for (int g = 0; g < 6; g++) {
        uint8x16x4_t t[4]; /* l entries 0..63, 64..127, then h */
        for (int k = 0; k < 4; k++) {
            t[k] = vld1q_u8_x4(tp);
            STEP(tp, 64);
        }
        const uint8x16_t xs[2] = {vld1q_u8(cp), vld1q_u8(cp + 16)};
        STEP(cp, 256);
        for (int v = 0; v < 2; v++) {
            const uint8x16_t x = xs[v];
            /* entries 0..63 by the magnitude i0, 64..127 by i0 ^ 64; TBL gives 0 out of its 64 entries */
            const uint8x16_t i0 = vandq_u8(x, c7f), i1 = veorq_u8(i0, c40);
            const uint8x16_t l = vorrq_u8(vqtbl4q_u8(t[0], i0), vqtbl4q_u8(t[1], i1));
            const uint8x16_t h = vorrq_u8(vqtbl4q_u8(t[2], i0), vqtbl4q_u8(t[3], i1));
            /* bit 7 set (m all ones): -T = 32 ~h + (32 - l); UABA adds |l - 0| = l or |l - 32| = 32 - l */
            const uint8x16_t m = vcltzq_s8(vreinterpretq_s8_u8(x));
            al[v] = vabaq_u8(al[v], l, vandq_u8(m, c32));
            ah[v] = vaddq_u8(ah[v], veorq_u8(h, m));
        }
        /* a fence for clang's scheduler (no instruction): this group's lookups complete before the next
         * group's loads; left free, it loads all six groups' tables first and spills them */
        __asm__ volatile("" : "+w"(al[0]), "+w"(al[1]), "+w"(ah[0]), "+w"(ah[1])::"memory");
    }
    const uint8x16_t pl = vld1q_u8(tb->pl[q]), ph = vld1q_u8(tb->ph[q]);
#pragma clang loop unroll(full)
    for (int v = 0; v < 2; v++) {
        /* qn byte j: row j in the low nibble, row j + 128 in the high one */
        const uint8x16_t x = vld1q_u8(w->sb[q].qn + (r0 & 127) + 16 * v);
        const uint8x16_t c = nibble ? vshrq_n_u8(x, 4) : vandq_u8(x, vdupq_n_u8(15));
        al[v] = vaddq_u8(al[v], vqtbl1q_u8(pl, c));
        ah[v] = vaddq_u8(ah[v], vqtbl1q_u8(ph, c));
        /* isum = al + 32 ah exactly, |isum| <= 32 * 127 */
        int16x8_t s[2] = {vdupq_n_s16(0), vdupq_n_s16(0)};
        ciot_lut_neon_widen(al[v], vreinterpretq_s8_u8(ah[v]), s);
        ciot_lut_neon_fma16(s, dw + 4 * v, tb->dy[q], acc + 4 * v);
    }
}

CIOT_MCA_TILE("tl3_gemv_neon", "weight_rows=32 anchor=tbl weights_per_iteration=32");

/* One 128-block of a tile: acc[q][k] is the float lane of Q8_0 block q for rows 4k .. 4k + 3. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    float32x4_t(*acc)[64] = state;
    float32x4_t dw[64]; /* fp32 row scales, rows 4k .. 4k + 3 */
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    for (int v = 0; v < 16; v++) ciot_lut_neon_scales(w->d + 16 * v, dw + 4 * v);
    CIOT_MCA_BEGIN("tl3_gemv_neon");
    for (int q = 0; q < 4; q++) {
        ciot_prefetch(&w->sb[q], sizeof w->sb[q], prefetch);
        /* the loops scripts/neon-cost measures: 32 rows x 32 weights, rows 0..127 and 128..255 */
#pragma clang loop unroll(disable)
        for (int r0 = 0; r0 < 128; r0 += 32) pass(w, tb, q, r0, 0, dw + r0 / 4, acc[q] + r0 / 4);
#pragma clang loop unroll(disable)
        for (int r0 = 128; r0 < 256; r0 += 32) pass(w, tb, q, r0, 1, dw + r0 / 4, acc[q] + r0 / 4);
    }
    CIOT_MCA_END();
}

static void finish(const void *state, float *y) {
    const float32x4_t(*acc)[64] = state;
    for (int k = 0; k < 64; k++) /* (acc0 + acc1) + (acc2 + acc3) */
        vst1q_f32(y + 4 * k, vaddq_f32(vaddq_f32(acc[0][k], acc[1][k]), vaddq_f32(acc[2][k], acc[3][k])));
}

static const ciot_lut_method method = {CIOT_TL3_GROUP, sizeof(block_tables), sizeof(float32x4_t[4][64]),
                                       sizeof(block_tl3), build, run, finish};
_Static_assert(sizeof(block_tables) <= CIOT_LUT_TABLE_BUDGET, "a block's tables fit");
_Static_assert(CIOT_TL3_GROUP * sizeof(float32x4_t[4][64]) <= CIOT_LUT_STATE_BUDGET, "a group's float state fits");

static void tl3_gemv_neon(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }

const ciot_kernel ciot_k_tl3_gemv_neon = {
    "tl3_gemv_neon", &ciot_layout_tl3, &ciot_act_q8_0, CIOT_OP_GEMV, CIOT_F_NEON, "tl3_gemv_ref", tl3_gemv_neon,
};
