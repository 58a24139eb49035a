#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "ptq1_0_gemv_avx512vnni.c needs -mavx512f -mavx512bw -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vnni.c)"
#endif
/* The gemv: ptq1_0_gemv_avx2 with 32 16-bit lanes per vector, so one vector is exactly one
 * Q8_0 sub-block (32 weights). Same decode: trit n of byte b is mulhi_u16(mullo_16(b, 3^n << 8), 3), with
 * per-lane powers: sub-block 0 = bytes 0..15 at n = 0 | 1, sub-block 1 = n = 2 | 3, sub-block 2 = bytes
 * 0..15 at n = 4 | bytes 16..23 at n = 0, 1, sub-block 3 = bytes 16..23 at n = 2, 3, 4 | qh[t & 1] at
 * n = t >> 1. vpdpwssd multiplies w = trit - 1 by the widened activations. Float order of kernels/formats.md:
 * four lanes, one per sub-block, then (a0 + a1) + (a2 + a3). K % 128 == 0; F16C converts the scales. */
#include <string.h>
#include <immintrin.h>
#include "formats.h"
#include "kernel.h"
#include "ptq1_0_gemv_loop_avx2.h"

#define P(n) ((n) << 8)
#define P8(n) P(n), P(n), P(n), P(n), P(n), P(n), P(n), P(n)

/* w = trit - 1 of 32 lanes: b (zero-extended bytes) times per-lane 3^n << 8 in p. */
static inline __m512i trits_minus1(__m256i bytes, __m512i p) {
    const __m512i t = _mm512_mulhi_epu16(_mm512_mullo_epi16(_mm512_cvtepu8_epi16(bytes), p), _mm512_set1_epi16(3));
    return _mm512_sub_epi16(t, _mm512_set1_epi16(1));
}

/* Exact dots of one block with its four Q8_0 sub-blocks y[0..3]: [s0 s1 s2 s3]. */
static inline __m128i block_isum4(const block_ptq1_0 *w, const block_q8_0 *y) {
    /* per-lane 3^n << 8 of each sub-block's 32 lanes */
    static const uint16_t pw[4][32] = {
        {P8(1), P8(1), P8(3), P8(3)},
        {P8(9), P8(9), P8(27), P8(27)},
        {P8(81), P8(81), P8(1), P8(3)},
        {P8(9), P8(27), P8(81), P(1), P(1), P(3), P(3), P(9), P(9), P(27), P(27)},
    };
    const __m128i lo = _mm_loadu_si128((const __m128i *)w->qs);                     /* bytes 0..15 */
    const __m128i hi = _mm_loadl_epi64((const __m128i *)(w->qs + 16));              /* bytes 16..23 */
    uint16_t qh;
    memcpy(&qh, w->qh, 2);
    const __m128i hh = _mm_unpacklo_epi64(hi, hi);
    const __m128i hq = _mm_unpacklo_epi64(hi, _mm_set1_epi16((short)qh));           /* 16..23, qh0 qh1 x4 */
    const __m512i w16[4] = {
        trits_minus1(_mm256_broadcastsi128_si256(lo), _mm512_loadu_si512(pw[0])),
        trits_minus1(_mm256_broadcastsi128_si256(lo), _mm512_loadu_si512(pw[1])),
        trits_minus1(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hh, 1), _mm512_loadu_si512(pw[2])),
        trits_minus1(_mm256_inserti128_si256(_mm256_castsi128_si256(hh), hq, 1), _mm512_loadu_si512(pw[3])),
    };
    __m256i s[4];
    for (int q = 0; q < 4; q++) {
        /* int32 safe: 32 products of at most 127 */
        const __m512i a = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)y[q].qs));
        const __m512i d = _mm512_dpwssd_epi32(_mm512_setzero_si512(), w16[q], a);
        s[q] = _mm256_add_epi32(_mm512_castsi512_si256(d), _mm512_extracti64x4_epi64(d, 1));
    }
    return ciot_ptq1_0_sums4_avx2(s);
}

static void gemv(const ciot_mm *mm, int first, int count) { ciot_ptq1_0_gemv_loop_avx2(mm, first, count, block_isum4); }

CIOT_KERNEL(ptq1_0_gemv_avx512vnni, ptq1_0_gemv_ref, .layout = &ciot_layout_ptq1_0, .act = &ciot_act_q8_0,
            .op = CIOT_OP_GEMV, .features = CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv,
            .mac = CIOT_MAC_AVX512VNNI);
