#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "pq2_0_gemv_stock_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: the stock method on x86, the baseline the repacked layouts are measured against.
 * Reads PQ2_0 rows as stored (weight k = (qs[k >> 2] >> 2(k & 3)) & 3, code - 1 = weight), one row and
 * one 128-block at a time: shift, mask, back to weight order, subtract 1, multiply by the int8
 * activations; no activation sums. x86 has no per-byte variable shift, so NEON's TBL + USHL becomes
 * four plane shifts and two rounds of unpacks. Needs K % 256 == 0; F16C converts the scale. */
#include "util_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

/* Exact dot of one block's 128 weights (code - 1) with a[0..127]. */
static inline int32_t block_isum(const uint8_t qs[32], const int8_t *a) {
    const __m256i m3 = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1);
    const __m256i q = _mm256_loadu_si256((const __m256i *)qs);
    /* plane s, byte b: code of weight 4b + s */
    const __m256i p0 = _mm256_and_si256(q, m3), p1 = _mm256_and_si256(_mm256_srli_epi16(q, 2), m3);
    const __m256i p2 = _mm256_and_si256(_mm256_srli_epi16(q, 4), m3), p3 = _mm256_and_si256(_mm256_srli_epi16(q, 6), m3);
    const __m256i l01 = _mm256_unpacklo_epi8(p0, p1), h01 = _mm256_unpackhi_epi8(p0, p1);
    const __m256i l23 = _mm256_unpacklo_epi8(p2, p3), h23 = _mm256_unpackhi_epi8(p2, p3);
    /* weight order per 128-bit half: w[k] = weights 16k .. 16k + 15 | 64 + 16k .. 64 + 16k + 15 */
    const __m256i w[4] = {
        _mm256_sub_epi8(_mm256_unpacklo_epi16(l01, l23), one), _mm256_sub_epi8(_mm256_unpackhi_epi16(l01, l23), one),
        _mm256_sub_epi8(_mm256_unpacklo_epi16(h01, h23), one), _mm256_sub_epi8(_mm256_unpackhi_epi16(h01, h23), one),
    };
    __m256i s16 = _mm256_setzero_si256();
    for (int k = 0; k < 4; k++) {
        const __m256i y = ciot_load2x16_avx2(a + 16 * k, a + 64 + 16 * k);
        /* signed x signed through |w| and y * sign(w); w = +2 (code 3) keeps |w| * |y| <= 254 */
        s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(_mm256_sign_epi8(w[k], w[k]), _mm256_sign_epi8(y, w[k])));
    }
    /* int16 safe: 4 x 2 products of at most 2 * 127 */
    const __m256i s32 = _mm256_madd_epi16(s16, _mm256_set1_epi16(1));
    return _mm_cvtsi128_si32(ciot_hsum4_avx2(_mm_add_epi32(_mm256_castsi256_si128(s32), _mm256_extracti128_si256(s32, 1))));
}

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const block_pq2_0 *w = (const block_pq2_0 *)mm->w + (size_t)r * nb;
        __m128 acc = _mm_setzero_ps();
        for (int i = 0; i < nb; i++) {
            ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
            const block_q8_K *y = &x[i >> 1];
            const int32_t isum = block_isum(w[i].qs, y->qs + 128 * (i & 1));
            const __m128 scale = _mm_mul_ss(_mm_set_ss(_cvtsh_ss(w[i].d)), _mm_set_ss(y->d));
            acc = _mm_fmadd_ss(_mm_cvtsi32_ss(_mm_setzero_ps(), isum), scale, acc);
        }
        mm->y[r] = _mm_cvtss_f32(acc);
    }
}

CIOT_KERNEL(pq2_0_gemv_stock_avx2, pq2_0_gemv_ref, .layout = &ciot_layout_pq2_0, .act = &ciot_act_q8_K,
            .op = CIOT_OP_GEMV, .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVX2_I16_B32);
