#if !defined(__ARM_FEATURE_SVE)
#error "t2p_dot_sve.h needs -march=armv8.2-a+sve (include it from *_sve.c only)"
#endif
/* The T2P block loop of the SVE SDOT gemvs (t2p_gemv_sve, t2p_tq2_gemv_sve), vector-length agnostic: one
 * 4-row tile against one activation row prepared by act_t2p_sve.h, continuing the canonical float order
 * from `acc` (lane r = weight row r). A pair's 64 bytes are read in runs of svcntb() bytes (the last one
 * predicated: at 384 bits a pair is 48 + 16 bytes), each against the same run of the slot images; every
 * 16-byte word of a run has its rows where t2p_gemv_neondot has them, so SDOT lanes 4m, 4m + 1 of a
 * granule sum row 2p and lanes 4m + 2, 4m + 3 row 2p + 1, whatever the length. Per run: three ANDs, one
 * shift and four SDOTs per pair, four image loads shared by the two pairs. The accumulators run on over
 * the blocks (as in t2p_dot_neondot.h); a block's row sums are the step between two totals, combined and
 * granule-folded in SVE and handed to NEON for the pair sums and the float step (ciot_t2p_pair_sve). */
#ifndef CIOT_ARM_T2P_DOT_SVE_H
#define CIOT_ARM_T2P_DOT_SVE_H

#include <stddef.h>
#include "act_t2p_sve.h"
#include "kernel.h"
#include "prefetch.h"

_Static_assert(offsetof(block_t2p, qs) == 8 && sizeof(block_t2p) == 136, "T2P: d[4], then qs");

/* Running sums of pair p over the blocks so far: c1 of u (slots 0 and 3), c4 of 4u (slot 1), c16 of 16u
 * (slot 2), u = code = weight + 1. int32 safe: per block a lane adds at most 4 runs x 4 products x 48 x 127
 * (c16 at 128 bits; fewer runs at longer lengths), 97536, and callers pass chunks of at most 64 blocks. The
 * 16 (c1 + c4 / 4 + c16 / 16) of ciot_t2p_pair_sve is 16 u . y of a row's part: at most 16 x 64 x 128 x
 * 2 x 127 over a chunk, and ADR's modular arithmetic is exact when the result fits. */
#define CIOT_T2P_SDOT_PAIR_SVE(c1, c4, c16, b, y0, y1, y2, y3)                              \
    do {                                                                                     \
        c1 = svdot_s32(c1, svreinterpret_s8_u8(ciot_and_sve(b, m03)), y0);                \
        c4 = svdot_s32(c4, svreinterpret_s8_u8(ciot_and_sve(b, m0c)), y1);                \
        c16 = svdot_s32(c16, svreinterpret_s8_u8(ciot_and_sve(b, m30)), y2);              \
        c1 = svdot_s32(c1, svreinterpret_s8_u8(CIOT_LSR_U8_SVE(b, 6)), y3);                \
    } while (0)

/* 16 (u . y) of the four rows over the blocks so far, as a NEON vector (rows 0..3). Per lane
 * c16 + 4 (c4 + 4 c1) = 16 (c1 + c4 / 4 + c16 / 16), two ADRs (SVE1 has no SSRA; modular int32 arithmetic,
 * exact as the result fits). Then the granules of each pair are added (none at 128 bits, one DUPQ at 256,
 * EXT with zeros for s = 1, 2, 4, 8 granules beyond, which leaves the sum of any number of them in granule
 * 0), the last SVE instruction writing granule 0 straight into a NEON register; and NEON's ADDP takes the
 * pairs' [r r r' r'] to [r0 r1 r2 r3]. The float step that follows is NEON's too: on llvm-mca's models SVE
 * SCVTF and FCVT are two uops on one pipe, and at 256 bits (V1) NEON instructions also issue on the two
 * pipes SVE leaves free. */
static inline __attribute__((always_inline)) int32x4_t ciot_t2p_pair_sve(svint32_t c1, svint32_t c4, svint32_t c16,
                                                                         int vb) {
    const svint32_t x = ciot_adr4_s32_sve(c4, c1);
    if (vb == 16) return ciot_adr4_q_sve(c16, x);
    svint32_t t = ciot_adr4_s32_sve(c16, x);
    if (vb == 32) return ciot_add_q_sve(t, svdupq_lane_s32(t, 1));
    const svint32_t zero = svdup_n_s32(0);
    t = ciot_add_s32_sve(t, svext_s32(t, zero, 4)); /* 3 or more granules */
    if (vb <= 64) return ciot_add_q_sve(t, svext_s32(t, zero, 8));
    t = ciot_add_s32_sve(t, svext_s32(t, zero, 8));
    if (vb <= 128) return ciot_add_q_sve(t, svext_s32(t, zero, 16));
    t = ciot_add_s32_sve(t, svext_s32(t, zero, 16));
    return ciot_add_q_sve(t, svext_s32(t, zero, 32)); /* up to 16 granules, 2048 bits */
}

/* One 128-block h of the prepared pair a against the tile block w: its runs of svcntb() bytes, whole vectors
 * first and then one predicated run if 64 is not a multiple of the length (48 + 16 at 384 bits). */
#define CIOT_T2P_RUN_SVE(pg, o)                                                                       \
    do {                                                                                             \
        const svint8_t y0 = svld1_s8(pg, a->y[h][0] + (o)), y1 = svld1_s8(pg, a->y[h][1] + (o));     \
        const svint8_t y2 = svld1_s8(pg, a->y[h][2] + (o)), y3 = svld1_s8(pg, a->y[h][3] + (o));     \
        const svuint8_t b0 = svld1_u8(pg, w[h].qs + (o)), b1 = svld1_u8(pg, w[h].qs + 64 + (o));        \
        CIOT_T2P_SDOT_PAIR_SVE(c1_0, c4_0, c16_0, b0, y0, y1, y2, y3);                               \
        CIOT_T2P_SDOT_PAIR_SVE(c1_1, c4_1, c16_1, b1, y0, y1, y2, y3);                               \
    } while (0)
#define CIOT_T2P_BLOCK_SVE(hh)                                                                        \
    do {                                                                                             \
        const int h = (hh);                                                                          \
        int o = 0;                                                                                   \
        for (; o + vb <= 64; o += vb) CIOT_T2P_RUN_SVE(all, o);                                      \
        if (o < 64) {                                                                                \
            const svbool_t pg = svwhilelt_b8(o, 64);                                                 \
            CIOT_T2P_RUN_SVE(pg, o);                                                                 \
        }                                                                                            \
    } while (0)

/* 16 (u . y) of the four rows through the block just run */
#define CIOT_T2P_TOTAL16_SVE() \
    vpaddq_s32(ciot_t2p_pair_sve(c1_0, c4_0, c16_0, vb), ciot_t2p_pair_sve(c1_1, c4_1, c16_1, vb))

/* fp32(d[r]) of a block's four rows (FCVTL widens exactly) */
static inline float32x4_t ciot_t2p_dw_sve(const block_t2p *w) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(w->d)));
}

/* Blocks 0 .. 2n - 1 of tile w against the prepared Q8_K blocks a[0 .. n - 1], prefetching `prefetch` bytes
 * ahead. halves 1: a float step per 128-block (PQ2_0's order); halves 2: the pair is one TQ2_0 256-block
 * whose scale both halves carry, one step on the pair's joined integer sum (kernels/README-tq.md). The sums
 * are 16 times the true ones until the float step, whose SCVTF with 4 fraction bits divides exactly. */
static inline __attribute__((always_inline)) float32x4_t ciot_t2p_blocks_loop_sve(const block_t2p *w,
                                                                                  const ciot_t2p_act2_sve *a, int n,
                                                                                  float32x4_t acc, size_t prefetch,
                                                                                  const int halves) {
    const svbool_t all = svptrue_b8();
    const int vb = (int)svcntb();
    /* The masks stay in registers (the empty asm hides their value): AND of two vectors has a separate
     * destination, AND with an immediate overwrites its source and would need a copy of every word. */
    svuint8_t m03 = svdup_n_u8(0x03), m0c = svdup_n_u8(0x0c), m30 = svdup_n_u8(0x30);
    __asm__("" : "+w"(m03), "+w"(m0c), "+w"(m30));
    svint32_t c1_0 = svdup_n_s32(0), c4_0 = c1_0, c16_0 = c1_0, c1_1 = c1_0, c4_1 = c1_0, c16_1 = c1_0;
    int32x4_t prev = vdupq_n_s32(0); /* 16 (w . y) over the blocks before this one: 16 (u . y - ycum) */
    for (int k = n; k != 0; k--, a++, w += 2) {
        ciot_prefetch(w, 2 * sizeof *w, prefetch);
        const float32x4_t dy = vld1q_f32(a->d);
        CIOT_T2P_BLOCK_SVE(0);
        if (halves == 1) {
            const int32x4_t wy = vsubq_s32(CIOT_T2P_TOTAL16_SVE(), vld1q_s32(a->ycum16[0]));
            /* fmaf((float) isum, fp32(d[r]) * d_y, acc) */
            acc = vfmaq_f32(acc, vcvtq_n_f32_s32(vsubq_s32(wy, prev), 4), vmulq_f32(ciot_t2p_dw_sve(w), dy));
            prev = wy;
        }
        /* nothing of the second block moves above this point (clang would interleave and spill) */
        __asm__("" : "+w"(c1_0), "+w"(c4_0), "+w"(c16_0), "+w"(c1_1), "+w"(c4_1), "+w"(c16_1), "+r"(w), "+r"(a));
        CIOT_T2P_BLOCK_SVE(1);
        const int32x4_t wy = vsubq_s32(CIOT_T2P_TOTAL16_SVE(), vld1q_s32(a->ycum16[1]));
        /* halves 2: the 256-block's isum and block 2q's scale, which block 2q + 1 repeats */
        acc = vfmaq_f32(acc, vcvtq_n_f32_s32(vsubq_s32(wy, prev), 4), vmulq_f32(ciot_t2p_dw_sve(w + (halves == 1)), dy));
        prev = wy;
    }
    return acc;
}

/* The loop above, compiled once with the prefetch and once without, so that no block tests the policy. */
static inline float32x4_t ciot_t2p_blocks_sve(const block_t2p *w, const ciot_t2p_act2_sve *a, int n, float32x4_t acc,
                                              size_t prefetch) {
    return prefetch ? ciot_t2p_blocks_loop_sve(w, a, n, acc, prefetch, 1) : ciot_t2p_blocks_loop_sve(w, a, n, acc, 0, 1);
}

/* The same for T2P made from TQ2_0: one float step per 256-block (halves 2). */
static inline float32x4_t ciot_t2p_tq2_blocks_sve(const block_t2p *w, const ciot_t2p_act2_sve *a, int n,
                                                  float32x4_t acc, size_t prefetch) {
    return prefetch ? ciot_t2p_blocks_loop_sve(w, a, n, acc, prefetch, 2) : ciot_t2p_blocks_loop_sve(w, a, n, acc, 0, 2);
}

typedef float32x4_t (*ciot_t2p_loop_sve_fn)(const block_t2p *w, const ciot_t2p_act2_sve *a, int n, float32x4_t acc,
                                            size_t prefetch);

enum {
    CIOT_T2P_SVE_QK = 32,    /* Q8_K blocks prepared at a time (8192 activations, 17.5 KiB of stack) */
    CIOT_T2P_SVE_TILES = 32, /* tiles that share one preparation (float accumulators kept meanwhile) */
};

/* The gemv: activations prepared once per slice and chunk of K, shared by groups of tiles (as
 * ciot_t2p_gemv_loop_neondot). */
static inline __attribute__((always_inline)) void ciot_t2p_gemv_loop_sve(const ciot_mm *mm, int first, int count,
                                                                         ciot_t2p_loop_sve_fn loop) {
    const int nb = mm->K / CIOT_QK, nk = mm->K / CIOT_QK_K;
    ciot_t2p_act2_sve act[CIOT_T2P_SVE_QK];
    float32x4_t acc[CIOT_T2P_SVE_TILES];
    for (int t0 = first; t0 < first + count; t0 += CIOT_T2P_SVE_TILES) {
        const int nt = first + count - t0 < CIOT_T2P_SVE_TILES ? first + count - t0 : CIOT_T2P_SVE_TILES;
        for (int t = 0; t < nt; t++) acc[t] = vdupq_n_f32(0.0f);
        for (int j0 = 0; j0 < nk; j0 += CIOT_T2P_SVE_QK) {
            const int n = nk - j0 < CIOT_T2P_SVE_QK ? nk - j0 : CIOT_T2P_SVE_QK;
            ciot_t2p_act_prepare_sve(mm->x, j0, n, act);
            for (int t = 0; t < nt; t++)
                acc[t] = loop((const block_t2p *)mm->w + (size_t)(t0 + t) * nb + 2 * j0, act, n, acc[t], mm->prefetch);
        }
        for (int t = 0; t < nt; t++) vst1q_f32(mm->y + 4 * (t0 + t), acc[t]);
    }
}

#endif
