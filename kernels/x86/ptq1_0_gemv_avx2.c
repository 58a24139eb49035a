#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "ptq1_0_gemv_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: PTQ1_0 rows (128 weights in 28 bytes: qs[24], qh[2], fp16 d) times Q8_0 activations.
 * Trit n of byte b is floor(3 * ((b * 3^n) mod 256) / 256); in a 16-bit lane holding b that is
 * mulhi_u16(mullo_16(b, 3^n << 8), 3): the low multiply keeps (b * 3^n) mod 256 in the high byte, the
 * high multiply takes its top third. Eight 16-lane vectors cover weights 0..127 in order (0..79: bytes 0..15
 * at n = 0..4; 80..119: bytes 16..23 at n = 0..4; 120..127: qh[t & 1] at n = t >> 1). Float order of
 * kernels/formats.md: four lanes, one per Q8_0 sub-block, then (a0 + a1) + (a2 + a3). Needs K % 128 == 0. */
#include <string.h>
#include "util_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "ptq1_0_gemv_loop_avx2.h"

/* Weights w = trit - 1 of 16 lanes: b (zero-extended bytes) times per-lane 3^n << 8 in p. */
static inline __m256i trits_minus1(__m256i b, __m256i p) {
    return _mm256_sub_epi16(_mm256_mulhi_epu16(_mm256_mullo_epi16(b, p), _mm256_set1_epi16(3)), _mm256_set1_epi16(1));
}

/* Exact dots of one block with its four Q8_0 sub-blocks y[0..3]: [s0 s1 s2 s3]. */
static inline __m128i block_isum4(const block_ptq1_0 *w, const block_q8_0 *y) {
    const __m256i p1 = _mm256_set1_epi16(1 << 8), p3 = _mm256_set1_epi16(3 << 8), p9 = _mm256_set1_epi16(9 << 8);
    const __m256i p27 = _mm256_set1_epi16(27 << 8), p81 = _mm256_set1_epi16(81 << 8);
    const __m256i lo = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)w->qs));     /* bytes 0..15 */
    const __m128i hi8 = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(w->qs + 16))); /* bytes 16..23 */
    uint16_t qh;
    memcpy(&qh, w->qh, 2);
    const __m128i qh4 = _mm_broadcastd_epi32(_mm_cvtepu8_epi16(_mm_cvtsi32_si128(qh))); /* qh0 qh1 qh0 qh1 .. */
    const __m256i hi2 = _mm256_broadcastsi128_si256(hi8);
    const __m256i last = _mm256_inserti128_si256(_mm256_castsi128_si256(hi8), qh4, 1);
    const __m256i w16[8] = {
        trits_minus1(lo, p1), trits_minus1(lo, p3), trits_minus1(lo, p9), trits_minus1(lo, p27), trits_minus1(lo, p81),
        trits_minus1(hi2, _mm256_blend_epi32(p1, p3, 0xf0)),   /* 80..87 n = 0 | 88..95 n = 1 */
        trits_minus1(hi2, _mm256_blend_epi32(p9, p27, 0xf0)),  /* 96..103 n = 2 | 104..111 n = 3 */
        trits_minus1(last, _mm256_setr_epi16(81 << 8, 81 << 8, 81 << 8, 81 << 8, 81 << 8, 81 << 8, 81 << 8, 81 << 8,
                                             1 << 8, 1 << 8, 3 << 8, 3 << 8, 9 << 8, 9 << 8, 27 << 8, 27 << 8)),
    };
    __m256i s[4];
    for (int q = 0; q < 4; q++) {
        /* int32 safe: 32 products of at most 127 */
        const __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)y[q].qs));
        const __m256i a1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(y[q].qs + 16)));
        s[q] = _mm256_add_epi32(_mm256_madd_epi16(w16[2 * q], a0), _mm256_madd_epi16(w16[2 * q + 1], a1));
    }
    return ciot_ptq1_0_sums4_avx2(s);
}

static void gemv(const ciot_mm *mm, int first, int count) { ciot_ptq1_0_gemv_loop_avx2(mm, first, count, block_isum4); }

CIOT_KERNEL(ptq1_0_gemv_avx2, ptq1_0_gemv_ref, .layout = &ciot_layout_ptq1_0, .act = &ciot_act_q8_0, .op = CIOT_OP_GEMV,
            .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVX2);
