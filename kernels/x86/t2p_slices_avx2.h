/* T2P and T2X4 as multiply-add operands (included by *_avx2.c and t2p_slices_avx512vnni.h), shared by the T2P
 * gemms of PQ2_0 and TQ2_0 and the T2X4 gemm at larger batches: eight 4-row tiles' block i (32 rows) decoded
 * once into the weights u - 1 (-1..2 as int8) in the slices of slices_gemm_loop_avx2.h, which every activation
 * row of the batch then multiplies (vpmaddubsw: ciot_slice_block_avx2; vpdpbusd: ciot_slice_block_avx512vnni).
 * A tile decodes its codes for each group of 4 activation rows; a slice is decoded once for the pass's 64. */
#ifndef CIOT_X86_T2P_SLICES_AVX2_H
#define CIOT_X86_T2P_SLICES_AVX2_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "dot_rows_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "slices_gemm_loop_avx2.h"

enum { CIOT_T2P_SLICE_TILES = 8 }; /* 4-row tiles per 32-row slice */

/* A slice's eight tiles as its decoder reads them: block i of each (rows 4T + r), the tiles past the matrix's
 * rows as rows of weight 0 (code 1) and scale 0. T2P and T2X4 blocks alike hold d[4], then qs[128]. */
typedef struct {
    const uint8_t *qs[CIOT_T2P_SLICE_TILES];
    const uint16_t *d[CIOT_T2P_SLICE_TILES];
} ciot_t2p_slice_src;
_Static_assert(sizeof(block_t2x4) == sizeof(block_t2p) && offsetof(block_t2x4, qs) == offsetof(block_t2p, qs) &&
                   offsetof(block_t2x4, d) == offsetof(block_t2p, d), "one block walk serves T2P and T2X4");

/* The row scales in the slice's lanes: group g is tiles g and g + 4. */
static inline void ciot_t2p_slice_scales(const ciot_t2p_slice_src *src, ciot_slice_avx2 *out) {
    for (int g = 0; g < 4; g++) {
        uint16_t h8[8];
        memcpy(h8, src->d[g], 8), memcpy(h8 + 4, src->d[g + 4], 8);
        out->dw[g] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h8));
    }
}

/* A T2P slice in slices_gemm_loop_avx2.h's lane order: w[q][s][g] holds tiles g and g + 4 (rows 4g .. 4g + 3, 16 + 4g
 * .. 16 + 4g + 3), each row's weights 32q + 4s .. 32q + 4s + 3 in one dword. In a T2P block those are slot
 * s >> 1 of dword 2 (r & 1) + (s & 1) of word q of pair r >> 1 (formats.md). */
static inline void ciot_t2p_decode_slice_avx2(const ciot_t2p_slice_src *src, ciot_slice_avx2 *out) {
    const uint8_t *const *qs = src->qs;
    const __m256i m3 = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1);
    const __m256i by_half = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7); /* [r0..r3 of e = 0 | of e = 1] */
    for (int q = 0; q < 4; q++)
        for (int g = 0; g < 4; g++) {
            /* word q of both pairs: [r0e0 r0e1 r1e0 r1e1 | r2e0 r2e1 r3e0 r3e1], tiles g and g + 4 */
            const __m256i x = _mm256_permutevar8x32_epi32(
                _mm256_loadu2_m128i((const __m128i *)(qs[g] + 64 + 16 * q), (const __m128i *)(qs[g] + 16 * q)), by_half);
            const __m256i y = _mm256_permutevar8x32_epi32(
                _mm256_loadu2_m128i((const __m128i *)(qs[g + 4] + 64 + 16 * q), (const __m128i *)(qs[g + 4] + 16 * q)), by_half);
            const __m256i z[2] = {_mm256_permute2x128_si256(x, y, 0x20), _mm256_permute2x128_si256(x, y, 0x31)};
            __m256i sum = _mm256_setzero_si256(); /* per byte within -8..16 */
            for (int s = 0; s < 8; s++) {
                const __m256i w = _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(z[s & 1], 2 * (s >> 1)), m3), one);
                _mm256_store_si256(&out->w[q][s][g], w);
                sum = _mm256_add_epi8(sum, w);
            }
            out->corr[q][g] = ciot_slice_corr_avx2(sum);
        }
    ciot_t2p_slice_scales(src, out);
}

/* The same slice from T2X4 blocks: byte j of row r's 16-byte word of group G holds weights 64G + 16s + j in
 * slot s (formats.md), so dword t of that word, slot s, is the row's weights 32q + 4s' .. + 3 with q = 2G +
 * (s >> 1), s' = 4 (s & 1) + t. A 4 x 4 dword transpose per group gathers dword t of the four rows. */
static inline void ciot_t2x4_decode_slice_avx2(const ciot_t2p_slice_src *src, ciot_slice_avx2 *out) {
    const __m256i m3 = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1);
    for (int g = 0; g < 4; g++)
        for (int G = 0; G < 2; G++) {
            __m256i x[4]; /* row r's word of group G: [tile g | tile g + 4] */
            for (int r = 0; r < 4; r++)
                x[r] = _mm256_loadu2_m128i((const __m128i *)(src->qs[g + 4] + 64 * G + 16 * r),
                                           (const __m128i *)(src->qs[g] + 64 * G + 16 * r));
            const __m256i lo01 = _mm256_unpacklo_epi32(x[0], x[1]), hi01 = _mm256_unpackhi_epi32(x[0], x[1]);
            const __m256i lo23 = _mm256_unpacklo_epi32(x[2], x[3]), hi23 = _mm256_unpackhi_epi32(x[2], x[3]);
            /* z[t]: dword t of rows 0..3 of each tile */
            const __m256i z[4] = {_mm256_unpacklo_epi64(lo01, lo23), _mm256_unpackhi_epi64(lo01, lo23),
                                  _mm256_unpacklo_epi64(hi01, hi23), _mm256_unpackhi_epi64(hi01, hi23)};
            __m256i sum[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()}; /* sub-blocks 2G, 2G + 1 */
            for (int s = 0; s < 4; s++)
                for (int t = 0; t < 4; t++) {
                    const __m256i w = _mm256_sub_epi8(_mm256_and_si256(_mm256_srli_epi16(z[t], 2 * s), m3), one);
                    _mm256_store_si256(&out->w[2 * G + (s >> 1)][4 * (s & 1) + t][g], w);
                    sum[s >> 1] = _mm256_add_epi8(sum[s >> 1], w);
                }
            out->corr[2 * G][g] = ciot_slice_corr_avx2(sum[0]);
            out->corr[2 * G + 1][g] = ciot_slice_corr_avx2(sum[1]);
        }
    ciot_t2p_slice_scales(src, out);
}

/* Block i (128 weights) of activation rows c0 .. c0 + nc - 1 of Q8_Kx4 groups (c0 a multiple of 4), biased by
 * 128 into xb[c], their scales into dy[c][0]: row r of a group is qs[32 ch + 8 r + e], element 8 ch + e. Four
 * chunks of the four rows are transposed as a 4 x 4 of 8-byte pieces (a group's padding rows, past the
 * batch, land in xb rows no block reads). */
_Static_assert(CIOT_SLICES_COLS % 4 == 0, "a pass starts at a Q8_Kx4 group");
static inline void ciot_t2p_bias_rows_q8_kx4(const ciot_mm *mm, int c0, int nc, int i, uint8_t (*xb)[128], float (*dy)[4]) {
    const int nbk = mm->K / CIOT_QK_K;
    const __m256i bias = _mm256_set1_epi8((char)0x80);
    for (int c = 0; c < nc; c += 4) {
        const block_q8_Kx4 *g = (const block_q8_Kx4 *)mm->x + (size_t)((c0 + c) >> 2) * nbk + (i >> 1);
        const int8_t *h = g->qs + 512 * (i & 1);
        for (int ch = 0; ch < 16; ch += 4) {
            __m256i k[4]; /* chunk ch + n: [row 0 | row 1 | row 2 | row 3], 8 bytes each */
            for (int n = 0; n < 4; n++) k[n] = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(h + 32 * (ch + n))), bias);
            const __m256i r02a = _mm256_unpacklo_epi64(k[0], k[1]), r13a = _mm256_unpackhi_epi64(k[0], k[1]);
            const __m256i r02b = _mm256_unpacklo_epi64(k[2], k[3]), r13b = _mm256_unpackhi_epi64(k[2], k[3]);
            _mm256_storeu_si256((__m256i *)(xb[c] + 8 * ch), _mm256_permute2x128_si256(r02a, r02b, 0x20));
            _mm256_storeu_si256((__m256i *)(xb[c + 1] + 8 * ch), _mm256_permute2x128_si256(r13a, r13b, 0x20));
            _mm256_storeu_si256((__m256i *)(xb[c + 2] + 8 * ch), _mm256_permute2x128_si256(r02a, r02b, 0x31));
            _mm256_storeu_si256((__m256i *)(xb[c + 3] + 8 * ch), _mm256_permute2x128_si256(r13a, r13b, 0x31));
        }
        for (int r = 0; r < 4; r++) dy[c + r][0] = g->d[r];
    }
}

typedef void ciot_t2p_decode_fn(const ciot_t2p_slice_src *src, ciot_slice_avx2 *out);

/* Tiles in slice v of a pass of nt tiles: eight, fewer in the last slice. */
static inline int ciot_t2p_slice_tiles(int nt, int v) {
    return nt - CIOT_T2P_SLICE_TILES * v < CIOT_T2P_SLICE_TILES ? nt - CIOT_T2P_SLICE_TILES * v : CIOT_T2P_SLICE_TILES;
}

/* The gemm on decoded slices: tiles [first, first + count) against every activation row, 64 tiles (256 rows,
 * eight slices) a pass: block after block, its activations biased once for the pass's rows, then its slices in
 * turn (each tile's block prefetched two blocks ahead, as the policy says), each decoded once for those rows,
 * which block() takes rows at a time. mode: CIOT_DOT_PER128 (PQ2_0) or CIOT_DOT_PER256 (TQ2_0, whose blocks
 * 2q and 2q + 1 carry the same scales). rows, decode and block are constants where it is inlined. */
static inline __attribute__((always_inline)) void ciot_t2p_slices_gemm_loop(const ciot_mm *mm, int first, int count,
                                                                            const int mode, const int rows,
                                                                            ciot_t2p_decode_fn *decode,
                                                                            ciot_slice_block_fn *block) {
    enum { PASS_TILES = 8 * CIOT_T2P_SLICE_TILES };
    const int nb = mm->K / 128;
    _Alignas(64) ciot_slice_avx2 sl;
    _Alignas(64) ciot_slice_state st[CIOT_SLICES_COLS][8];
    _Alignas(64) uint8_t xb[CIOT_SLICES_COLS][128];
    float dy[CIOT_SLICES_COLS][4];
    const uint8_t *W = mm->w; /* T2P's or T2X4's blocks */
    const size_t ahead = mm->prefetch ? 2 * sizeof(block_t2p) : 0;
    uint8_t none[128];
    static const uint16_t no_d[4];
    memset(none, 0x55, sizeof none); /* code 1 in every slot: weight 0 */
    for (int t0 = first; t0 < first + count; t0 += PASS_TILES) {
        const int nt = first + count - t0 < PASS_TILES ? first + count - t0 : PASS_TILES;
        const int nv = (nt + CIOT_T2P_SLICE_TILES - 1) / CIOT_T2P_SLICE_TILES;
        for (int c0 = 0; c0 < mm->batch; c0 += CIOT_SLICES_COLS) {
            const int nc = mm->batch - c0 < CIOT_SLICES_COLS ? mm->batch - c0 : CIOT_SLICES_COLS;
            memset(st, 0, (size_t)nc * sizeof st[0]);
            for (int i = 0; i < nb; i++) {
                ciot_t2p_bias_rows_q8_kx4(mm, c0, nc, i, xb, dy);
                for (int v = 0; v < nv; v++) {
                    const int n = ciot_t2p_slice_tiles(nt, v);
                    ciot_t2p_slice_src src;
                    for (int T = 0; T < CIOT_T2P_SLICE_TILES; T++) {
                        const uint8_t *b = W + ((size_t)(t0 + CIOT_T2P_SLICE_TILES * v + T) * nb + i) * sizeof(block_t2p);
                        src.qs[T] = T < n ? b + offsetof(block_t2p, qs) : none;
                        src.d[T] = T < n ? (const uint16_t *)(const void *)(b + offsetof(block_t2p, d)) : no_d;
                        if (T < n) ciot_prefetch(b, sizeof(block_t2p), i + 2 < nb ? ahead : 0);
                    }
                    decode(&src, &sl);
#define CIOT_T2P_SLICES_CALL(k) ciot_slice_rows(block, &sl, i, xb, dy, st, v, c, (k), mode)
                    CIOT_DOT_ROW_GROUPS(nc, rows, c, CIOT_T2P_SLICES_CALL);
#undef CIOT_T2P_SLICES_CALL
                }
            }
            for (int c = 0; c < nc; c++)
                for (int v = 0; v < nv; v++) {
                    float y32[32];
                    ciot_slice_store_avx2(st[c][v][0], y32);
                    memcpy(mm->y + (size_t)(c0 + c) * mm->ldy + 4 * ((size_t)t0 + CIOT_T2P_SLICE_TILES * v), y32,
                           sizeof(float) * 4 * ciot_t2p_slice_tiles(nt, v));
                }
        }
    }
}

/* The AVX2 T2P gemms take the slices from this batch on, the 8 x 4 tiles below it, where the tiles are faster
 * (results/kernel-bounds.md, "Gemm families"). */
enum { CIOT_T2P_SLICES_MIN_BATCH_AVX2 = 32 };

/* AVX2's: two activation rows per vpmaddubsw step, as the TL16 slices. */
static inline __attribute__((always_inline)) void ciot_t2p_slices_gemm_avx2(const ciot_mm *mm, int first, int count,
                                                                            const int mode) {
    ciot_t2p_slices_gemm_loop(mm, first, count, mode, 2, ciot_t2p_decode_slice_avx2, ciot_slice_block_avx2);
}

#endif
