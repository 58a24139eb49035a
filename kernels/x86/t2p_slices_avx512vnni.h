/* T2P as multiply-add operands with AVX-512 VNNI (included only by *_avx512vnni.c), shared by the T2P gemms of
 * PQ2_0 and TQ2_0 at large batches: eight 4-row tiles' block i (32 rows) decoded once into the weights u - 1
 * (-1..2 as int8) in the slices of tl16_dot_avx2.h, which every activation row of the batch then multiplies by
 * vpdpbusd (ciot_tl16_dot_block_avx512vnni): 64 products an instruction and no horizontal sums, where the 4 x 4
 * tile of t2p_dot_avx512vnni.h spends a shuffle or a blend per vpdpbusd and folds its lanes every block. */
#ifndef CIOT_X86_T2P_SLICES_AVX512VNNI_H
#define CIOT_X86_T2P_SLICES_AVX512VNNI_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "dot_rows_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "tl16_dot_avx512vnni.h"

enum { CIOT_T2P_SLICE_TILES = 8 }; /* 4-row tiles per 32-row slice */

/* The T2P VNNI gemms take the slices from this batch on, the 4 x 4 tiles below it: at batch 4 the tiles ran
 * 1.06-1.17x the slices in cache on a Zen 5, at 5 to 7 (which the tiles pad to 8) the slices 1.14-1.7x, and
 * from DRAM at 8, 16 and 64 rows 1.2-1.3x, 1.5x and 1.7-1.9x (results/x86-kernels-notes.md). */
enum { CIOT_T2P_SLICES_MIN_BATCH = 5 };

/* The slice of tiles b[0..n - 1] (block i of each; rows 4T + r), tiles n .. 7 as rows of weight 0 and scale 0,
 * in tl16_dot_avx2.h's lane order: zmm half h of w[q][s] holds tiles 2h, 2h + 4, 2h + 1, 2h + 5 (rows 8h ..
 * 8h + 3, 8h + 16 .. 8h + 19 and the next four of each), each row's weights 32q + 4s .. 32q + 4s + 3 in one
 * dword. In a T2P block those are slot s >> 1 of dword 2 (r & 1) + (s & 1) of word q of pair r >> 1. */
static inline void ciot_t2p_decode_slice_avx512vnni(const block_t2p *const *b, int n, ciot_tl16_slice_avx2 *out) {
    /* per tile: its 32 dwords as 128-bit lanes (q, e = s & 1) of four rows, q = 0, 1 in p[T][0], 2, 3 in p[T][1] */
    const __m512i lo = _mm512_setr_epi32(0, 2, 16, 18, 1, 3, 17, 19, 4, 6, 20, 22, 5, 7, 21, 23);
    const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
    __m512i p[CIOT_T2P_SLICE_TILES][2];
    uint16_t d[CIOT_T2P_SLICE_TILES][4];
    for (int T = 0; T < CIOT_T2P_SLICE_TILES; T++) {
        if (T < n) {
            const __m512i A = _mm512_loadu_si512(b[T]->qs), B = _mm512_loadu_si512(b[T]->qs + 64);
            p[T][0] = _mm512_permutex2var_epi32(A, lo, B), p[T][1] = _mm512_permutex2var_epi32(A, hi, B);
            memcpy(d[T], b[T]->d, sizeof d[T]);
        } else {
            p[T][0] = p[T][1] = _mm512_set1_epi8(0x55); /* code 1 in every slot: weight 0 */
            memset(d[T], 0, sizeof d[T]);
        }
    }
    const __m512i m3 = _mm512_set1_epi8(3), one = _mm512_set1_epi8(1);
    for (int q = 0; q < 4; q++) {
        for (int h = 0; h < 2; h++) {
            const __m512i P0 = p[2 * h][q >> 1], P1 = p[2 * h + 4][q >> 1], P2 = p[2 * h + 1][q >> 1],
                          P3 = p[2 * h + 5][q >> 1];
            /* lanes (q & 1, e) of the four tiles: x = [P0 e0, P0 e1, P1 e0, P1 e1], y the same of P2, P3 */
            const __m512i x = (q & 1) ? _mm512_shuffle_i32x4(P0, P1, 0xee) : _mm512_shuffle_i32x4(P0, P1, 0x44);
            const __m512i y = (q & 1) ? _mm512_shuffle_i32x4(P2, P3, 0xee) : _mm512_shuffle_i32x4(P2, P3, 0x44);
            /* z[e] = [P0 e | P1 e | P2 e | P3 e]: the tiles in the half's lane order */
            const __m512i z[2] = {_mm512_shuffle_i32x4(x, y, 0x88), _mm512_shuffle_i32x4(x, y, 0xdd)};
            __m512i sum = _mm512_setzero_si512(); /* per byte within -8..16 */
            for (int s = 0; s < 8; s++) {
                const __m512i w = _mm512_sub_epi8(_mm512_and_si512(_mm512_srli_epi16(z[s & 1], 2 * (s >> 1)), m3), one);
                _mm512_store_si512(&out->w[q][s][2 * h], w);
                sum = _mm512_add_epi8(sum, w);
            }
            /* 128 x each row's weight sum over the sub-block (the four bytes of a dword), in the lanes of w */
            _mm512_store_si512(&out->corr[q][2 * h], _mm512_slli_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), one, sum), 7));
        }
    }
    /* the row scales in the same lanes: group g is tiles g, g + 4 */
    for (int g = 0; g < 4; g++) {
        uint16_t h8[8];
        memcpy(h8, d[g], 8), memcpy(h8 + 4, d[g + 4], 8);
        out->dw[g] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h8));
    }
}

/* Block i (128 weights) of activation rows c0 .. c0 + nc - 1 of Q8_Kx4 groups, biased by 128 into xb[c], their
 * scales into dy[c][0]: row c is row c & 3 of group c >> 2, whose qs[32 ch + 8 (c & 3) + e] is element 8 ch + e. */
static inline void ciot_t2p_bias_rows_q8_kx4(const ciot_mm *mm, int c0, int nc, int i, uint8_t (*xb)[128], float (*dy)[4]) {
    const int nbk = mm->K / CIOT_QK_K;
    for (int c = 0; c < nc; c++) {
        const block_q8_Kx4 *g = (const block_q8_Kx4 *)mm->x + (size_t)((c0 + c) >> 2) * nbk + (i >> 1);
        const int r = (c0 + c) & 3;
        for (int ch = 0; ch < 16; ch++) {
            uint64_t v;
            memcpy(&v, g->qs + 32 * (16 * (i & 1) + ch) + 8 * r, 8);
            v ^= 0x8080808080808080ull;
            memcpy(xb[c] + 8 * ch, &v, 8);
        }
        dy[c][0] = g->d[r];
    }
}

/* The gemm on decoded slices: tiles [first, first + count) against every activation row, 64 tiles (256 rows,
 * eight slices) a pass: block after block, its activations biased once for the pass's rows, then its slices in
 * turn (each tile's block prefetched two blocks ahead, as the policy says), each decoded once for those rows,
 * which ciot_tl16_dot_block_avx512vnni takes four at a time. mode: CIOT_DOT_PER128 (PQ2_0) or CIOT_DOT_PER256
 * (TQ2_0, blocks 2q and 2q + 1 carrying the same scales). */
static inline __attribute__((always_inline)) void ciot_t2p_slices_gemm_avx512vnni(const ciot_mm *mm, int first, int count,
                                                                                  const int mode) {
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
                    const int n = nt - CIOT_T2P_SLICE_TILES * v < CIOT_T2P_SLICE_TILES ? nt - CIOT_T2P_SLICE_TILES * v
                                                                                      : CIOT_T2P_SLICE_TILES;
                    const block_t2p *b[CIOT_T2P_SLICE_TILES];
                    for (int T = 0; T < n; T++) {
                        b[T] = W + (size_t)(t0 + CIOT_T2P_SLICE_TILES * v + T) * nb + i;
                        ciot_prefetch(b[T], sizeof *b[T], i + 2 < nb ? ahead : 0);
                    }
                    ciot_t2p_decode_slice_avx512vnni(b, n, &sl);
#define CIOT_T2P_SLICES_CALL(k)                                                                                     \
    do {                                                                                                           \
        const uint8_t *xn[8];                                                                                      \
        const float *dn[8];                                                                                        \
        ciot_tl16_dot_state *sn[8];                                                                                \
        for (int j = 0; j < (k); j++) xn[j] = xb[c + j], dn[j] = dy[c + j], sn[j] = &st[c + j][v];                 \
        ciot_tl16_dot_block_avx512vnni(&sl, i, xn, dn, sn, (k), mode);                                             \
    } while (0)
                    CIOT_DOT_ROW_GROUPS(nc, CIOT_TL16_DOT_ROWS_AVX512, c, CIOT_T2P_SLICES_CALL);
#undef CIOT_T2P_SLICES_CALL
                }
            }
            for (int c = 0; c < nc; c++)
                for (int v = 0; v < nv; v++) {
                    const int tiles = nt - CIOT_T2P_SLICE_TILES * v < CIOT_T2P_SLICE_TILES ? nt - CIOT_T2P_SLICE_TILES * v
                                                                                          : CIOT_T2P_SLICE_TILES;
                    float y32[32];
                    ciot_tl16_dot_store_avx2(st[c][v][0], y32);
                    memcpy(mm->y + (size_t)(c0 + c) * mm->ldy + 4 * ((size_t)t0 + CIOT_T2P_SLICE_TILES * v), y32,
                           sizeof(float) * 4 * tiles);
                }
        }
    }
}

#endif
