/* T2P's slices (t2p_slices_avx2.h) with AVX-512 VNNI (included only by *_avx512vnni.c), for the T2P gemms of
 * PQ2_0 and TQ2_0 from a few activation rows: decoded with zmm permutes, multiplied by vpdpbusd
 * (ciot_slice_block_avx512vnni): 64 products an instruction and no horizontal sums, where the 4 x 4 tile of
 * t2p_dot_avx512vnni.h spends a shuffle or a blend per vpdpbusd and folds its lanes every block. */
#ifndef CIOT_X86_T2P_SLICES_AVX512VNNI_H
#define CIOT_X86_T2P_SLICES_AVX512VNNI_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "formats.h"
#include "t2p_slices_avx2.h"
#include "tl16_dot_avx512vnni.h"

/* The T2P VNNI gemms take the slices from this batch on, the 4 x 4 tiles below it: at 5 to 7 rows the tiles
 * pad to 8, and the slices are faster from there (results/kernel-bounds.md, "Gemm families"). */
enum { CIOT_T2P_SLICES_MIN_BATCH_AVX512 = 5 };

/* A T2P slice (t2p_slices_avx2.h) in slices_gemm_loop_avx2.h's lane order: zmm half h of w[q][s] holds tiles 2h, 2h +
 * 4, 2h + 1, 2h + 5 (rows 8h .. 8h + 3, 8h + 16 .. 8h + 19 and the next four of each), each row's weights 32q +
 * 4s .. 32q + 4s + 3 in one dword. In a T2P block those are slot s >> 1 of dword 2 (r & 1) + (s & 1) of word q
 * of pair r >> 1. */
static inline void ciot_t2p_decode_slice_avx512vnni(const ciot_t2p_slice_src *src, ciot_slice_avx2 *out) {
    /* per tile: its 32 dwords as 128-bit lanes (q, e = s & 1) of four rows, q = 0, 1 in p[T][0], 2, 3 in p[T][1] */
    const __m512i lo = _mm512_setr_epi32(0, 2, 16, 18, 1, 3, 17, 19, 4, 6, 20, 22, 5, 7, 21, 23);
    const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
    __m512i p[CIOT_T2P_SLICE_TILES][2];
    for (int T = 0; T < CIOT_T2P_SLICE_TILES; T++) {
        const __m512i A = _mm512_loadu_si512(src->qs[T]), B = _mm512_loadu_si512(src->qs[T] + 64);
        p[T][0] = _mm512_permutex2var_epi32(A, lo, B), p[T][1] = _mm512_permutex2var_epi32(A, hi, B);
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
    ciot_t2p_slice_scales(src, out);
}

/* The VNNI gemms' loop: four activation rows per weight load. */
static inline __attribute__((always_inline)) void ciot_t2p_slices_gemm_avx512vnni(const ciot_mm *mm, int first, int count,
                                                                                  const int mode) {
    ciot_t2p_slices_gemm_loop(mm, first, count, mode, CIOT_TL16_DOT_ROWS_AVX512, ciot_t2p_decode_slice_avx512vnni,
                              ciot_slice_block_avx512vnni);
}

#endif
