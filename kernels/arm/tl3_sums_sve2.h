#if !defined(__ARM_FEATURE_SVE2)
#error "tl3_sums_sve2.h needs SVE2 (include it from the *_sve2.c kernel files only)"
#endif
/* TL3 lookups with SVE2 TBL (two-register tables) at any vector length, shared by the TL3 kernels of
 * PTQ1_0 (tl3_gemv_sve2) and TQ1_0 (tl3_tq1_gemv_sve2). The tables are tl3_gemv_neon's (tl3_sums_neon.h,
 * built with the same NEON code): per group 128 entries in planes l and h. A two-register TBL indexes 2 VL
 * bytes, so a plane is read in nw = ceil(128 / 2 VL) windows, each a pair of vectors loaded under a svwhilelt
 * predicate (zero past entry 127): 4 windows at 128 bits, 2 at 256 and at 384 (96 + 32 entries), 1 from 512.
 * Window k looks up index i - 2 VL k: out of its 2 VL entries (also when it wraps below 0, to at least
 * 256 - 96) TBL gives 0, so the windows' lookups are ORed. nw is 1, 2 or 4 for every legal length (a multiple
 * of 16 bytes), and each is its own constant copy of the loop: an SVE vector cannot be an array element. */
#ifndef CIOT_ARM_TL3_SUMS_SVE2_H
#define CIOT_ARM_TL3_SUMS_SVE2_H

#include <arm_sve.h>
#include "tl3_sums_neon.h"
#include "util_sve.h"

/* the window count of this vector length */
static inline int ciot_tl3_windows_sve2(void) {
    const int vb = (int)svcntb();
    return 2 * vb >= 128 ? 1 : 4 * vb >= 128 ? 2 : 4;
}

/* The pair of vectors of window k of one 128-entry plane t. */
#define CIOT_TL3_WINDOW_SVE2(t, k)                                                                \
    svcreate2_u8(svld1_u8(svwhilelt_b8(2 * vb * (k), 128), (t) + 2 * vb * (k)),                   \
                 svld1_u8(svwhilelt_b8(2 * vb * (k) + vb, 128), (t) + 2 * vb * (k) + vb))

/* Group g's window k: the lookups of index i - 2 VL k ORed into l and h. */
#define CIOT_TL3_LOOKUP_SVE2(k)                                                                    \
    do {                                                                                          \
        if (nw > (k)) {                                                                           \
            const svuint8_t ik = (k) ? ciot_sub_u8_sve(i, c##k) : i;                              \
            const svuint8_t lk = svtbl2_u8(CIOT_TL3_WINDOW_SVE2(tg->l, k), ik);                   \
            const svuint8_t hk = svtbl2_u8(CIOT_TL3_WINDOW_SVE2(tg->h, k), ik);                   \
            l = (k) ? ciot_orr_sve(l, lk) : lk;                                                   \
            h = (k) ? ciot_orr_sve(h, hk) : hk;                                                   \
        }                                                                                         \
    } while (0)

/* Rows 128 half .. + 127 of sub-block q of a tile block, svcntb() rows per iteration (the last run
 * predicated): per row the six group lookups (bit 7 negating: l -> 32 - l, h -> ~h) into byte sums sl in
 * 0..192 and sh in -120..114, the pair lookup (nibble `half` of qn) beside them (al <= 223, ah in -128..121),
 * then S[r] += al + 32 ah in int16, rows in order (UUNPKLO/HI). nw = ciot_tl3_windows_sve2(), a constant
 * at each call. */
static inline __attribute__((always_inline)) void ciot_tl3_half_sums_sve2(const block_tl3 *w, const ciot_tl3_tables_neon *tb,
                                                                           int q, int half, int16_t *S, const int nw) {
    const int vb = (int)svcntb();
    const svbool_t all = svptrue_b8();
    const svuint8_t pl = svld1rq_u8(all, tb->pl[q]), ph = svld1rq_u8(all, tb->ph[q]);
    const uint8_t *codes = w->sb[q].qs[0] + 128 * half;
    /* window offsets and the index mask in registers: the unpredicated two-vector forms (util_sve.h) keep
     * their sources, where SUB and AND with an immediate overwrite them and cost a copy each */
    const svuint8_t c0 = svdup_n_u8(0); /* unused: window 0 looks up i itself */
    svuint8_t c1 = svdup_n_u8((uint8_t)(2 * vb)), c2 = svdup_n_u8((uint8_t)(4 * vb)), c3 = svdup_n_u8((uint8_t)(6 * vb));
    svuint8_t c7f = svdup_n_u8(0x7f);
    __asm__("" : "+w"(c1), "+w"(c2), "+w"(c3), "+w"(c7f));
#pragma clang loop unroll(disable) /* the loop scripts/arm-cost measures */
    for (int o = 0; o < 128; o += vb) {
        const svbool_t pg = svwhilelt_b8(o, 128);
        svuint8_t sl = svdup_n_u8(0), sh = sl;
#pragma clang loop unroll(full)
        for (int g = 0; g < 6; g++) {
            const ciot_tl3_group_neon *tg = &tb->g[q][g];
            const svuint8_t x = svld1_u8(pg, codes + 256 * g + o);
            const svuint8_t i = ciot_and_sve(x, c7f);
            svuint8_t l, h;
            CIOT_TL3_LOOKUP_SVE2(0);
            CIOT_TL3_LOOKUP_SVE2(1);
            CIOT_TL3_LOOKUP_SVE2(2);
            CIOT_TL3_LOOKUP_SVE2(3);
            /* negated: -T = 32 ~h + (32 - l) */
            const svbool_t neg = svcmplt_n_s8(pg, svreinterpret_s8_u8(x), 0);
            const svuint8_t ln = svsubr_n_u8_m(neg, l, 32), hn = svnot_u8_m(h, neg, h);
            sl = g ? ciot_add_u8_sve(sl, ln) : ln;
            sh = g ? ciot_add_u8_sve(sh, hn) : hn;
        }
        /* qn byte j: row j in the low nibble, row j + 128 in the high one */
        const svuint8_t xn = svld1_u8(pg, w->sb[q].qn + o);
        const svuint8_t c = half ? CIOT_LSR_U8_SVE(xn, 4) : svand_n_u8_x(all, xn, 15);
        const svuint8_t al = svadd_u8_x(all, sl, svtbl_u8(pl, c)), ah = svadd_u8_x(all, sh, svtbl_u8(ph, c));
        /* rows o .. o + vb/2 - 1 and the next vb/2 of the half */
        int16_t *s = S + 128 * half + o;
        const svbool_t p0 = svwhilelt_b16(o, 128), p1 = svwhilelt_b16(o + vb / 2, 128);
        const svint16_t a0 = svreinterpret_s16_u16(svunpklo_u16(al)), a1 = svreinterpret_s16_u16(svunpkhi_u16(al));
        const svint16_t b0 = svunpklo_s16(svreinterpret_s8_u8(ah)), b1 = svunpkhi_s16(svreinterpret_s8_u8(ah));
        svst1_s16(p0, s, svadd_s16_x(p0, svld1_s16(p0, s), svmla_n_s16_x(p0, a0, b0, 32)));
        svst1_s16(p1, s + vb / 2, svadd_s16_x(p1, svld1_s16(p1, s + vb / 2), svmla_n_s16_x(p1, a1, b1, 32)));
    }
}

/* Sub-block q's sums of all 256 rows added to S. */
static inline __attribute__((always_inline)) void ciot_tl3_subblock_sums_sve2(const block_tl3 *w, const ciot_tl3_tables_neon *tb,
                                                                               int q, int16_t *S, const int nw) {
    ciot_tl3_half_sums_sve2(w, tb, q, 0, S, nw);
    ciot_tl3_half_sums_sve2(w, tb, q, 1, S, nw);
}

#endif
