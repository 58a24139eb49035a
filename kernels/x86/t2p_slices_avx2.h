/* T2P as multiply-add operands (included by *_avx2.c and t2p_slices_avx512vnni.h), shared by the T2P gemms of
 * PQ2_0 and TQ2_0 at larger batches: eight 4-row tiles' block i (32 rows) decoded once into the weights u - 1
 * (-1..2 as int8) in the slices of tl16_dot_avx2.h, which every activation row of the batch then multiplies
 * (vpmaddubsw: ciot_tl16_dot_block_avx2; vpdpbusd: ciot_tl16_dot_block_avx512vnni). A tile decodes its codes
 * for each group of 4 activation rows; a slice is decoded once for the pass's 64. */
#ifndef CIOT_X86_T2P_SLICES_AVX2_H
#define CIOT_X86_T2P_SLICES_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "dot_rows_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "tl16_dot_avx2.h"

enum { CIOT_T2P_SLICE_TILES = 8 }; /* 4-row tiles per 32-row slice */

/* The slice of tiles b[0..n - 1] (block i of each; rows 4T + r), tiles n .. 7 as rows of weight 0 and scale 0,
 * in tl16_dot_avx2.h's lane order: w[q][s][g] holds tiles g and g + 4 (rows 4g .. 4g + 3, 16 + 4g .. 16 + 4g +
 * 3), each row's weights 32q + 4s .. 32q + 4s + 3 in one dword. In a T2P block those are slot s >> 1 of dword
 * 2 (r & 1) + (s & 1) of word q of pair r >> 1 (formats.md). */
static inline void ciot_t2p_decode_slice_avx2(const block_t2p *const *b, int n, ciot_tl16_slice_avx2 *out) {
    uint8_t none[128]; /* code 1 in every slot: weight 0 */
    static const uint16_t no_d[4];
    if (n < CIOT_T2P_SLICE_TILES) memset(none, 0x55, sizeof none);
    const uint8_t *qs[CIOT_T2P_SLICE_TILES];
    const uint16_t *d[CIOT_T2P_SLICE_TILES];
    for (int T = 0; T < CIOT_T2P_SLICE_TILES; T++) qs[T] = T < n ? b[T]->qs : none, d[T] = T < n ? b[T]->d : no_d;
    const __m256i m3 = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
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
            /* 128 x each row's weight sum over the sub-block (the four bytes of a dword) */
            out->corr[q][g] = _mm256_slli_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(one, sum), ones16), 7);
        }
    for (int g = 0; g < 4; g++) { /* the row scales in the same lanes */
        uint16_t h8[8];
        memcpy(h8, d[g], 8), memcpy(h8 + 4, d[g + 4], 8);
        out->dw[g] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h8));
    }
}

/* Block i (128 weights) of activation rows c0 .. c0 + nc - 1 of Q8_Kx4 groups (c0 a multiple of 4), biased by
 * 128 into xb[c], their scales into dy[c][0]: row r of a group is qs[32 ch + 8 r + e], element 8 ch + e. Four
 * chunks of the four rows are transposed as a 4 x 4 of 8-byte pieces (a group's padding rows, past the
 * batch, land in xb rows no block reads). */
_Static_assert(CIOT_TL16_DOT_COLS % 4 == 0, "a pass starts at a Q8_Kx4 group");
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

typedef void ciot_t2p_decode_fn(const block_t2p *const *b, int n, ciot_tl16_slice_avx2 *out);

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
                                                                            ciot_tl16_dot_block_fn *block) {
    enum { PASS_TILES = 8 * CIOT_T2P_SLICE_TILES };
    const int nb = mm->K / 128;
    _Alignas(64) ciot_tl16_slice_avx2 sl;
    _Alignas(64) ciot_tl16_dot_state st[CIOT_TL16_DOT_COLS][8];
    _Alignas(64) uint8_t xb[CIOT_TL16_DOT_COLS][128];
    float dy[CIOT_TL16_DOT_COLS][4];
    const block_t2p *W = mm->w;
    const size_t ahead = mm->prefetch ? 2 * sizeof(block_t2p) : 0;
    for (int t0 = first; t0 < first + count; t0 += PASS_TILES) {
        const int nt = first + count - t0 < PASS_TILES ? first + count - t0 : PASS_TILES;
        const int nv = (nt + CIOT_T2P_SLICE_TILES - 1) / CIOT_T2P_SLICE_TILES;
        for (int c0 = 0; c0 < mm->batch; c0 += CIOT_TL16_DOT_COLS) {
            const int nc = mm->batch - c0 < CIOT_TL16_DOT_COLS ? mm->batch - c0 : CIOT_TL16_DOT_COLS;
            memset(st, 0, (size_t)nc * sizeof st[0]);
            for (int i = 0; i < nb; i++) {
                ciot_t2p_bias_rows_q8_kx4(mm, c0, nc, i, xb, dy);
                for (int v = 0; v < nv; v++) {
                    const int n = ciot_t2p_slice_tiles(nt, v);
                    const block_t2p *b[CIOT_T2P_SLICE_TILES];
                    for (int T = 0; T < n; T++) {
                        b[T] = W + (size_t)(t0 + CIOT_T2P_SLICE_TILES * v + T) * nb + i;
                        ciot_prefetch(b[T], sizeof *b[T], i + 2 < nb ? ahead : 0);
                    }
                    decode(b, n, &sl);
#define CIOT_T2P_SLICES_CALL(k) ciot_tl16_dot_rows(block, &sl, i, xb, dy, st, v, c, (k), mode)
                    CIOT_DOT_ROW_GROUPS(nc, rows, c, CIOT_T2P_SLICES_CALL);
#undef CIOT_T2P_SLICES_CALL
                }
            }
            for (int c = 0; c < nc; c++)
                for (int v = 0; v < nv; v++) {
                    float y32[32];
                    ciot_tl16_dot_store_avx2(st[c][v][0], y32);
                    memcpy(mm->y + (size_t)(c0 + c) * mm->ldy + 4 * ((size_t)t0 + CIOT_T2P_SLICE_TILES * v), y32,
                           sizeof(float) * 4 * ciot_t2p_slice_tiles(nt, v));
                }
        }
    }
}

/* The AVX2 T2P gemms take the slices from this batch on, the 8 x 4 tiles below it: from DRAM on a Zen 5 (AVX2
 * code) the slices ran 0.69-0.90x the tiles at batch 8, 0.86-1.02x at 16, 1.03-1.15x at 32 and 1.08-1.20x at 64
 * (results/x86-kernels-notes.md). */
enum { CIOT_T2P_SLICES_MIN_BATCH_AVX2 = 32 };

/* AVX2's: two activation rows per vpmaddubsw step, as the TL16 slices. */
static inline __attribute__((always_inline)) void ciot_t2p_slices_gemm_avx2(const ciot_mm *mm, int first, int count,
                                                                            const int mode) {
    ciot_t2p_slices_gemm_loop(mm, first, count, mode, 2, ciot_t2p_decode_slice_avx2, ciot_tl16_dot_block_avx2);
}

#endif
