#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_blocks_neondot.h needs -march=armv8.2-a+dotprod (include it from *_neondot.c only)"
#endif
/* The T2P gemv block loop, shared by the dotprod kernels of T2P made from PQ2_0 and from TQ2_0 (gemv, and
 * the gemm that runs it per activation row): one 4-row tile against one Q8_K row, continuing the
 * canonical float order from `acc` (lane r = weight row r).
 * Byte j of word w of pair p holds, in slot s, row 2p + (j >= 8), weight 8 (4w + s) + (j & 7): one SDOT
 * of slot s against chunk 4w + s duplicated into both halves gives lanes 0-1 row 2p, lanes 2-3 row 2p+1. */
#ifndef CIOT_ARM_T2P_BLOCKS_NEONDOT_H
#define CIOT_ARM_T2P_BLOCKS_NEONDOT_H

#include "formats.h"
#include "kernel.h"
#include "neon_helpers.h"
#include "prefetch.h"

/* One 128-block: u . y for rows 0..3, u = w + 1 the stored code. */
static inline int32x4_t ciot_t2p_block_uy(const block_t2p *w, const int8_t *a) {
    const uint8x16_t m03 = vdupq_n_u8(0x03), m0c = vdupq_n_u8(0x0c), m30 = vdupq_n_u8(0x30);
    /* a<s>[p], slot s of pair p: eight independent SDOT chains. int32 safe: a lane sums 16 products of at
     * most 48 * 127 */
    int32x4_t a0[2], a1[2], a2[2], a3[2];
    for (int p = 0; p < 2; p++) a0[p] = a1[p] = a2[p] = a3[p] = vdupq_n_s32(0);
    for (int wd = 0; wd < 4; wd++) {
        const int64x2x4_t yc = ciot_neon_dup8x4(a + 32 * wd); /* chunks 4wd .. 4wd+3, each in both halves */
        const int8x16_t y0 = vreinterpretq_s8_s64(yc.val[0]), y1 = vreinterpretq_s8_s64(yc.val[1]);
        const int8x16_t y2 = vreinterpretq_s8_s64(yc.val[2]), y3 = vreinterpretq_s8_s64(yc.val[3]);
        for (int p = 0; p < 2; p++) {
            const uint8x16_t v = vld1q_u8(w->qs + 64 * p + 16 * wd);
            a0[p] = vdotq_s32(a0[p], vreinterpretq_s8_u8(vandq_u8(v, m03)), y0);
            a1[p] = vdotq_s32(a1[p], vreinterpretq_s8_u8(vandq_u8(v, m0c)), y1);
            a2[p] = vdotq_s32(a2[p], vreinterpretq_s8_u8(vandq_u8(v, m30)), y2);
            a3[p] = vdotq_s32(a3[p], vreinterpretq_s8_u8(vshrq_n_u8(v, 6)), y3);
        }
    }
    /* t_p = a0 + a3 + a1 / 4 + a2 / 16 = u . y per lane pair. Exact: each lane of a1 sums multiples of 4 and
     * of a2 multiples of 16, so the arithmetic shifts (SSRA) drop zero bits only. The pairwise add puts
     * rows 0..3 in lanes 0..3. */
    int32x4_t t[2];
    for (int p = 0; p < 2; p++) t[p] = vsraq_n_s32(vsraq_n_s32(vaddq_s32(a0[p], a3[p]), a1[p], 2), a2[p], 4);
    return vpaddq_s32(t[0], t[1]);
}

/* Blocks 0 .. 2 nq - 1 of tile `w` against Q8_K blocks y[0 .. nq - 1], prefetching `prefetch` bytes ahead.
 * halves = 1 (T2P from PQ2_0): one float step per 128-block with its own scales. halves = 2 (T2P from
 * TQ2_0): blocks 2q, 2q + 1 are one 256-block carrying its scale twice; their integer sums are added
 * first (int32 safe: |isum| <= 256 * 2 * 127), then one step with block 2q's scales. */
static inline __attribute__((always_inline)) float32x4_t ciot_t2p_blocks_neondot(const block_t2p *w, const block_q8_K *y,
                                                                                 int nq, float32x4_t acc, size_t prefetch,
                                                                                 int halves) {
    for (int q = 0; q < nq; q++, y++)
        for (int h = 0; h < 2; h += halves, w += halves) {
            ciot_prefetch(w, halves * sizeof *w, prefetch);
            /* subtracting sum(y) turns u back into w */
            int32_t ysum = vaddlvq_s16(vld1q_s16(y->bsums + 8 * h));
            int32x4_t uy = ciot_t2p_block_uy(w, y->qs + 128 * h);
            if (halves == 2) {
                ysum += vaddlvq_s16(vld1q_s16(y->bsums + 8));
                uy = vaddq_s32(uy, ciot_t2p_block_uy(w + 1, y->qs + 128));
            }
            const int32x4_t isum = vsubq_s32(uy, vdupq_n_s32(ysum));
            acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(ciot_neon_h2f4(w->d), y->d));
        }
    return acc;
}

/* One tile's blocks against one Q8_K row: ciot_t2p_blocks_neondot with the kernel's `halves`, wrapped by
 * each kernel file in its own llvm-mca markers. */
typedef float32x4_t (*ciot_t2p_rows_fn)(const block_t2p *w, const block_q8_K *y, int nq, float32x4_t acc,
                                        size_t prefetch);

enum { CIOT_T2P_DEINTERLEAVE = 16 }; /* Q8_K blocks de-interleaved per row at a time: 4 x 16 x 292 bytes of stack */

/* Row r of Q8_Kx4 blocks x[0 .. n-1] as Q8_K blocks, for all four rows. LD4 of 64 bytes (chunks c, c+1)
 * splits the 8-byte pieces of rows 0..3 into four registers. */
static inline void ciot_q8_Kx4_deinterleave(const block_q8_Kx4 *x, int n, block_q8_K rows[4][CIOT_T2P_DEINTERLEAVE]) {
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 32; c += 2) {
            const int64x2x4_t v = vld4q_s64((const ciot_i64_unaligned *)(x[i].qs + 32 * c));
            for (int r = 0; r < 4; r++) vst1q_s8(rows[r][i].qs + 8 * c, vreinterpretq_s8_s64(v.val[r]));
        }
        for (int r = 0; r < 4; r++) {
            rows[r][i].d = x[i].d[r];
            for (int k = 0; k < 4; k++) memcpy(rows[r][i].bsums + 4 * k, x[i].bsums + 16 * k + 4 * r, 8);
        }
    }
}

/* The dotprod-only T2P gemm: each Q8_Kx4 group is de-interleaved back into Q8_K rows, a chunk of K at a
 * time, and `blocks` runs per real activation row; the padded rows of the last group are never computed.
 * The output doubles as the float accumulator between chunks: same order, same bits. */
static inline __attribute__((always_inline)) void ciot_t2p_gemm_rows_neondot(const ciot_mm *mm, int first, int count,
                                                                             ciot_t2p_rows_fn blocks) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    block_q8_K rows[4][CIOT_T2P_DEINTERLEAVE];
    for (int g = 0; g < groups; g++) {
        const int n = mm->batch - 4 * g < 4 ? mm->batch - 4 * g : 4;
        for (int k0 = 0; k0 < nbk; k0 += CIOT_T2P_DEINTERLEAVE) {
            const int kn = nbk - k0 < CIOT_T2P_DEINTERLEAVE ? nbk - k0 : CIOT_T2P_DEINTERLEAVE;
            ciot_q8_Kx4_deinterleave((const block_q8_Kx4 *)mm->x + (size_t)g * nbk + k0, kn, rows);
            for (int t = first; t < first + count; t++) {
                const block_t2p *w = (const block_t2p *)mm->w + (size_t)t * nb + 2 * k0;
                for (int r = 0; r < n; r++) {
                    float *out = mm->y + (size_t)(4 * g + r) * mm->ldy + 4 * t;
                    const float32x4_t acc = k0 ? vld1q_f32(out) : vdupq_n_f32(0.0f);
                    vst1q_f32(out, blocks(w, rows[r], kn, acc, mm->prefetch));
                }
            }
        }
    }
}

#endif
