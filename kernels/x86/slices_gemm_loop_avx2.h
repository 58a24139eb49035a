/* The decoded slices of the gemms at larger batches and their loop, with AVX2 (included by *_avx2.c and above):
 * a layout's decoder turns 32 rows of a weight block into a slice once (its weights -1..2 as int8, four of a row
 * per 32-bit lane), and every activation row of the batch then multiplies it (vpmaddubsw here; vpdpbusd in
 * tl16_dot_avx512vnni.h and tl16_dot_avxvnni.h) in its layout's float order. A table lookup serves one
 * activation row; a slice serves the whole batch. ciot_slices_gemm_loop walks the lookup-table layouts (TL16:
 * tl16_dot_avx2.h, TL2: tl2_slices_avx2.h, TL3: tl3_slices_avx2.h); T2P and T2X4 walk their 4-row tiles in
 * t2p_slices_avx2.h around the same blocks. */
#ifndef CIOT_X86_SLICES_GEMM_LOOP_AVX2_H
#define CIOT_X86_SLICES_GEMM_LOOP_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "dot_rows_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

/* One decoded slice: w[q][s][g] holds weights 32q + 4s .. 32q + 4s + 3 of eight rows, a row's four in one
 * 32-bit lane; lane l of g is row 4g + l (l < 4) or 16 + 4g + l - 4 (the order two rounds of unpacks leave,
 * kept: the row scales dw[g] are permuted to it once per slice, the results back once per tile). corr[q][g] is
 * 128 x the sum of sub-block q's weights per row, int32, in the same lanes. */
typedef struct {
    __m256i w[4][8][4];
    __m256i corr[4][4];
    __m256 dw[4];
} ciot_slice_avx2;

/* Four weight vectors of 32 rows (t[n]: weight n of a row at byte row) as the slice's four lane groups w[g]:
 * two rounds of unpacks put a row's four weights in one dword, rows in the lane order above. */
static inline __attribute__((always_inline)) void ciot_slice_lanes_avx2(const __m256i *t, __m256i w[4]) {
    const __m256i l01 = _mm256_unpacklo_epi8(t[0], t[1]), h01 = _mm256_unpackhi_epi8(t[0], t[1]);
    const __m256i l23 = _mm256_unpacklo_epi8(t[2], t[3]), h23 = _mm256_unpackhi_epi8(t[2], t[3]);
    w[0] = _mm256_unpacklo_epi16(l01, l23), w[1] = _mm256_unpackhi_epi16(l01, l23);
    w[2] = _mm256_unpacklo_epi16(h01, h23), w[3] = _mm256_unpackhi_epi16(h01, h23);
}

/* The fp16 scales of the slice's 32 rows (d[0..31]) in its lanes: 64-bit pieces of d[0..15] and d[16..31]. */
static inline void ciot_slice_scales_avx2(const uint16_t *d, ciot_slice_avx2 *out) {
    const __m128i d0 = _mm_loadu_si128((const __m128i *)d), d1 = _mm_loadu_si128((const __m128i *)(d + 8));
    const __m128i d2 = _mm_loadu_si128((const __m128i *)(d + 16)), d3 = _mm_loadu_si128((const __m128i *)(d + 24));
    out->dw[0] = _mm256_cvtph_ps(_mm_unpacklo_epi64(d0, d2)), out->dw[1] = _mm256_cvtph_ps(_mm_unpackhi_epi64(d0, d2));
    out->dw[2] = _mm256_cvtph_ps(_mm_unpacklo_epi64(d1, d3)), out->dw[3] = _mm256_cvtph_ps(_mm_unpackhi_epi64(d1, d3));
}

/* corr from `sum`: per byte, the sum of a sub-block's eight w vectors of one lane group (within -8..16), each
 * dword a row's four bytes; 128 x each row's weight sum. */
static inline __m256i ciot_slice_corr_avx2(__m256i sum) {
    return _mm256_slli_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), sum), _mm256_set1_epi16(1)), 7);
}

/* out->w[q] and out->corr[q] from t[k], weight k (-1..1) of sub-block q of the slice's 32 rows (byte j: row j):
 * what every layout's slice decoder ends with. */
static inline __attribute__((always_inline)) void ciot_slice_subblock_avx2(const __m256i t[32], int q,
                                                                           ciot_slice_avx2 *out) {
    __m256i sum = t[0]; /* |sum| <= 32: exact in a byte */
    for (int k = 1; k < 32; k++) sum = _mm256_add_epi8(sum, t[k]);
    for (int s = 0; s < 8; s++) ciot_slice_lanes_avx2(t + 4 * s, out->w[q][s]);
    const __m128i lo = _mm256_castsi256_si128(sum), hi = _mm256_extracti128_si256(sum, 1);
    out->corr[q][0] = _mm256_slli_epi32(_mm256_cvtepi8_epi32(_mm_unpacklo_epi32(lo, hi)), 7);
    out->corr[q][1] = _mm256_slli_epi32(_mm256_cvtepi8_epi32(_mm_unpacklo_epi32(_mm_srli_si128(lo, 4), _mm_srli_si128(hi, 4))), 7);
    out->corr[q][2] = _mm256_slli_epi32(_mm256_cvtepi8_epi32(_mm_unpacklo_epi32(_mm_srli_si128(lo, 8), _mm_srli_si128(hi, 8))), 7);
    out->corr[q][3] = _mm256_slli_epi32(_mm256_cvtepi8_epi32(_mm_unpacklo_epi32(_mm_srli_si128(lo, 12), _mm_srli_si128(hi, 12))), 7);
}

/* int16 bound, per accumulator lane and vpmaddubsw step: two products of a biased activation (x + 128, 0..255)
 * and a weight (-1..1 for TL16; -1..2 for T2P's slices, t2p_slices_avx2.h), |step| <= 2 * 255 * 2 = 1020; a
 * sub-block is 8 steps per lane: |sum| <= 8160 < 32767, and no step saturates. */
enum { CIOT_SLICE_DOT_STEP_MAX = 2 * 255 * 2, CIOT_SLICE_DOT_STEPS = 8 };
_Static_assert(CIOT_SLICE_DOT_STEP_MAX * CIOT_SLICE_DOT_STEPS <= 32767, "slice dot sums must not wrap");

/* x[c] = activations 4s .. 4s + 3 of row c < nc (biased, at xb[c]) in every dword: what one step of the
 * slices' dot multiplies every lane group's weights by. */
static inline __attribute__((always_inline)) void ciot_slice_bcast_avx2(const uint8_t *const *xb, int nc, int s,
                                                                           __m256i *x) {
    for (int c = 0; c < nc; c++) {
        int32_t four;
        __builtin_memcpy(&four, xb[c] + 4 * s, 4);
        x[c] = _mm256_set1_epi32(four);
    }
}

/* isum[c][g] (int32, the lanes of w) = the exact dot of sub-block q with activation row c < nc (1 or 2, a
 * constant once inlined), whose 32 values biased by 128 (x ^ 0x80: unsigned) are at xb[c]:
 * sum (x + 128) w - 128 sum w. */
static inline __attribute__((always_inline)) void ciot_slice_dot_avx2(const ciot_slice_avx2 *sl, int q,
                                                                     const uint8_t *const *xb, int nc,
                                                                     __m256i (*isum)[4]) {
    __m256i acc[2][4];
    /* unrolled: faster for PTQ1_0, level for TQ1_0 (results/kernel-bounds.md, "TL16") */
    _Pragma("clang loop unroll(full)") for (int s = 0; s < 8; s++) {
        __m256i x[2];
        ciot_slice_bcast_avx2(xb, nc, s, x);
        for (int g = 0; g < 4; g++) {
            const __m256i w = _mm256_load_si256(&sl->w[q][s][g]);
            for (int c = 0; c < nc; c++) {
                const __m256i p = _mm256_maddubs_epi16(x[c], w);
                acc[c][g] = s ? _mm256_add_epi16(acc[c][g], p) : p;
                __asm__("" : "+x"(acc[c][g])); /* one chain per accumulator: regrouped, the sums spill */
            }
        }
    }
    const __m256i ones = _mm256_set1_epi16(1);
    for (int c = 0; c < nc; c++)
        for (int g = 0; g < 4; g++) isum[c][g] = _mm256_sub_epi32(_mm256_madd_epi16(acc[c][g], ones), sl->corr[q][g]);
}

/* 32 results of a slice's lanes (a[g]: rows of lane order g) back in row order at y[0..31]. */
static inline void ciot_slice_store_avx2(const __m256 a[4], float *y) {
    for (int g = 0; g < 4; g++) {
        _mm_storeu_ps(y + 4 * g, _mm256_castps256_ps128(a[g]));
        _mm_storeu_ps(y + 16 + 4 * g, _mm256_extractf128_ps(a[g], 1));
    }
}

/* Activation rows per pass over a tile: their float state (eight slices x 512 bytes a row), 256 KiB, stays in
 * L2 while the tile's blocks stream past; a larger batch runs in passes, each decoding the tile again. */
enum { CIOT_SLICES_COLS = 64 };

/* The float order a dot block follows, its `order` argument (kernels/formats.md): one fmaf per 32-weight Q8_0
 * block (PTQ1_0), per 256-block over two 128-blocks (TQ1_0, TQ2_0) or per 128-block (PQ2_0); the last two read
 * Q8_K values (T2P's slices: Q8_Kx4). A TL16 loop passes its tq1 flag: 0 or 1. */
enum { CIOT_DOT_PER32 = 0, CIOT_DOT_PER256 = 1, CIOT_DOT_PER128 = 2 };

/* State of one activation row for one slice. PTQ1_0: st[q][g], the four float lanes (lane q: sub-block q of
 * every 128-block) of the rows of lane order g. The other orders: st[0][g] the one float lane, st[1][g] the
 * int32 sum of the 128- or 256-block so far (bits of an __m256i). */
typedef __m256 ciot_slice_state[4][4];

/* What computes isum[c][g] for a sub-block, as ciot_slice_dot_avx2 does (an other ISA's multiply). */
typedef void ciot_slice_dot_fn(const ciot_slice_avx2 *sl, int q, const uint8_t *const *xb, int nc,
                              __m256i (*isum)[4]);

/* Block i (xb: the 128 biased activations, dy: its scales) of nc (1 or 2) rows into their states, each
 * sub-block's sums from dot(), in the float order `order` (kernels/formats.md): PTQ1_0 one fmaf per Q8_0 block
 * (dy[q]); per 256-block (TQ1_0, TQ2_0) the sum over its two 128-halves, then one fmaf with the second half's
 * row scales (dy[0]: Q8_K's d); per 128-block (PQ2_0) the block's sum, then one fmaf. */
static inline __attribute__((always_inline)) void ciot_slice_block_with(const ciot_slice_avx2 *sl, int i,
                                                                           const uint8_t *const *xb, const float *const *dy,
                                                                           ciot_slice_state *const *st, int nc,
                                                                           const int order, ciot_slice_dot_fn *dot) {
    for (int q = 0; q < 4; q++) {
        const uint8_t *xq[2];
        for (int c = 0; c < nc; c++) xq[c] = xb[c] + 32 * q;
        __m256i isum[2][4];
        dot(sl, q, xq, nc, isum);
        for (int c = 0; c < nc; c++) {
            if (order) {
                for (int g = 0; g < 4; g++) { /* |sum| <= 256 * 2 * 128: exact */
                    const __m256i prev = (order == CIOT_DOT_PER256 && (i & 1)) || q ? _mm256_castps_si256((*st[c])[1][g])
                                                                                 : _mm256_setzero_si256();
                    (*st[c])[1][g] = _mm256_castsi256_ps(_mm256_add_epi32(prev, isum[c][g]));
                }
            } else {
                const __m256 d = _mm256_set1_ps(dy[c][q]);
                for (int g = 0; g < 4; g++)
                    (*st[c])[q][g] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[c][g]), _mm256_mul_ps(sl->dw[g], d), (*st[c])[q][g]);
            }
        }
    }
    if (order == CIOT_DOT_PER128 || (order && (i & 1)))
        for (int c = 0; c < nc; c++) {
            const __m256 d = _mm256_set1_ps(dy[c][0]);
            for (int g = 0; g < 4; g++)
                (*st[c])[0][g] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_castps_si256((*st[c])[1][g])),
                                                 _mm256_mul_ps(sl->dw[g], d), (*st[c])[0][g]);
        }
}

/* The AVX2 block: vpmaddubsw (ciot_slice_dot_avx2). */
static inline __attribute__((always_inline)) void ciot_slice_block_avx2(const ciot_slice_avx2 *sl, int i,
                                                                           const uint8_t *const *xb, const float *const *dy,
                                                                           ciot_slice_state *const *st, int nc,
                                                                           const int order) {
    ciot_slice_block_with(sl, i, xb, dy, st, nc, order, ciot_slice_dot_avx2);
}

/* What a gemm on decoded slices does with one block of a slice for nc activation rows (their biased
 * activations xb, scales dy and states st): ciot_slice_block_avx2 or an other ISA's. */
typedef void ciot_slice_block_fn(const ciot_slice_avx2 *sl, int i, const uint8_t *const *xb,
                                    const float *const *dy, ciot_slice_state *const *st, int nc, int order);

/* block() on rows c .. c + n - 1 of a pass (n at most 8, a constant where it is inlined): their biased
 * activations, scales and states of slice v. The loops on slices (TL16's, T2P's) call it once per row group. */
static inline __attribute__((always_inline)) void ciot_slice_rows(ciot_slice_block_fn *block,
                                                                     const ciot_slice_avx2 *sl, int i,
                                                                     uint8_t (*xb)[128], float (*dy)[4],
                                                                     ciot_slice_state (*st)[8], int v, int c,
                                                                     const int n, const int order) {
    const uint8_t *xn[8];
    const float *dn[8];
    ciot_slice_state *sn[8];
    for (int j = 0; j < n; j++) xn[j] = xb[c + j], dn[j] = dy[c + j], sn[j] = &st[c + j][v];
    block(sl, i, xn, dn, sn, n, order);
}

/* A lookup-table layout (256-row tiles in groups, README.md) as the gemm on decoded slices walks it: its block
 * size and tiles per group, and what decodes slice v (rows 32v .. 32v + 31) of one of its blocks. The slice's
 * prefetch is the eighth of the block at the same place (TL16: the slice's own bytes). */
typedef void ciot_slice_decode_fn(const void *block, int v, ciot_slice_avx2 *out);
typedef struct {
    size_t block_bytes;
    int group;
    ciot_slice_decode_fn *decode;
} ciot_slice_layout;

/* The gemm on decoded slices of layout L: tiles [first, first + count) against every activation row (x_row_bytes
 * each: Q8_0 rows for the per-32 order (PTQ1_0), Q8_K for the others), block after block: its activations
 * biased once for the pass's rows, then its eight slices in turn (each prefetched two blocks ahead, as the
 * policy says), each decoded once for those rows, which block() takes rows at a time (each weight vector loaded
 * once for them; the rows left over in one call), in the float order `order`. L, order, rows (at most 8) and
 * block are constants where it is inlined. Slice after slice over all the tile's blocks (the state of one
 * slice, 32 KiB, in L1) biased the activations eight times a block and ran slower (results/kernel-bounds.md,
 * "TL16"). */
static inline __attribute__((always_inline)) void ciot_slices_gemm_loop(const ciot_mm *mm, int first, int count,
                                                                        const ciot_slice_layout L, size_t x_row_bytes,
                                                                        const int order, const int rows,
                                                                        ciot_slice_block_fn *block) {
    const int nb = mm->K / 128, tiles = mm->rows / CIOT_LUT_TILE;
    _Alignas(64) ciot_slice_avx2 sl;
    _Alignas(64) ciot_slice_state st[CIOT_SLICES_COLS][8];
    _Alignas(64) uint8_t xb[CIOT_SLICES_COLS][128];
    float dy[CIOT_SLICES_COLS][4];
    for (int t = first; t < first + count; t++) {
        const int g0 = t - t % L.group, gt = tiles - g0 < L.group ? tiles - g0 : L.group;
        const size_t ahead = mm->prefetch ? 2 * (size_t)gt * L.block_bytes : 0; /* this slice, two blocks on */
        for (int c0 = 0; c0 < mm->batch; c0 += CIOT_SLICES_COLS) {
            const int nc = mm->batch - c0 < CIOT_SLICES_COLS ? mm->batch - c0 : CIOT_SLICES_COLS;
            memset(st, 0, (size_t)nc * sizeof st[0]);
            for (int i = 0; i < nb; i++) {
                const char *b = (const char *)mm->w + L.block_bytes * ciot_lut_block_index(t, i, tiles, nb, L.group);
                ciot_dot_bias_rows_avx2(mm, x_row_bytes, c0, nc, i, order != CIOT_DOT_PER32, xb, dy);
                for (int v = 0; v < 8; v++) {
                    ciot_prefetch(b + v * (L.block_bytes / 8), L.block_bytes / 8, i + 2 < nb ? ahead : 0);
                    L.decode(b, v, &sl);
#define CIOT_SLICES_CALL(n) ciot_slice_rows(block, &sl, i, xb, dy, st, v, c, (n), order)
                    CIOT_DOT_ROW_GROUPS(nc, rows, c, CIOT_SLICES_CALL);
#undef CIOT_SLICES_CALL
                }
            }
            for (int c = 0; c < nc; c++)
                for (int v = 0; v < 8; v++) {
                    __m256 a[4];
                    for (int g = 0; g < 4; g++)
                        a[g] = order != CIOT_DOT_PER32 ? st[c][v][0][g]
                                                       : _mm256_add_ps(_mm256_add_ps(st[c][v][0][g], st[c][v][1][g]),
                                                                       _mm256_add_ps(st[c][v][2][g], st[c][v][3][g]));
                    ciot_slice_store_avx2(a, mm->y + (size_t)(c0 + c) * mm->ldy + (size_t)CIOT_LUT_TILE * t + 32 * v);
                }
        }
    }
}

#endif
