/* AVX-512 steps of the lookup-table kernels (TL2, TL3), around which lut_loop.h runs the blocks: the row
 * order the byte-to-int32 step leaves (ciot_lut_row_avx512vnni) and the fp16 scale permutation that matches it,
 * the 16-bit sums and float step of 64 rows, and the store back in row order. Included by *_avx512vbmi.c and
 * by tl2_avx512vnni.c: AVX-512 VNNI is the lowest ISA whose flags compile it (no VBMI instruction here). */
#ifndef CIOT_X86_LUT_AVX512VNNI_H
#define CIOT_X86_LUT_AVX512VNNI_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include "formats.h"
#include "lut_loop.h"

/* Row of lane d of int32 vector v (v, d = 0..3, 0..15) after ciot_lut_widen_avx512vnni: unpacklo / unpackhi of the
 * byte sums give rows 16L + j / 16L + 8 + j in 16-bit lane 8L + j, and the two vpdpbusd weight patterns
 * take the even / odd 16-bit lane of each 32-bit lane. */
static inline int ciot_lut_row_avx512vnni(int v, int d) { return 16 * (d >> 2) + 8 * (v >> 1) + 2 * (d & 3) + (v & 1); }
#define CIOT_LUT_ROW01_AVX512VNNI(w) (16 * (((w) & 15) >> 2) + 2 * ((w) & 3) + ((w) >> 4))
#define CIOT_LUT_ROW23_AVX512VNNI(w) (CIOT_LUT_ROW01_AVX512VNNI(w) + 8)
static const uint16_t ciot_lut_rows01_avx512vnni[32] = {CIOT_L32(CIOT_LUT_ROW01_AVX512VNNI, 0)}, ciot_lut_rows23_avx512vnni[32] = {CIOT_L32(CIOT_LUT_ROW23_AVX512VNNI, 0)};

/* fp32 row scales of a 64-row tile block in a kernel's lane order: s[v] lane d = fp32(d[row of (v, d)]), the
 * rows of vectors 0, 1 listed in idx01 and of 2, 3 in idx23 (two vpermt2w over the 64 fp16 scales). */
static inline void ciot_lut_row_scales_in_avx512vnni(const uint16_t *d, const uint16_t idx01[32], const uint16_t idx23[32], __m512 s[4]) {
    const __m512i d0 = _mm512_loadu_si512(d), d1 = _mm512_loadu_si512(d + 32); /* rows 0..31, 32..63 */
    const __m512i p01 = _mm512_permutex2var_epi16(d0, _mm512_loadu_si512(idx01), d1);
    const __m512i p23 = _mm512_permutex2var_epi16(d0, _mm512_loadu_si512(idx23), d1);
    s[0] = _mm512_cvtph_ps(_mm512_castsi512_si256(p01)), s[1] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(p01, 1));
    s[2] = _mm512_cvtph_ps(_mm512_castsi512_si256(p23)), s[3] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(p23, 1));
}

/* The same in ciot_lut_row_avx512vnni order. */
static inline void ciot_lut_row_scales_avx512vnni(const uint16_t *d, __m512 s[4]) {
    ciot_lut_row_scales_in_avx512vnni(d, ciot_lut_rows01_avx512vnni, ciot_lut_rows23_avx512vnni, s);
}

/* acc[v] += lo + 32 * hi per row, lo and hi unsigned byte sums of 64 rows (row r at byte r). */
static inline void ciot_lut_widen_avx512vnni(__m512i lo, __m512i hi, __m512i acc[4]) {
    const __m512i w0 = _mm512_set1_epi32(1 | 32 << 8), w1 = _mm512_set1_epi32(1 << 16 | 32 << 24);
    const __m512i a = _mm512_unpacklo_epi8(lo, hi), b = _mm512_unpackhi_epi8(lo, hi);
    acc[0] = _mm512_dpbusd_epi32(acc[0], a, w0), acc[1] = _mm512_dpbusd_epi32(acc[1], a, w1);
    acc[2] = _mm512_dpbusd_epi32(acc[2], b, w0), acc[3] = _mm512_dpbusd_epi32(acc[3], b, w1);
}

/* s[0], s[1] += lo + 32 * hi of 64 rows in 16-bit lanes, modulo 2^16, lo and hi unsigned byte sums (row r at
 * byte r): rows 16L + j in lane 8L + j of s[0], rows 16L + 8 + j in lane 8L + j of s[1]. int16 safe per
 * step (vpmaddubsw saturates): lo + 32 hi <= 255 * 33. */
static inline void ciot_lut_sum16_avx512vnni(__m512i lo, __m512i hi, __m512i s[2]) {
    const __m512i w132 = _mm512_set1_epi16(1 | 32 << 8);
    s[0] = _mm512_add_epi16(s[0], _mm512_maddubs_epi16(_mm512_unpacklo_epi8(lo, hi), w132));
    s[1] = _mm512_add_epi16(s[1], _mm512_maddubs_epi16(_mm512_unpackhi_epi8(lo, hi), w132));
}

/* int32 isum[u] (rows ciot_lut_row_avx512vnni(u, d)) of 16-bit sums s[2] (ciot_lut_sum16_avx512vnni's order) that hold isum + 32768
 * modulo 2^16, for an isum within -32768..32767. */
static inline void ciot_lut_isum16_avx512vnni(const __m512i s[2], __m512i isum[4]) {
    const __m512i even = _mm512_set1_epi32(1), odd = _mm512_set1_epi32(1 << 16), flip = _mm512_set1_epi16(-32768);
    const __m512i u0 = _mm512_xor_si512(s[0], flip), u1 = _mm512_xor_si512(s[1], flip); /* isum, int16 */
    isum[0] = _mm512_madd_epi16(u0, even), isum[1] = _mm512_madd_epi16(u0, odd);
    isum[2] = _mm512_madd_epi16(u1, even), isum[3] = _mm512_madd_epi16(u1, odd);
}

/* The float step of 64 rows from their 16-bit sums s[2] (ciot_lut_sum16_avx512vnni, holding isum + 32768):
 * acc[u] = fmaf((float) isum, fp32(d[row]) * dy, acc[u]) with rows in ciot_lut_row_avx512vnni(u, lane) order, d the
 * 64 rows' fp16 scales. */
static inline void ciot_lut_fma16_avx512vnni(const uint16_t *d, const __m512i s[2], __m512 dy, __m512 acc[4]) {
    __m512 dws[4];
    __m512i isum[4];
    ciot_lut_row_scales_avx512vnni(d, dws);
    ciot_lut_isum16_avx512vnni(s, isum);
    for (int u = 0; u < 4; u++) acc[u] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[u]), _mm512_mul_ps(dws[u], dy), acc[u]);
}

/* Writes 64 results s[v] to y[0..63], lane d of s[v] being row row(v, d). */
static inline void ciot_lut_store_in_avx512vnni(const __m512 s[4], float *y, int (*row)(int v, int d)) {
    float out[4][16];
    for (int v = 0; v < 4; v++) _mm512_storeu_ps(out[v], s[v]);
    for (int v = 0; v < 4; v++)
        for (int d = 0; d < 16; d++) y[row(v, d)] = out[v][d];
}

/* The same in ciot_lut_row_avx512vnni order. */
static inline void ciot_lut_store_avx512vnni(const __m512 s[4], float *y) { ciot_lut_store_in_avx512vnni(s, y, ciot_lut_row_avx512vnni); }

#endif
