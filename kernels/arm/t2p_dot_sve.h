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
 * the blocks (as in t2p_dot_neondot.h); a block's row sums are the step between two transposed and
 * granule-folded totals (ciot_t2p_rows_sve). */
#ifndef CIOT_ARM_T2P_DOT_SVE_H
#define CIOT_ARM_T2P_DOT_SVE_H

#include <stddef.h>
#include "act_t2p_sve.h"
#include "kernel.h"
#include "prefetch.h"

_Static_assert(offsetof(block_t2p, qs) == 8 && sizeof(block_t2p) == 136, "T2P: d[4], then qs");

/* Running sums of pair p over the blocks so far: c1 of u (slots 0 and 3), c4 of 4u (slot 1), c16 of 16u
 * (slot 2), u = code = weight + 1. int32 safe: per block a lane adds at most 4 runs x 4 products x 48 x 127
 * (c16 at 128 bits; fewer runs at longer lengths), 97536, and callers pass chunks of at most 64 blocks. */
#define CIOT_T2P_SDOT_PAIR_SVE(c1, c4, c16, b, y0, y1, y2, y3)                              \
    do {                                                                                     \
        c1 = svdot_s32(c1, svreinterpret_s8_u8(ciot_and_sve(b, m03)), y0);                \
        c4 = svdot_s32(c4, svreinterpret_s8_u8(ciot_and_sve(b, m0c)), y1);                \
        c16 = svdot_s32(c16, svreinterpret_s8_u8(ciot_and_sve(b, m30)), y2);              \
        c1 = svdot_s32(c1, svreinterpret_s8_u8(CIOT_LSR_U8_SVE(b, 6)), y3);                \
    } while (0)

/* u . y of the four rows over the blocks so far, from the six running sums, in lanes 0..3 (rows 0..3).
 * Per lane c1 + c4 / 4 + c16 / 16 (exact: c4 and c16 sum multiples of 4 and 16); then within each 128-bit
 * granule pair 0's [r0 r0 r1 r1] and pair 1's [r2 r2 r3 r3] are transposed to two [r0 r1 r2 r3] and added
 * (TRN on 64-bit, then 32-bit lanes); then granules g and g + s are added for s = 1, 2, 4, 8 while the vector
 * has more than s of them (EXT pulls in zeros from above), which leaves the sum of all of them in granule 0
 * whatever their number. */
static inline __attribute__((always_inline)) svint32_t ciot_t2p_rows_sve(svint32_t c1_0, svint32_t c4_0, svint32_t c16_0,
                                                                         svint32_t c1_1, svint32_t c4_1, svint32_t c16_1,
                                                                         int vb) {
    const svint32_t t0 = ciot_add_s32_sve(ciot_add_s32_sve(c1_0, CIOT_ASR_S32_SVE(c4_0, 2)), CIOT_ASR_S32_SVE(c16_0, 4));
    const svint32_t t1 = ciot_add_s32_sve(ciot_add_s32_sve(c1_1, CIOT_ASR_S32_SVE(c4_1, 2)), CIOT_ASR_S32_SVE(c16_1, 4));
    const svint32_t e = svreinterpret_s32_s64(svtrn1_s64(svreinterpret_s64_s32(t0), svreinterpret_s64_s32(t1)));
    const svint32_t o = svreinterpret_s32_s64(svtrn2_s64(svreinterpret_s64_s32(t0), svreinterpret_s64_s32(t1)));
    svint32_t r = ciot_add_s32_sve(svtrn1_s32(e, o), svtrn2_s32(e, o));
    const svint32_t zero = svdup_n_s32(0);
    if (vb > 16) r = ciot_add_s32_sve(r, svext_s32(r, zero, 4));
    if (vb > 32) r = ciot_add_s32_sve(r, svext_s32(r, zero, 8));
    if (vb > 64) r = ciot_add_s32_sve(r, svext_s32(r, zero, 16));
    if (vb > 128) r = ciot_add_s32_sve(r, svext_s32(r, zero, 32));
    return r;
}

/* Blocks 0 .. 2n - 1 of tile w against the prepared Q8_K blocks a[0 .. n - 1], prefetching `prefetch` bytes
 * ahead. halves 1: a float step per 128-block (PQ2_0's order); halves 2: the pair is one TQ2_0 256-block
 * whose scale both halves carry, one step on the pair's joined integer sum (kernels/README-tq.md). The float
 * state is lanes 0..3 of an SVE vector (the other lanes compute nothing that is kept). */
static inline __attribute__((always_inline)) float32x4_t ciot_t2p_blocks_loop_sve(const block_t2p *w,
                                                                                  const ciot_t2p_act2_sve *a, int n,
                                                                                  float32x4_t acc_in, size_t prefetch,
                                                                                  const int halves) {
    const svbool_t p4 = svptrue_pat_b32(SV_VL4);
    const int vb = (int)svcntb();
    /* The masks stay in registers (the empty asm hides their value): AND of two vectors has a separate
     * destination, AND with an immediate overwrites its source and would need a copy of every word. */
    svuint8_t m03 = svdup_n_u8(0x03), m0c = svdup_n_u8(0x0c), m30 = svdup_n_u8(0x30);
    __asm__("" : "+w"(m03), "+w"(m0c), "+w"(m30));
    svint32_t c1_0 = svdup_n_s32(0), c4_0 = c1_0, c16_0 = c1_0, c1_1 = c1_0, c4_1 = c1_0, c16_1 = c1_0;
    svint32_t prev = c1_0; /* w . y over the blocks before this one: u . y - ycum */
    float acc4[4];
    vst1q_f32(acc4, acc_in);
    svfloat32_t acc = svld1_f32(p4, acc4);
    for (int k = 0; k < n; k++, a++) {
        ciot_prefetch(w, 2 * sizeof *w, prefetch);
        const svfloat32_t dy = svld1_f32(p4, a->d);
        /* fp32(d[r]) of the block (FCVT widens exactly); for TQ2_0 block 2q's, which block 2q + 1 repeats */
        svfloat32_t dw = svcvt_f32_f16_x(p4, svreinterpret_f16_u32(svld1uh_u32(p4, w->d)));
        for (int h = 0; h < 2; h++, w++) {
            for (int o = 0; o < 64; o += vb) {
                const svbool_t pg = svwhilelt_b8(o, 64);
                const svint8_t y0 = svld1_s8(pg, a->y[h][0] + o), y1 = svld1_s8(pg, a->y[h][1] + o);
                const svint8_t y2 = svld1_s8(pg, a->y[h][2] + o), y3 = svld1_s8(pg, a->y[h][3] + o);
                const svuint8_t b0 = svld1_u8(pg, w->qs + o), b1 = svld1_u8(pg, w->qs + 64 + o);
                CIOT_T2P_SDOT_PAIR_SVE(c1_0, c4_0, c16_0, b0, y0, y1, y2, y3);
                CIOT_T2P_SDOT_PAIR_SVE(c1_1, c4_1, c16_1, b1, y0, y1, y2, y3);
            }
            if (halves == 2 && h == 0) continue; /* the 256-block's isum is taken after its second half */
            if (halves == 1 && h == 1) dw = svcvt_f32_f16_x(p4, svreinterpret_f16_u32(svld1uh_u32(p4, w->d)));
            /* w . y through block b = u . y - ycum; a block's isum is the step from the block before */
            const svint32_t wy = svsub_s32_x(p4, ciot_t2p_rows_sve(c1_0, c4_0, c16_0, c1_1, c4_1, c16_1, vb),
                                             svld1_s32(p4, a->ycum[h]));
            const svint32_t isum = svsub_s32_x(p4, wy, prev);
            prev = wy;
            /* fmaf((float) isum, fp32(d[r]) * d_y, acc) */
            acc = svmla_f32_m(p4, acc, svcvt_f32_s32_x(p4, isum), svmul_f32_x(p4, dw, dy));
        }
    }
    svst1_f32(p4, acc4, acc);
    return vld1q_f32(acc4);
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
