#if !defined(__ARM_FEATURE_SVE_MATMUL_INT8)
#error "t2p_dot_svei8mm.h needs -march=armv8.6-a+sve+i8mm (include it from *_svei8mm.c only)"
#endif
/* The T2P gemm with SVE SMMLA at any vector length, shared by t2p_gemm_svei8mm and t2p_tq2_gemm_svei8mm.
 * SMMLA works on each 128-bit granule of the vector on its own, so granule k of every vector is one
 * activation group (a Q8_Kx4 group of 4 rows) and does exactly what t2p_gemm_i8mm does for that group:
 * the weights' 16-byte words are loaded once and replicated into every granule (LD1RQB), the groups'
 * activations are prepared once per chunk of K with their chunks side by side, and nothing is ever summed
 * across granules. svcntb() / 16 groups share one weight decode; the last pass predicates nothing, its
 * missing groups are zeros whose results are never written. */
#ifndef CIOT_ARM_T2P_DOT_SVEI8MM_H
#define CIOT_ARM_T2P_DOT_SVEI8MM_H

#include <string.h>
#include "kernel.h"
#include "tile4x4_i8mm.h"
#include "util_sve.h"

/* A prepared 128-block of G groups (G = svcntb() / 16), 576 G bytes: for chunk c (values 8c .. 8c + 7 of
 * the block) and column pair cp, at 16 G (2c + cp), granule k holds group k's Q8_Kx4 bytes 32c + 16cp ..
 * + 15 (rows 2cp, 2cp + 1: the right operands of t2p_gemm_i8mm); at 512 G + 16 G cp 16 times the column sums
 * [c0 c1 c0 c1] / [c2 c3 c2 c3] and at 544 G + 16 G cp the scales laid out the same way
 * (ciot_tile4x4_colsums_i8mm, ciot_tile4x4_cols_i8mm). */
enum {
    CIOT_T2P_SVEI8MM_BLOCK = 576,     /* bytes per prepared 128-block and granule */
    CIOT_T2P_SVEI8MM_CHUNK = 36864,   /* prepared bytes per chunk of K: 64 blocks of one granule */
    CIOT_T2P_SVEI8MM_TILES = 16,      /* weight tiles whose float state is kept across the chunks of K */
    CIOT_T2P_SVEI8MM_MAX_GRANULES = 16, /* 2048 bits, the longest SVE vector */
};

/* Q8_Kx4 blocks j0 .. j0 + nq - 1 of groups x[0 .. gn - 1] (each group `nbk` blocks) into buf, G granules. */
static inline void ciot_t2p_prepare_svei8mm(const block_q8_Kx4 *x, int nbk, int gn, int G, int j0, int nq, int8_t *buf) {
    memset(buf, 0, (size_t)nq * 2 * CIOT_T2P_SVEI8MM_BLOCK * G);
    for (int k = 0; k < gn; k++)
        for (int j = 0; j < nq; j++) {
            const block_q8_Kx4 *b = x + (size_t)k * nbk + j0 + j;
            float32x4_t dyc[2];
            ciot_tile4x4_cols_i8mm(vld1q_f32(b->d), dyc);
            for (int h = 0; h < 2; h++) {
                int8_t *o = buf + (size_t)(2 * j + h) * CIOT_T2P_SVEI8MM_BLOCK * G + 16 * k;
                for (int c = 0; c < 16; c++)
                    for (int cp = 0; cp < 2; cp++) memcpy(o + 16 * G * (2 * c + cp), b->qs + 512 * h + 32 * c + 16 * cp, 16);
                int32x4_t cs[2];
                ciot_tile4x4_colsums_i8mm(b, h, cs);
                for (int cp = 0; cp < 2; cp++) {
                    vst1q_s32((int32_t *)(o + 512 * G + 16 * G * cp), vshlq_n_s32(cs[cp], 4)); /* 16 x, as the sums */
                    vst1q_f32((float *)(o + 544 * G + 16 * G * cp), dyc[cp]);
                }
            }
        }
}

/* Decoded slot s of a replicated word: u (s = 0, 3), 4u (s = 1), 16u (s = 2). */
#define CIOT_T2P_SLOT_SVEI8MM(v, s) \
    svreinterpret_s8_u8((s) == 0 ? ciot_and_sve(v, m03) : (s) == 1 ? ciot_and_sve(v, m0c) : (s) == 2 ? ciot_and_sve(v, m30) : CIOT_LSR_U8_SVE(v, 6))

/* 16 (m1 + m4 / 4 + m16 / 16) = m16 + 4 (m4 + 4 m1) of one accumulator triple: two ADRs (modular int32,
 * exact as the result fits), where the plain combination needs two shifts and two adds. */
#define CIOT_T2P_UY16_SVEI8MM(m1, m4, m16) ciot_adr4_s32_sve(m16, ciot_adr4_s32_sve(m4, m1))

/* One 128-block of the tile for every group into the SMMLA accumulators m{1,4,16}_{p}{cp} (variables of the
 * caller, beside all8, vb, the masks), which run on over the blocks of a chunk: after a block (or TQ2_0
 * 256-block) its sums are subtracted from m16, so none is reset. int32 safe: per block a lane of m16 adds at most 4 words x 8 products x
 * 48 x 127 = 195072, m1 and m4 less, and a chunk has at most 64 blocks. */
#define CIOT_T2P_BLOCK_SVEI8MM(w, a)                                                                                  \
    do {                                                                                                              \
        for (int wd = 0; wd < 4; wd++) {                                                                              \
            const svuint8_t v0 = svld1rq_u8(all8, (w)->qs + 16 * wd), v1 = svld1rq_u8(all8, (w)->qs + 64 + 16 * wd); \
            /* the word's 8 activation vectors, addressed in vector lengths from one base (LD1B's MUL VL form) */     \
            const int8_t *aw = (a) + 8 * vb * wd;                                                                     \
            CIOT_T2P_SLOT_STEP(0, m1);                                                                                \
            CIOT_T2P_SLOT_STEP(1, m4);                                                                                \
            CIOT_T2P_SLOT_STEP(2, m16);                                                                               \
            CIOT_T2P_SLOT_STEP(3, m1);                                                                                \
        }                                                                                                             \
    } while (0)
#define CIOT_T2P_SLOT_STEP(s, m)                                                                                      \
    do {                                                                                                              \
        const svint8_t y0 = svld1_vnum_s8(all8, aw, 2 * (s)), y1 = svld1_vnum_s8(all8, aw, 2 * (s) + 1);             \
        const svint8_t d0 = CIOT_T2P_SLOT_SVEI8MM(v0, s), d1 = CIOT_T2P_SLOT_SVEI8MM(v1, s);                          \
        m##_00 = svmmla_s32(m##_00, d0, y0);                                                                          \
        m##_01 = svmmla_s32(m##_01, d0, y1);                                                                          \
        m##_10 = svmmla_s32(m##_10, d1, y0);                                                                          \
        m##_11 = svmmla_s32(m##_11, d1, y1);                                                                          \
    } while (0)

/* fp32 of the block's row scales of pair p laid out as [r2p r2p r2p+1 r2p+1] in every granule: the fp16
 * d[4] replicated (LD1RQH reads d and the first qs bytes), each scale moved into the low half of its 32-bit
 * lanes by TBL (index vector idx), widened exactly by FCVT. */
static inline __attribute__((always_inline)) svfloat32_t ciot_t2p_dw_svei8mm(const block_t2p *w, svuint16_t idx) {
    const svuint16_t d = svld1rq_u16(svptrue_b16(), w->d);
    return svcvt_f32_f16_x(svptrue_b32(), svreinterpret_f16_u16(svtbl_u16(d, idx)));
}

/* The canonical step of one (pair, column pair) from 16 (u . y) of the block: the column sum (16 times
 * too) turns u = w + 1 back into w, then fmaf((float) isum, fp32(d_w[row]) * d_y[col], acc) lane by lane. */
#define CIOT_T2P_STEP_SVEI8MM(acc, uy16, cs16, dw, dy)                                                          \
    acc = svmla_f32_m(all, acc, svcvt_f32_s32_x(all, CIOT_ASR_S32_SVE(ciot_sub_s32_sve(uy16, cs16), 4)), \
                      svmul_f32_x(all, dw, dy))
/* The same at 128 bits, one group, in NEON: the SUB writes the NEON register, SCVTF with 4 fraction bits
 * divides by 16 exactly, and FCVTL, SCVTF are one uop where SVE's FCVT, SCVTF are two on one pipe in
 * llvm-mca's N2 and V2 models. */
#define CIOT_T2P_STEP_Q_SVEI8MM(acc, uy16, cs16, dwp, dy) \
    acc = vfmaq_f32(acc, vcvtq_n_f32_s32(ciot_sub_q_sve(uy16, cs16), 4), vmulq_f32(dwp, dy))

/* Blocks 0 .. nblk - 1 (at most 64) of one tile against a prepared chunk, continuing the float state at
 * `state` (four vectors, one per (pair p, column pair cp), 4 * CIOT_T2P_SVEI8MM_MAX_GRANULES floats apart).
 * halves 1: one float step per 128-block; halves 2 (TQ2_0): blocks 2q, 2q + 1 are one 256-block whose sums are
 * taken together (int32 safe: |isum| <= 256 * 2 * 127), then one step with block 2q's scales. Sums are 16
 * times the true ones until the step. */
static inline __attribute__((always_inline)) void ciot_t2p_tile_chunk_svei8mm(const block_t2p *w, const int8_t *buf, int nblk,
                                                                             float *state, const int halves) {
    const int vb = (int)svcntb();
    const svbool_t all = svptrue_b32();
    enum { S = 4 * CIOT_T2P_SVEI8MM_MAX_GRANULES };
    svuint8_t m03 = svdup_n_u8(0x03), m0c = svdup_n_u8(0x0c), m30 = svdup_n_u8(0x30);
    __asm__("" : "+w"(m03), "+w"(m0c), "+w"(m30)); /* in registers: the two-vector AND (util_sve.h) */
    /* 16-bit lane l of a granule takes scale (l & 7) >> 2 (pair 0) or 2 + that (pair 1) */
    const svbool_t all16 = svptrue_b16();
    const svuint16_t lane = svindex_u16(0, 1);
    const svuint16_t idx0 = svadd_u16_x(all16, svand_n_u16_x(all16, lane, (uint16_t)~7u),
                                        svlsr_n_u16_x(all16, svand_n_u16_x(all16, lane, 7), 2));
    const svuint16_t idx1 = svadd_n_u16_x(all16, idx0, 2);
    svfloat32_t acc00 = svld1_f32(all, state), acc01 = svld1_f32(all, state + S);
    svfloat32_t acc10 = svld1_f32(all, state + 2 * S), acc11 = svld1_f32(all, state + 3 * S);
    float32x4_t q00 = vld1q_f32(state), q01 = vld1q_f32(state + S), q10 = vld1q_f32(state + 2 * S),
                q11 = vld1q_f32(state + 3 * S); /* the same state at 128 bits */
    const svbool_t all8 = svptrue_b8();
    const svint32_t z = svdup_n_s32(0);
    svint32_t m1_00 = z, m1_01 = z, m1_10 = z, m1_11 = z, m4_00 = z, m4_01 = z, m4_10 = z, m4_11 = z;
    svint32_t m16_00 = z, m16_01 = z, m16_10 = z, m16_11 = z;
    for (int b = 0; b < nblk; b += halves, w += halves) {
        const int8_t *a = buf + (size_t)b * CIOT_T2P_SVEI8MM_BLOCK * (vb / 16);
        const int32_t *ac = (const int32_t *)(a + 32 * vb); /* column sums, then scales: vectors 32 .. 35 */
        svint32_t cs0 = svld1_vnum_s32(all, ac, 0), cs1 = svld1_vnum_s32(all, ac, 1);
        CIOT_T2P_BLOCK_SVEI8MM(w, a);
        if (halves == 2) { /* the 256-block: both halves into the running sums, their column sums added */
            const int8_t *a1 = a + CIOT_T2P_SVEI8MM_BLOCK * (vb / 16);
            const int32_t *ac1 = (const int32_t *)(a1 + 32 * vb);
            CIOT_T2P_BLOCK_SVEI8MM(w + 1, a1);
            cs0 = ciot_add_s32_sve(cs0, svld1_vnum_s32(all, ac1, 0));
            cs1 = ciot_add_s32_sve(cs1, svld1_vnum_s32(all, ac1, 1));
        }
        /* the block's sums, 16 (u . y); taking them out of m16 leaves the totals at 0 for the next block
         * without resetting twelve registers (modular int32: exact, every value fits) */
        const svint32_t uy00 = CIOT_T2P_UY16_SVEI8MM(m1_00, m4_00, m16_00);
        const svint32_t uy01 = CIOT_T2P_UY16_SVEI8MM(m1_01, m4_01, m16_01);
        const svint32_t uy10 = CIOT_T2P_UY16_SVEI8MM(m1_10, m4_10, m16_10);
        const svint32_t uy11 = CIOT_T2P_UY16_SVEI8MM(m1_11, m4_11, m16_11);
        m16_00 = ciot_sub_s32_sve(m16_00, uy00), m16_01 = ciot_sub_s32_sve(m16_01, uy01);
        m16_10 = ciot_sub_s32_sve(m16_10, uy10), m16_11 = ciot_sub_s32_sve(m16_11, uy11);
        if (vb == 16) {
            const float32x4_t dw = ciot_fp16x4_neon(w->d), dw0 = vzip1q_f32(dw, dw), dw1 = vzip2q_f32(dw, dw);
            const float32x4_t dy0 = vld1q_f32((const float *)ac + 8), dy1 = vld1q_f32((const float *)ac + 12);
            CIOT_T2P_STEP_Q_SVEI8MM(q00, uy00, cs0, dw0, dy0);
            CIOT_T2P_STEP_Q_SVEI8MM(q01, uy01, cs1, dw0, dy1);
            CIOT_T2P_STEP_Q_SVEI8MM(q10, uy10, cs0, dw1, dy0);
            CIOT_T2P_STEP_Q_SVEI8MM(q11, uy11, cs1, dw1, dy1);
            continue;
        }
        const svfloat32_t dw0 = ciot_t2p_dw_svei8mm(w, idx0), dw1 = ciot_t2p_dw_svei8mm(w, idx1);
        const svfloat32_t dy0 = svld1_vnum_f32(all, (const float *)ac, 2), dy1 = svld1_vnum_f32(all, (const float *)ac, 3);
        CIOT_T2P_STEP_SVEI8MM(acc00, uy00, cs0, dw0, dy0);
        CIOT_T2P_STEP_SVEI8MM(acc01, uy01, cs1, dw0, dy1);
        CIOT_T2P_STEP_SVEI8MM(acc10, uy10, cs0, dw1, dy0);
        CIOT_T2P_STEP_SVEI8MM(acc11, uy11, cs1, dw1, dy1);
    }
    if (vb == 16) {
        vst1q_f32(state, q00), vst1q_f32(state + S, q01), vst1q_f32(state + 2 * S, q10), vst1q_f32(state + 3 * S, q11);
        return;
    }
    svst1_f32(all, state, acc00), svst1_f32(all, state + S, acc01);
    svst1_f32(all, state + 2 * S, acc10), svst1_f32(all, state + 3 * S, acc11);
}

/* A tile's block loop as the kernels call it (their files wrap it in the cost markers). */
typedef void (*ciot_t2p_tile_svei8mm_fn)(const block_t2p *w, const int8_t *buf, int nblk, float *state);

/* The gemm: per pass of G groups and run of up to CIOT_T2P_SVEI8MM_TILES tiles, each chunk of K prepared once
 * and run over the tiles; a tile's float state (four vectors) waits in `state` between chunks. Then every
 * real activation row of the pass is written. */
static inline __attribute__((always_inline)) void ciot_t2p_gemm_loop_svei8mm(const ciot_mm *mm, int first, int count,
                                                                            ciot_t2p_tile_svei8mm_fn tile) {
    const int G = (int)svcntb() / 16, nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    const int qk = CIOT_T2P_SVEI8MM_CHUNK / (2 * CIOT_T2P_SVEI8MM_BLOCK * G); /* Q8_K blocks per chunk, >= 2 */
    int8_t buf[CIOT_T2P_SVEI8MM_CHUNK] __attribute__((aligned(64)));
    float state[CIOT_T2P_SVEI8MM_TILES][4][4 * CIOT_T2P_SVEI8MM_MAX_GRANULES];
    for (int g0 = 0; g0 < groups; g0 += G) {
        const int gn = groups - g0 < G ? groups - g0 : G;
        const block_q8_Kx4 *x = (const block_q8_Kx4 *)mm->x + (size_t)g0 * nbk;
        for (int t0 = first; t0 < first + count; t0 += CIOT_T2P_SVEI8MM_TILES) {
            const int nt = first + count - t0 < CIOT_T2P_SVEI8MM_TILES ? first + count - t0 : CIOT_T2P_SVEI8MM_TILES;
            memset(state, 0, sizeof state);
            for (int j0 = 0; j0 < nbk; j0 += qk) {
                const int nq = nbk - j0 < qk ? nbk - j0 : qk;
                ciot_t2p_prepare_svei8mm(x, nbk, gn, G, j0, nq, buf);
                for (int t = 0; t < nt; t++)
                    tile((const block_t2p *)mm->w + (size_t)(t0 + t) * nb + 2 * j0, buf, 2 * nq, state[t][0]);
            }
            /* state[t][2p + cp][4k + 2i + j]: weight row 2p + i, activation row 4 (g0 + k) + 2cp + j */
            for (int t = 0; t < nt; t++)
                for (int k = 0; k < gn; k++)
                    for (int c = 0; c < 4 && 4 * (g0 + k) + c < mm->batch; c++)
                        for (int r = 0; r < 4; r++)
                            mm->y[(size_t)(4 * (g0 + k) + c) * mm->ldy + 4 * (t0 + t) + r] =
                                state[t][2 * (r >> 1) + (c >> 1)][4 * k + 2 * (r & 1) + (c & 1)];
        }
    }
}

#endif
