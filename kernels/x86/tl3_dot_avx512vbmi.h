/* TL3 as multiply-add operands with AVX-512 VBMI (included only by *_avx512vbmi.c), shared by the TL3 gemms of
 * PTQ1_0 and TQ1_0 from their batch threshold on: a 64-row quarter of a 128-block is decoded
 * once into its weights (-1, 0, 1 as int8: one vpermi2b per trit looks up 64 rows' group codes, a masked
 * subtract negates where bit 7 is set), four weights of a row per 32-bit lane, and every activation row
 * multiplies them with vpdpbusd. A lookup serves one activation row; these weights serve the batch
 * (kernels/README.md, "TL3, AVX-512 VBMI"). */
#ifndef CIOT_X86_TL3_DOT_AVX512VBMI_H
#define CIOT_X86_TL3_DOT_AVX512VBMI_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "dot_rows_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "prefetch.h"

/* One decoded quarter: w[q][s][j] holds weights 32q + 4s .. 32q + 4s + 3 of 16 rows, a row's four in one
 * 32-bit lane; lane l of 128-bit lane L of j is row 16L + 4j + l of the quarter (the order two rounds of
 * unpacks leave, kept: the row scales dw[j] are gathered to it once per quarter, the results stored back from
 * it). corr[q][j] is 128 x the sum of sub-block q's weights per row, int32, in the same lanes. */
typedef struct {
    __m512i w[4][8][4];
    __m512i corr[4][4];
    __m512 dw[4];
} ciot_tl3_quarter_avx512vbmi;

/* weight n (0..4) of a group whose code is m (0..127): base-3 digit n of m, less 1 */
#define CIOT_TL3_DW(m, n) ((m) / ((n) == 0 ? 81 : (n) == 1 ? 27 : (n) == 2 ? 9 : (n) == 3 ? 3 : 1) % 3 - 1)
#define CIOT_TL3_DW0(m) CIOT_TL3_DW(m, 0)
#define CIOT_TL3_DW1(m) CIOT_TL3_DW(m, 1)
#define CIOT_TL3_DW2(m) CIOT_TL3_DW(m, 2)
#define CIOT_TL3_DW3(m) CIOT_TL3_DW(m, 3)
#define CIOT_TL3_DW4(m) CIOT_TL3_DW(m, 4)
#define CIOT_TL3_DW128(F) {CIOT_L32(F, 0), CIOT_L32(F, 32), CIOT_L32(F, 64), CIOT_L32(F, 96)}
static const int8_t ciot_tl3_dw_avx512vbmi[5][128] __attribute__((aligned(64))) = {
    CIOT_TL3_DW128(CIOT_TL3_DW0), CIOT_TL3_DW128(CIOT_TL3_DW1), CIOT_TL3_DW128(CIOT_TL3_DW2),
    CIOT_TL3_DW128(CIOT_TL3_DW3), CIOT_TL3_DW128(CIOT_TL3_DW4)};
/* the pair's two weights by its code c (0..15) */
static const int8_t ciot_tl3_pw_avx512vbmi[2][16] = {{CIOT_L16(CIOT_TL3_PAIR_W0, 0)}, {CIOT_L16(CIOT_TL3_PAIR_W1, 0)}};
#undef CIOT_TL3_DW128

/* Sub-block q of quarter u of block b into out->w[q] and out->corr[q]. A code b >= 128 is the group of code
 * b - 128 negated (kernels/README.md, "TL3"): vpermi2b ignores bit 7, the masked subtract applies it. */
static inline void ciot_tl3_decode_subblock_avx512vbmi(const block_tl3 *b, int u, int q, ciot_tl3_quarter_avx512vbmi *out) {
    __m512i t[32]; /* t[k]: weight k of the sub-block, 64 rows */
    const __m512i zero = _mm512_setzero_si512();
    for (int g = 0; g < 6; g++) {
        const __m512i x = _mm512_loadu_si512(b->sb[q].qs[g] + 64 * u);
        const __mmask64 neg = _mm512_movepi8_mask(x);
        for (int n = 0; n < 5; n++) {
            const __m512i w = _mm512_permutex2var_epi8(_mm512_load_si512(ciot_tl3_dw_avx512vbmi[n]), x,
                                                       _mm512_load_si512(ciot_tl3_dw_avx512vbmi[n] + 64));
            t[5 * g + n] = _mm512_mask_sub_epi8(w, neg, zero, w);
        }
    }
    /* the pair: nibble u >> 1 of qn[64 (u & 1) + j] for row j */
    const __m512i n = _mm512_loadu_si512(b->sb[q].qn + 64 * (u & 1));
    const __m512i c = _mm512_and_si512(u >> 1 ? _mm512_srli_epi16(n, 4) : n, _mm512_set1_epi8(15));
    t[30] = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)ciot_tl3_pw_avx512vbmi[0])), c);
    t[31] = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)ciot_tl3_pw_avx512vbmi[1])), c);
    __m512i sum = t[0]; /* |sum| <= 32: exact in a byte */
    for (int k = 1; k < 32; k++) sum = _mm512_add_epi8(sum, t[k]);
    for (int s = 0; s < 8; s++) {
        const __m512i a = _mm512_unpacklo_epi8(t[4 * s], t[4 * s + 1]), bb = _mm512_unpackhi_epi8(t[4 * s], t[4 * s + 1]);
        const __m512i c2 = _mm512_unpacklo_epi8(t[4 * s + 2], t[4 * s + 3]), d = _mm512_unpackhi_epi8(t[4 * s + 2], t[4 * s + 3]);
        out->w[q][s][0] = _mm512_unpacklo_epi16(a, c2), out->w[q][s][1] = _mm512_unpackhi_epi16(a, c2);
        out->w[q][s][2] = _mm512_unpacklo_epi16(bb, d), out->w[q][s][3] = _mm512_unpackhi_epi16(bb, d);
    }
    for (int j = 0; j < 4; j++) { /* rows 16L + 4j .. + 3: dword 4L + j of sum */
        const __m512i g = _mm512_permutexvar_epi32(_mm512_setr_epi32(j, 4 + j, 8 + j, 12 + j, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), sum);
        out->corr[q][j] = _mm512_slli_epi32(_mm512_cvtepi8_epi32(_mm512_castsi512_si128(g)), 7);
    }
}

/* Quarter u of block b: its weights, sums and row scales (fp32, in the lanes of w). */
static inline void ciot_tl3_decode_avx512vbmi(const block_tl3 *b, int u, ciot_tl3_quarter_avx512vbmi *out) {
    _Pragma("clang loop unroll(disable)") for (int q = 0; q < 4; q++) ciot_tl3_decode_subblock_avx512vbmi(b, u, q, out);
    const __m512i d0 = _mm512_loadu_si512(b->d + 64 * u), d1 = _mm512_loadu_si512(b->d + 64 * u + 32);
    for (int j = 0; j < 4; j++) { /* the four scales of rows 16L + 4j .. + 3 are qword 4L + j */
        const __m512i g = _mm512_permutex2var_epi64(d0, _mm512_setr_epi64(j, 4 + j, 8 + j, 12 + j, 0, 0, 0, 0), d1);
        out->dw[j] = _mm512_cvtph_ps(_mm512_castsi512_si256(g));
    }
}

/* Activation rows per weight load: sixteen int32 chains of 8 dependent vpdpbusd each at 4. */
enum { CIOT_TL3_DOT_ROWS = 4 };

/* Activation rows per pass over a tile: their float state (1 KiB a row and quarter), 256 KiB, stays in L2;
 * a larger batch runs in passes, each decoding the tile again. Fewer rows a pass ran slower; one quarter at a
 * time for every block, the state in L1, read the block's lines scattered and ran below the lookups from DRAM
 * (results/kernel-bounds.md, "TL3"). */
enum { CIOT_TL3_DOT_COLS = 64 };

/* State of one activation row for one quarter. PTQ1_0: st[q][j], the float lanes of sub-block q. TQ1_0:
 * st[0][j] its one float lane, st[1][j] the int32 sum of the 256-block so far (bits of an __m512i). */
typedef __m512 ciot_tl3_dot_state[4][4];

/* Block i of quarter qt for nc (1 .. 4, a constant once inlined) activation rows (xb: their 128 activations
 * biased by 128, unsigned; dy: their scales), the float order of the source format (kernels/formats.md):
 * PTQ1_0 one fmaf per Q8_0 block (dy[q]); TQ1_0 (tq1) the 256-block's sum over its two 128-halves, then one
 * fmaf with the second half's row scales (dy[0]: Q8_K's d). Each sum starts at -128 x its row's weight sum:
 * sum (x + 128) w - 128 sum w, exact in int32. */
static inline __attribute__((always_inline)) void ciot_tl3_dot_block_avx512vbmi(const ciot_tl3_quarter_avx512vbmi *qt, int i,
                                                                                const uint8_t *const *xb,
                                                                                const float *const *dy,
                                                                                ciot_tl3_dot_state *const *st, int nc,
                                                                                const int tq1) {
    __m512i tsum[CIOT_TL3_DOT_ROWS][4]; /* TQ1_0: the 256-block's int32 sums */
    for (int q = 0; q < 4; q++) {
        __m512i acc[CIOT_TL3_DOT_ROWS][4];
        for (int j = 0; j < 4; j++) {
            const __m512i corr = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_load_si512(&qt->corr[q][j]));
            for (int c = 0; c < nc; c++) acc[c][j] = corr;
        }
        _Pragma("clang loop unroll(full)") for (int s = 0; s < 8; s++) {
            __m512i x[CIOT_TL3_DOT_ROWS];
            for (int c = 0; c < nc; c++) {
                int32_t four;
                __builtin_memcpy(&four, xb[c] + 32 * q + 4 * s, 4);
                x[c] = _mm512_set1_epi32(four);
            }
            for (int j = 0; j < 4; j++) {
                const __m512i w = _mm512_load_si512(&qt->w[q][s][j]);
                for (int c = 0; c < nc; c++) acc[c][j] = _mm512_dpbusd_epi32(acc[c][j], x[c], w);
            }
        }
        for (int c = 0; c < nc; c++) {
            if (tq1) { /* |sum| <= 256 * 127: exact */
                for (int j = 0; j < 4; j++)
                    tsum[c][j] = q ? _mm512_add_epi32(tsum[c][j], acc[c][j])
                                   : (i & 1) ? _mm512_add_epi32(_mm512_castps_si512((*st[c])[1][j]), acc[c][j]) : acc[c][j];
            } else {
                const __m512 d = _mm512_set1_ps(dy[c][q]);
                for (int j = 0; j < 4; j++)
                    (*st[c])[q][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[c][j]), _mm512_mul_ps(qt->dw[j], d), (*st[c])[q][j]);
            }
        }
    }
    if (tq1)
        for (int c = 0; c < nc; c++) {
            if (i & 1) {
                const __m512 d = _mm512_set1_ps(dy[c][0]);
                for (int j = 0; j < 4; j++)
                    (*st[c])[0][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(tsum[c][j]), _mm512_mul_ps(qt->dw[j], d), (*st[c])[0][j]);
            } else {
                for (int j = 0; j < 4; j++) (*st[c])[1][j] = _mm512_castsi512_ps(tsum[c][j]);
            }
        }
}

/* The prefetch policy for quarter u of the block `ahead` bytes on: its lines, as the decoding reads them. */
static inline void ciot_tl3_quarter_prefetch_avx512vbmi(const block_tl3 *b, int u, size_t ahead) {
    ciot_prefetch(b->d + 64 * u, 128, ahead);
    for (int q = 0; q < 4; q++) {
        for (int g = 0; g < 6; g++) ciot_prefetch(b->sb[q].qs[g] + 64 * u, 64, ahead);
        ciot_prefetch(b->sb[q].qn + 64 * (u & 1), 64, ahead);
    }
}

/* The gemm on decoded quarters: tiles [first, first + count) against every activation row (x_row_bytes each:
 * Q8_0 rows for PTQ1_0, Q8_K for TQ1_0), block after block; each block's activations biased once for the
 * pass's rows, then its four quarters in turn (prefetched two blocks ahead), each decoded once for them,
 * CIOT_TL3_DOT_ROWS rows per weight load. */
static inline __attribute__((always_inline)) void ciot_tl3_dot_gemm_avx512vbmi(const ciot_mm *mm, int first, int count,
                                                                               size_t x_row_bytes, const int tq1) {
    const int nb = mm->K / 128, tiles = mm->rows / CIOT_LUT_TILE;
    _Alignas(64) ciot_tl3_quarter_avx512vbmi qt;
    _Alignas(64) ciot_tl3_dot_state st[CIOT_TL3_DOT_COLS][4];
    _Alignas(64) uint8_t xb[CIOT_TL3_DOT_COLS][128];
    float dy[CIOT_TL3_DOT_COLS][4];
    for (int t = first; t < first + count; t++) {
        const int g0 = t - t % CIOT_TL3_GROUP, gt = tiles - g0 < CIOT_TL3_GROUP ? tiles - g0 : CIOT_TL3_GROUP;
        const size_t ahead = mm->prefetch ? 2 * (size_t)gt * sizeof(block_tl3) : 0; /* this quarter, two blocks on */
        for (int c0 = 0; c0 < mm->batch; c0 += CIOT_TL3_DOT_COLS) {
            const int nc = mm->batch - c0 < CIOT_TL3_DOT_COLS ? mm->batch - c0 : CIOT_TL3_DOT_COLS;
            memset(st, 0, (size_t)nc * sizeof st[0]);
            for (int i = 0; i < nb; i++) {
                const block_tl3 *b = (const block_tl3 *)mm->w + ciot_lut_block_index(t, i, tiles, nb, CIOT_TL3_GROUP);
                ciot_dot_bias_rows_avx2(mm, x_row_bytes, c0, nc, i, tq1, xb, dy);
                for (int u = 0; u < 4; u++) {
                    if (i + 2 < nb) ciot_tl3_quarter_prefetch_avx512vbmi(b, u, ahead);
                    ciot_tl3_decode_avx512vbmi(b, u, &qt);
#define CIOT_TL3_DOT_CALL(n)                                                                                          \
    do {                                                                                                           \
        const uint8_t *xn[CIOT_TL3_DOT_ROWS];                                                                      \
        const float *dn[CIOT_TL3_DOT_ROWS];                                                                        \
        ciot_tl3_dot_state *sn[CIOT_TL3_DOT_ROWS];                                                                 \
        for (int j = 0; j < (n); j++) xn[j] = xb[c + j], dn[j] = dy[c + j], sn[j] = &st[c + j][u];                 \
        ciot_tl3_dot_block_avx512vbmi(&qt, i, xn, dn, sn, (n), tq1);                                               \
    } while (0)
                    CIOT_DOT_ROW_GROUPS(nc, CIOT_TL3_DOT_ROWS, c, CIOT_TL3_DOT_CALL);
#undef CIOT_TL3_DOT_CALL
                }
            }
            for (int c = 0; c < nc; c++)
                for (int u = 0; u < 4; u++) {
                    float *y = mm->y + (size_t)(c0 + c) * mm->ldy + (size_t)CIOT_LUT_TILE * t + 64 * u;
                    for (int j = 0; j < 4; j++) {
                        const __m512 a = tq1 ? st[c][u][0][j]
                                             : _mm512_add_ps(_mm512_add_ps(st[c][u][0][j], st[c][u][1][j]),
                                                             _mm512_add_ps(st[c][u][2][j], st[c][u][3][j]));
                        _mm_storeu_ps(y + 4 * j, _mm512_extractf32x4_ps(a, 0));
                        _mm_storeu_ps(y + 16 + 4 * j, _mm512_extractf32x4_ps(a, 1));
                        _mm_storeu_ps(y + 32 + 4 * j, _mm512_extractf32x4_ps(a, 2));
                        _mm_storeu_ps(y + 48 + 4 * j, _mm512_extractf32x4_ps(a, 3));
                    }
                }
        }
    }
}

#endif
