#if !defined(__ARM_NEON)
#error "tl3_sums_neon.h needs NEON (include it from the aarch64 kernel files only)"
#endif
/* TL3 lookups with base NEON, shared by the TL3 kernels of PTQ1_0 (tl3_gemv_neon) and TQ1_0
 * (tl3_tq1_gemv_neon): the tables of one 128-block's activation sums (built from its 128 int8 activations,
 * whatever their format) and one sub-block's per-row byte sums of 32 rows (kernels/README.md). The kernels
 * differ only in what they do with the byte sums: the float order of their source format. */
#ifndef CIOT_ARM_TL3_SUMS_NEON_H
#define CIOT_ARM_TL3_SUMS_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include "formats.h"
#include "lut_loop.h"
#include "lut_neon.h"

/* T[m] = 32 h[m] + l[m], m = 0..127: entries 0..63 and 64..127 are four registers each. */
typedef struct { uint8_t l[128], h[128]; } ciot_tl3_group_neon;
_Static_assert(sizeof(ciot_tl3_group_neon) == 256, "a sub-block's group tables are read front to back, 256 bytes each");

typedef struct {
    ciot_tl3_group_neon g[4][6];  /* [sub-block q][group g] */
    uint8_t pl[4][16], ph[4][16]; /* pair tables of sub-block q, code c = 0..15 */
} ciot_tl3_tables_neon;           /* 6272 bytes */

/* T[m] = P[m / 9] + Q[m % 9]: P over the first three trits (H = 9 u0 + 3 u1 + u2 = 0..14 for m < 128), Q over
 * the last two (L = 3 u3 + u4 = 0..8): coefficient tables from lut_loop.h's formulas, and the indices of m into P and Q. */
static const int8_t ciot_tl3_coef_p_neon[3][16] = {{CIOT_L16(CIOT_TL3_P0, 0)}, {CIOT_L16(CIOT_TL3_P1, 0)},
                                                   {CIOT_L16(CIOT_TL3_P2, 0)}};
static const int8_t ciot_tl3_coef_q_neon[2][16] = {{CIOT_L16(CIOT_TL3_Q3, 0)}, {CIOT_L16(CIOT_TL3_Q4, 0)}};
#define CIOT_TL3_IH_NEON(m) ((m) / 9)
#define CIOT_TL3_IL_NEON(m) ((m) % 9)
static const uint8_t ciot_tl3_idx_h_neon[128] = {CIOT_L32(CIOT_TL3_IH_NEON, 0), CIOT_L32(CIOT_TL3_IH_NEON, 32),
                                                 CIOT_L32(CIOT_TL3_IH_NEON, 64), CIOT_L32(CIOT_TL3_IH_NEON, 96)};
static const uint8_t ciot_tl3_idx_l_neon[128] = {CIOT_L32(CIOT_TL3_IL_NEON, 0), CIOT_L32(CIOT_TL3_IL_NEON, 32),
                                                 CIOT_L32(CIOT_TL3_IL_NEON, 64), CIOT_L32(CIOT_TL3_IL_NEON, 96)};
/* pair code c -> coefficients of a30 and a31 */
static const int8_t ciot_tl3_pair_coef_neon[2][16] = {{CIOT_L16(CIOT_TL3_PAIR_W0, 0)}, {CIOT_L16(CIOT_TL3_PAIR_W1, 0)}};

/* The planes of one group's table from its activations a[0..4]. */
static inline void ciot_tl3_build_group_neon(const int8_t *a, ciot_tl3_group_neon *out) {
    uint8_t Pl[16], Ql[16];
    int8_t Ph[16], Qh[16];
    const int8x16_t x0 = vdupq_n_s8(a[0]), x1 = vdupq_n_s8(a[1]), x2 = vdupq_n_s8(a[2]), x3 = vdupq_n_s8(a[3]),
                    x4 = vdupq_n_s8(a[4]);
    const int8x16_t c0 = vld1q_s8(ciot_tl3_coef_p_neon[0]), c1 = vld1q_s8(ciot_tl3_coef_p_neon[1]), c2 = vld1q_s8(ciot_tl3_coef_p_neon[2]);
    const int8x16_t c3 = vld1q_s8(ciot_tl3_coef_q_neon[0]), c4 = vld1q_s8(ciot_tl3_coef_q_neon[1]);
    /* int16 safe: |P| <= 3 * 127, |Q| <= 2 * 127 */
    int16x8_t p0 = vmull_s8(vget_low_s8(c0), vget_low_s8(x0)), p1 = vmull_high_s8(c0, x0);
    p0 = vmlal_s8(p0, vget_low_s8(c1), vget_low_s8(x1)), p1 = vmlal_high_s8(p1, c1, x1);
    p0 = vmlal_s8(p0, vget_low_s8(c2), vget_low_s8(x2)), p1 = vmlal_high_s8(p1, c2, x2);
    int16x8_t q0 = vmull_s8(vget_low_s8(c3), vget_low_s8(x3)), q1 = vmull_high_s8(c3, x3);
    q0 = vmlal_s8(q0, vget_low_s8(c4), vget_low_s8(x4)), q1 = vmlal_high_s8(q1, c4, x4);
    ciot_lut_planes_neon(p0, p1, Pl, Ph);
    ciot_lut_planes_neon(q0, q1, Ql, Qh);
    const uint8x16_t pl = vld1q_u8(Pl), ql = vld1q_u8(Ql);
    const uint8x16_t ph = vreinterpretq_u8_s8(vld1q_s8(Ph)), qh = vreinterpretq_u8_s8(vld1q_s8(Qh));
    for (int k = 0; k < 128; k += 16) {
        const uint8x16_t H = vld1q_u8(ciot_tl3_idx_h_neon + k), L = vld1q_u8(ciot_tl3_idx_l_neon + k);
        /* T = 32 (Ph + Qh) + s with s = Pl + Ql in 0..62: l = s & 31, h = Ph + Qh + (s >> 5) */
        const uint8x16_t s = vaddq_u8(vqtbl1q_u8(pl, H), vqtbl1q_u8(ql, L));
        vst1q_u8(out->l + k, vandq_u8(s, vdupq_n_u8(31)));
        vst1q_u8(out->h + k, vsraq_n_u8(vaddq_u8(vqtbl1q_u8(ph, H), vqtbl1q_u8(qh, L)), s, 5));
    }
}

/* The tables of one 128-block from its 128 int8 activations a (sub-block q: a[32q .. 32q + 31]). */
static inline void ciot_tl3_build_block_neon(const int8_t *a, ciot_tl3_tables_neon *tb) {
    for (int q = 0; q < 4; q++) {
        for (int g = 0; g < 6; g++) ciot_tl3_build_group_neon(a + 32 * q + 5 * g, &tb->g[q][g]); /* |T| <= 5 * 127 */
        ciot_lut_table16_neon(ciot_tl3_pair_coef_neon[0], ciot_tl3_pair_coef_neon[1], a[32 * q + 30], a[32 * q + 31], tb->pl[q],
                              (int8_t *)tb->ph[q]);
    }
}

/* p += n, hidden from the optimizer by a volatile asm (no instruction): it is not hoisted out of a loop. */
#define CIOT_TL3_STEP_NEON(p, n)              \
    do {                                  \
        (p) += (n);                       \
        __asm__ volatile("" : "+r"(p));   \
    } while (0)

/* Rows r0 .. r0 + 31 of sub-block q of a tile block: the six group lookups and the pair lookup per row, as
 * byte sums al[v], ah[v] of rows r0 + 16v .. + 15 with isum = al + 32 ah exactly (|isum| <= 32 * 127):
 * al = sum l' in 0..223 (l' = l in 0..31 for a group, 32 - l in 1..32 for a negated one), u8 safe;
 * ah = sum h' in -128..121 (h' in -20..19 per group, -8..7 for the pair), s8 safe. `nibble` is r0 >> 7. */
static inline __attribute__((always_inline)) void ciot_tl3_subblock_sums_neon(const block_tl3 *w, const ciot_tl3_tables_neon *tb,
                                                                     int q, int r0, int nibble, uint8x16_t al[2],
                                                                              int8x16_t ah[2]) {
    const uint8x16_t c7f = vdupq_n_u8(0x7f), c40 = vdupq_n_u8(0x40), c32 = vdupq_n_u8(32);
    uint8x16_t sl[2] = {vdupq_n_u8(0), vdupq_n_u8(0)}, sh[2] = {vdupq_n_u8(0), vdupq_n_u8(0)};
    /* Both streams are walked by a hidden step: a group's loads then wait for the group, and clang keeps one
     * pointer per stream (with the steps visible, it hoists all 24 table addresses out of the caller's loop
     * and runs out of registers). */
    const uint8_t *tp = tb->g[q][0].l, *cp = w->sb[q].qs[0] + r0;
#pragma clang loop unroll(full) /* one straight pass: the measured loop is the caller's */
    for (int g = 0; g < 6; g++) {
        uint8x16x4_t t[4]; /* l entries 0..63, 64..127, then h */
        for (int k = 0; k < 4; k++) {
            t[k] = vld1q_u8_x4(tp);
            CIOT_TL3_STEP_NEON(tp, 64);
        }
        const uint8x16_t xs[2] = {vld1q_u8(cp), vld1q_u8(cp + 16)};
        CIOT_TL3_STEP_NEON(cp, 256);
        for (int v = 0; v < 2; v++) {
            const uint8x16_t x = xs[v];
            /* entries 0..63 by the magnitude i0, 64..127 by i0 ^ 64; TBL gives 0 out of its 64 entries */
            const uint8x16_t i0 = vandq_u8(x, c7f), i1 = veorq_u8(i0, c40);
            const uint8x16_t l = vorrq_u8(vqtbl4q_u8(t[0], i0), vqtbl4q_u8(t[1], i1));
            const uint8x16_t h = vorrq_u8(vqtbl4q_u8(t[2], i0), vqtbl4q_u8(t[3], i1));
            /* bit 7 set (m all ones): -T = 32 ~h + (32 - l); UABA adds |l - 0| = l or |l - 32| = 32 - l */
            const uint8x16_t m = vcltzq_s8(vreinterpretq_s8_u8(x));
            sl[v] = vabaq_u8(sl[v], l, vandq_u8(m, c32));
            sh[v] = vaddq_u8(sh[v], veorq_u8(h, m));
        }
        /* a fence for clang's scheduler (no instruction): this group's lookups complete before the next
         * group's loads; left free, it loads all six groups' tables first and spills them */
        __asm__ volatile("" : "+w"(sl[0]), "+w"(sl[1]), "+w"(sh[0]), "+w"(sh[1])::"memory");
    }
    const uint8x16_t pl = vld1q_u8(tb->pl[q]), ph = vld1q_u8(tb->ph[q]);
#pragma clang loop unroll(full)
    for (int v = 0; v < 2; v++) {
        /* qn byte j: row j in the low nibble, row j + 128 in the high one */
        const uint8x16_t x = vld1q_u8(w->sb[q].qn + (r0 & 127) + 16 * v);
        const uint8x16_t c = nibble ? vshrq_n_u8(x, 4) : vandq_u8(x, vdupq_n_u8(15));
        al[v] = vaddq_u8(sl[v], vqtbl1q_u8(pl, c));
        ah[v] = vreinterpretq_s8_u8(vaddq_u8(sh[v], vqtbl1q_u8(ph, c)));
    }
}

#endif
