/* The AVX2 T2P gemm tile: two 4-row weight tiles (8 rows) x one Q8_Kx4 group (4 activation rows), the
 * partial sums kept in int16 over a whole float step. Shared by the T2P gemms made from PQ2_0 (one step per
 * 128-block) and from TQ2_0 (one per 256-block: two T2P blocks). Why this shape, on a core whose int8
 * multiply (vpmaddubsw) issues on two ports beside four vector ALUs:
 * - each broadcast activation chunk feeds both tiles' decoded slot vectors (0.5 loads per multiply, not 1);
 * - each decoded slot vector feeds the group's four activation rows (decoding once per tile and chunk);
 * - one int16 accumulator per (tile, activation row), added to with vpaddw (one ALU op per multiply) and
 *   widened once per float step (vpmaddwd), not after every multiply;
 * 8 int16 accumulators, 2 code vectors, 2 slot vectors and one activation vector fit the 16 ymm registers.
 * T2P byte 64p + 16w + j holds, in slot s (bits 2s..2s+1), row 2p + (j >= 8), weight 8 (4w + s) + (j & 7):
 * [bytes 16w.. | 64 + 16w..] is [rows 0, 1 | rows 2, 3] x 8 weights of chunk 4w + s, the 8 activations
 * of which, one qword of Q8_Kx4, are broadcast. */
#ifndef CIOT_X86_T2P_TILE8X4_AVX2_H
#define CIOT_X86_T2P_TILE8X4_AVX2_H

#include "util_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

/* int16 bound, per accumulator lane and vpmaddubsw step: two products code x activation, the code 0..3
 * (code 3 is refused by no reader: the bound covers it), the activation -128..127, so |step| <= 2 * 3 * 128
 * = 768. A 128-block is 16 steps per lane (16 chunks of 8 weights, each lane one pair of one row), a TQ2_0
 * 256-block 32: |sum| <= 32 * 768 = 24576 < 32767, so no lane wraps or saturates before it is widened.
 * (vpmaddubsw itself saturates only past 32767 for one step: 768 is far below.) */
enum { CIOT_T2P_I16_STEP_MAX = 2 * 3 * 128, CIOT_T2P_I16_STEPS_MAX = 32 };
_Static_assert(CIOT_T2P_I16_STEP_MAX * CIOT_T2P_I16_STEPS_MAX <= 32767, "T2P int16 sums must not wrap");

/* Adds one 128-block (T2P code bytes qs[q] of tile q, half h of the Q8_Kx4 block xb) to acc[q][b]:
 * 16 vpmaddubsw steps per lane. nq = 1 or 2 tiles, a constant once inlined. */
static inline __attribute__((always_inline)) void ciot_t2p_tile_block_avx2(const uint8_t *const qs[2],
                                                                           const block_q8_Kx4 *xb, int h,
                                                                           __m256i acc[2][4], int nq) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const int8_t *a = xb->qs + 32 * 16 * h; /* chunk c of this half at 32c, row b at +8b */
    for (int w = 0; w < 4; w++) {
        __m256i v[2];
        for (int q = 0; q < nq; q++) v[q] = ciot_load2x16_avx2(qs[q] + 16 * w, qs[q] + 64 + 16 * w);
        for (int s = 0; s < 4; s++) {
            __m256i u[2];
            for (int q = 0; q < nq; q++) u[q] = _mm256_and_si256(s ? _mm256_srli_epi16(v[q], 2 * s) : v[q], m3);
            for (int b = 0; b < 4; b++) {
                const __m256i y = ciot_bcast8_avx2(a + 32 * (4 * w + s) + 8 * b);
                for (int q = 0; q < nq; q++) acc[q][b] = _mm256_add_epi16(acc[q][b], _mm256_maddubs_epi16(u[q], y));
            }
        }
    }
}

/* u . y of tile q's four rows against the group's four rows, from the int16 lanes [R0 x4 pairs, R1 x4 |
 * R2, R3]: widened (vpmaddwd by ones; int32 exact), then [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void ciot_t2p_tile_rows_avx2(const __m256i acc[4], __m256i *s01, __m256i *s23) {
    const __m256i ones = _mm256_set1_epi16(1), order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    __m256i t[4];
    for (int b = 0; b < 4; b++) t[b] = _mm256_madd_epi16(acc[b], ones); /* [R0 R0 R1 R1 | R2 R2 R3 R3] */
    *s01 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(t[0], t[1]), order);
    *s23 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(t[2], t[3]), order);
}

/* sum(y) of the group's rows over halves [h0, h0 + nh) as [Y0 x4 | Y1 x4] and [Y2 x4 | Y3 x4]. */
static inline void ciot_t2p_tile_colsums_avx2(const block_q8_Kx4 *xb, int h0, int nh, __m256i *y01, __m256i *y23) {
    /* bsums[16 (g >> 2) + 4b + (g & 3)], g = 8h .. 8h + 7: two runs of 16, row b at 4b .. 4b + 3 in each;
     * int16 safe: 4 bsums of |.| <= 2048 per lane before vpmaddwd */
    __m256i p = _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(xb->bsums + 32 * h0)),
                                 _mm256_loadu_si256((const __m256i *)(xb->bsums + 32 * h0 + 16)));
    if (nh == 2)
        p = _mm256_add_epi16(p, _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(xb->bsums + 32)),
                                                 _mm256_loadu_si256((const __m256i *)(xb->bsums + 48))));
    const __m256i m = _mm256_madd_epi16(p, _mm256_set1_epi16(1));
    const __m256i hm = _mm256_hadd_epi32(m, m); /* [Y0 Y1 . . | Y2 Y3 . .] */
    *y01 = _mm256_permutevar8x32_epi32(hm, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    *y23 = _mm256_permutevar8x32_epi32(hm, _mm256_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5));
}

/* Weight tiles [first, first + count) of T2P against every activation group, two tiles at a time (a last
 * odd tile alone). halves = 1: one float step per 128-block (PQ2_0's order); halves = 2 (from TQ2_0): blocks
 * 2q, 2q + 1 are one 256-block, summed in int16 before one step with block 2q's scales. Each step is
 * acc = fmaf((float) (u.y - sum y), fp32(d_w[R]) * d[b], acc) per lane, in the canonical order. A partial
 * last group runs as a full one (its padding rows are zero); only real rows are written. */
static inline __attribute__((always_inline)) void ciot_t2p_tile8x4_gemm_avx2(const ciot_mm *mm, int first, int count,
                                                                             int halves) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    const block_q8_Kx4 *x = mm->x;
    const block_t2p *wt = mm->w;
    for (int tile = first; tile < first + count; tile += 2) {
        const int nq = first + count - tile >= 2 ? 2 : 1;
        const block_t2p *w[2] = {wt + (size_t)tile * nb, wt + (size_t)(tile + nq - 1) * nb};
        for (int bg = 0; bg < groups; bg++) {
            const block_q8_Kx4 *xg = x + (size_t)bg * nbk;
            __m256 facc[2][2] = {{_mm256_setzero_ps(), _mm256_setzero_ps()}, {_mm256_setzero_ps(), _mm256_setzero_ps()}};
            for (int i = 0; i < nb; i += halves) {
                if (bg == 0) /* the first group streams the weights in; the others find them in cache */
                    for (int q = 0; q < nq; q++) ciot_prefetch(&w[q][i], halves * sizeof w[q][i], mm->prefetch);
                const block_q8_Kx4 *xb = &xg[i >> 1];
                __m256i acc[2][4];
                for (int q = 0; q < 2; q++)
                    for (int b = 0; b < 4; b++) acc[q][b] = _mm256_setzero_si256();
                for (int k = 0; k < halves; k++) {
                    const uint8_t *qs[2] = {w[0][i + k].qs, w[1][i + k].qs};
                    if (nq == 2) ciot_t2p_tile_block_avx2(qs, xb, (i + k) & 1, acc, 2);
                    else ciot_t2p_tile_block_avx2(qs, xb, (i + k) & 1, acc, 1);
                }
                __m256i y01, y23;
                ciot_t2p_tile_colsums_avx2(xb, i & 1, halves, &y01, &y23);
                const __m256 d4 = _mm256_castps128_ps256(_mm_loadu_ps(xb->d));
                const __m256 d01 = _mm256_permutevar8x32_ps(d4, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
                const __m256 d23 = _mm256_permutevar8x32_ps(d4, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3));
                for (int q = 0; q < nq; q++) {
                    __m256i s01, s23;
                    ciot_t2p_tile_rows_avx2(acc[q], &s01, &s23);
                    const __m128 w4 = ciot_fp16x4_avx2(w[q][i].d);
                    const __m256 ww = _mm256_insertf128_ps(_mm256_castps128_ps256(w4), w4, 1);
                    facc[q][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(s01, y01)), _mm256_mul_ps(ww, d01),
                                                 facc[q][0]);
                    facc[q][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(s23, y23)), _mm256_mul_ps(ww, d23),
                                                 facc[q][1]);
                }
            }
            const int n = mm->batch - 4 * bg < 4 ? mm->batch - 4 * bg : 4;
            for (int q = 0; q < nq; q++) {
                float *y = mm->y + (size_t)4 * bg * mm->ldy + 4 * (tile + q);
                const __m128 rows[4] = {_mm256_castps256_ps128(facc[q][0]), _mm256_extractf128_ps(facc[q][0], 1),
                                        _mm256_castps256_ps128(facc[q][1]), _mm256_extractf128_ps(facc[q][1], 1)};
                for (int b = 0; b < n; b++) _mm_storeu_ps(y + (size_t)b * mm->ldy, rows[b]);
            }
        }
    }
}

#endif
