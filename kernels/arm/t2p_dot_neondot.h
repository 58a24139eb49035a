#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_dot_neondot.h needs -march=armv8.2-a+dotprod (include it from *_neondot.c only)"
#endif
/* The T2P block loop shared by t2p_gemv_neondot and t2p_gemm_neondot: one 4-row tile against one
 * activation row prepared by act_t2p_neon.h, two blocks per iteration, continuing the canonical float order
 * from `acc` (lane r = weight row r). Byte j of word w of pair p holds, in slot s, row 2p + (j >= 8), weight
 * 8 (4w + s) + (j & 7): one SDOT of slot s against y[4w + s] gives lanes 0-1 row 2p, lanes 2-3 row 2p + 1.
 * Per 16-byte word: three ANDs, one shift and four SDOTs. The accumulators run on over the blocks and a
 * block's sum is the difference of two running totals, so no accumulator is reset per block. */
#ifndef CIOT_ARM_T2P_DOT_NEONDOT_H
#define CIOT_ARM_T2P_DOT_NEONDOT_H

#include <stddef.h>
#include "act_t2p_neon.h"
#include "kernel.h"
#include "prefetch.h"

/* The loop reads both streams front to back with post-indexed loads (CIOT_STEP_NEON): this order. */
_Static_assert(offsetof(block_t2p, qs) == 8 && sizeof(block_t2p) == 136, "T2P: d[4], then qs");
_Static_assert(offsetof(ciot_t2p_act2_neon, ycum) == 512 && offsetof(ciot_t2p_act2_neon, d) == 544 &&
                   sizeof(ciot_t2p_act2_neon) == 560,
               "prepared pair: y[2][16], ycum[2], d");

/* Running sums over the blocks so far, of pair p: c1[p] of u (slots 0 and 3), c4[p] of 4u (slot 1), c16[p]
 * of 16u (slot 2), u = code = weight + 1. int32 safe: per block a lane adds at most 32 * 3 * 127 (c1),
 * 16 * 12 * 127 (c4) or 16 * 48 * 127 (c16), and a pairwise add two lanes, so a total grows by at most
 * 195072 per block: 10000 blocks fit (callers pass chunks of at most 64). */
typedef struct {
    int32x4_t c1[2], c4[2], c16[2];
} ciot_t2p_sums_neondot;

/* One block at weight bytes *wb (d[4], then qs) and prepared activations *ab, both pointers advanced past
 * it. Returns u . y over the blocks so far (rows 0..3 in lanes 0..3) and sets *dw = fp32(d[r]). */
static inline __attribute__((always_inline)) int32x4_t ciot_t2p_block_neondot(ciot_t2p_sums_neondot *c, const uint8_t **wb,
                                                                              const int8_t **ab, float32x4_t *dw) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    const uint8_t *w = *wb;
    const int8_t *a = *ab;
    *dw = ciot_fp16x4_neon((const uint16_t *)w);
    CIOT_STEP_NEON(w, 8);
    const uint8x16x4_t v0 = vld1q_u8_x4(w); /* pair 0, words 0..3 */
    CIOT_STEP_NEON(w, 64);
    const uint8x16x4_t v1 = vld1q_u8_x4(w); /* pair 1 */
    CIOT_STEP_NEON(w, 64);
    for (int wd = 0; wd < 4; wd++) {
        const int8x16x4_t y = vld1q_s8_x4(a); /* slots 0..3 of word wd */
        CIOT_STEP_NEON(a, 64);
        for (int p = 0; p < 2; p++) {
            const uint8x16_t b = p ? v1.val[wd] : v0.val[wd];
            c->c1[p] = vdotq_s32(c->c1[p], vreinterpretq_s8_u8(vandq_u8(b, m03)), y.val[0]);
            c->c4[p] = vdotq_s32(c->c4[p], vreinterpretq_s8_u8(vandq_u8(b, m0c)), y.val[1]);
            c->c16[p] = vdotq_s32(c->c16[p], vreinterpretq_s8_u8(vandq_u8(b, m30)), y.val[2]);
            c->c1[p] = vdotq_s32(c->c1[p], vreinterpretq_s8_u8(vshrq_n_u8(b, 6)), y.val[3]);
        }
    }
    *wb = w;
    *ab = a;
    /* Pairwise adds put rows 0..3 in lanes 0..3. Exact: c4 sums multiples of 4 and c16 multiples of 16, so
     * the arithmetic shifts (SSRA) drop zero bits only. */
    return vsraq_n_s32(vsraq_n_s32(vpaddq_s32(c->c1[0], c->c1[1]), vpaddq_s32(c->c4[0], c->c4[1]), 2),
                       vpaddq_s32(c->c16[0], c->c16[1]), 4);
}

/* Emits nothing; every later load and SDOT depends on it. Between the two blocks of an iteration it keeps
 * clang 14 from interleaving them, which runs it out of registers (spills, rematerialized masks). */
static inline __attribute__((always_inline)) void ciot_t2p_fence_neondot(ciot_t2p_sums_neondot *c, const uint8_t **wb,
                                                                         const int8_t **ab) {
    __asm__("" : "+w"(c->c1[0]), "+w"(c->c1[1]), "+w"(c->c4[0]), "+w"(c->c4[1]), "+w"(c->c16[0]), "+w"(c->c16[1]),
            "+r"(*wb), "+r"(*ab));
}

/* Blocks 0 .. 2n - 1 of tile w against the prepared Q8_K blocks a[0 .. n - 1], prefetching `prefetch` bytes
 * ahead. halves 1: a float step per 128-block (PQ2_0's order); halves 2: the pair is one TQ2_0 256-block
 * whose scale both halves carry, one step on the pair's joined integer sum (kernels/README-tq.md). */
static inline __attribute__((always_inline)) float32x4_t ciot_t2p_blocks_loop_neondot(const block_t2p *w,
                                                                                      const ciot_t2p_act2_neon *a, int n,
                                                                                      float32x4_t acc, size_t prefetch,
                                                                                      const int halves) {
    ciot_t2p_sums_neondot c;
    for (int p = 0; p < 2; p++) c.c1[p] = c.c4[p] = c.c16[p] = vdupq_n_s32(0);
    int32x4_t prev = vdupq_n_s32(0); /* w . y over the blocks before this pair: u . y - ycum */
    const uint8_t *wb = (const uint8_t *)w; /* walks the weight bytes */
    const int8_t *ab = (const int8_t *)a;   /* walks the prepared pairs */
    for (int k = n; k != 0; k--) {
        ciot_prefetch(wb, 2 * sizeof *w, prefetch);
        float32x4_t dw0, dw1;
        const int32x4_t tot0 = ciot_t2p_block_neondot(&c, &wb, &ab, &dw0);
        ciot_t2p_fence_neondot(&c, &wb, &ab);
        const int32x4_t tot1 = ciot_t2p_block_neondot(&c, &wb, &ab, &dw1);
        const int32x4x3_t s = vld1q_s32_x3((const int32_t *)ab); /* ycum[0], ycum[1], d */
        CIOT_STEP_NEON(ab, 48);
        const float32x4_t dy = vreinterpretq_f32_s32(s.val[2]);
        /* w . y through block b = u . y - ycum; a block's isum is the step from the block before. In this
         * order clang writes the new prev in place of the old, with no copy. */
        if (halves == 2) { /* the 256-block's isum, then fmaf((float) isum, fp32(d[r]) * d_y, acc) once */
            (void)tot0, (void)dw1;
            const int32x4_t w1 = vsubq_s32(tot1, s.val[1]);
            acc = vfmaq_f32(acc, vcvtq_f32_s32(vsubq_s32(w1, prev)), vmulq_f32(dw0, dy));
            prev = w1;
            continue;
        }
        const int32x4_t w0 = vsubq_s32(tot0, s.val[0]);
        const int32x4_t isum0 = vsubq_s32(w0, prev);
        prev = vsubq_s32(tot1, s.val[1]);
        const int32x4_t isum1 = vsubq_s32(prev, w0);
        /* fmaf((float) isum, fp32(d[r]) * d_y, acc): the first block of the pair, then the second */
        acc = vfmaq_f32(acc, vcvtq_f32_s32(isum0), vmulq_f32(dw0, dy));
        acc = vfmaq_f32(acc, vcvtq_f32_s32(isum1), vmulq_f32(dw1, dy));
    }
    return acc;
}

/* The loop above, compiled once with the prefetch and once without, so that no block tests the policy.
 * One prefetch call per pair of blocks covers its 272 bytes (starts 64 bytes apart, prefetch.h). */
static inline float32x4_t ciot_t2p_blocks_neondot(const block_t2p *w, const ciot_t2p_act2_neon *a, int n,
                                                  float32x4_t acc, size_t prefetch) {
    return prefetch ? ciot_t2p_blocks_loop_neondot(w, a, n, acc, prefetch, 1) : ciot_t2p_blocks_loop_neondot(w, a, n, acc, 0, 1);
}

/* The same for T2P made from TQ2_0: one float step per 256-block (halves 2). */
static inline float32x4_t ciot_t2p_tq2_blocks_neondot(const block_t2p *w, const ciot_t2p_act2_neon *a, int n,
                                                      float32x4_t acc, size_t prefetch) {
    return prefetch ? ciot_t2p_blocks_loop_neondot(w, a, n, acc, prefetch, 2) : ciot_t2p_blocks_loop_neondot(w, a, n, acc, 0, 2);
}

/* A block loop as the kernels call it: the kernel's file wraps one of the two above in its arm-cost markers. */
typedef float32x4_t (*ciot_t2p_loop_neondot_fn)(const block_t2p *w, const ciot_t2p_act2_neon *a, int n, float32x4_t acc,
                                                size_t prefetch);

enum {
    CIOT_T2P_ACT_QK = 32,    /* gemv: Q8_K blocks prepared at a time (8192 activations, 17.5 KiB of stack) */
    CIOT_T2P_ACT_TILES = 32, /* gemv: tiles that share one preparation (float accumulators kept meanwhile) */
    CIOT_T2P_ACT_QK_X4 = 16, /* gemm: Q8_K blocks prepared per row at a time (4 x 16 x 560 bytes: 35 KiB) */
};

/* The gemv: activations prepared once per slice and chunk of K, shared by groups of tiles. */
static inline __attribute__((always_inline)) void ciot_t2p_gemv_loop_neondot(const ciot_mm *mm, int first, int count,
                                                                             ciot_t2p_loop_neondot_fn loop) {
    const int nb = mm->K / CIOT_QK, nk = mm->K / CIOT_QK_K;
    ciot_t2p_act2_neon act[CIOT_T2P_ACT_QK];
    float32x4_t acc[CIOT_T2P_ACT_TILES];
    for (int t0 = first; t0 < first + count; t0 += CIOT_T2P_ACT_TILES) {
        const int nt = first + count - t0 < CIOT_T2P_ACT_TILES ? first + count - t0 : CIOT_T2P_ACT_TILES;
        for (int t = 0; t < nt; t++) acc[t] = vdupq_n_f32(0.0f);
        for (int j0 = 0; j0 < nk; j0 += CIOT_T2P_ACT_QK) {
            const int n = nk - j0 < CIOT_T2P_ACT_QK ? nk - j0 : CIOT_T2P_ACT_QK;
            ciot_t2p_act_prepare_neon(mm->x, j0, n, act);
            for (int t = 0; t < nt; t++)
                acc[t] = loop((const block_t2p *)mm->w + (size_t)(t0 + t) * nb + 2 * j0, act, n, acc[t], mm->prefetch);
        }
        for (int t = 0; t < nt; t++) vst1q_f32(mm->y + 4 * (t0 + t), acc[t]);
    }
}

/* The dotprod-only gemm: each real activation row of a Q8_Kx4 group (qs[32c + 8r + e] = row r, value 8c + e)
 * prepared for the block loop a chunk of K at a time, the loop run per tile and row; the padded rows of the
 * last group are never computed. */
static inline __attribute__((always_inline)) void ciot_t2p_gemm_loop_neondot(const ciot_mm *mm, int first, int count,
                                                                             ciot_t2p_loop_neondot_fn loop) {
    const int nb = mm->K / CIOT_QK, nk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    ciot_t2p_act2_neon act[4][CIOT_T2P_ACT_QK_X4];
    for (int g = 0; g < groups; g++) {
        const int n = mm->batch - 4 * g < 4 ? mm->batch - 4 * g : 4;
        const block_q8_Kx4 *x = (const block_q8_Kx4 *)mm->x + (size_t)g * nk;
        for (int j0 = 0; j0 < nk; j0 += CIOT_T2P_ACT_QK_X4) {
            const int kn = nk - j0 < CIOT_T2P_ACT_QK_X4 ? nk - j0 : CIOT_T2P_ACT_QK_X4;
            for (int r = 0; r < n; r++) ciot_t2p_act_prepare_x4_neon(x, r, j0, kn, act[r]);
            for (int t = first; t < first + count; t++)
                for (int r = 0; r < n; r++) {
                    /* the output doubles as the float accumulator between chunks: same order, same bits */
                    float *out = mm->y + (size_t)(4 * g + r) * mm->ldy + 4 * t;
                    const float32x4_t acc = j0 ? vld1q_f32(out) : vdupq_n_f32(0.0f);
                    vst1q_f32(out, loop((const block_t2p *)mm->w + (size_t)t * nb + 2 * j0, act[r], kn, acc, mm->prefetch));
                }
        }
    }
}

#endif
