#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2x4_gemv_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: T2X4 weights (4 rows x 128 per 136-byte block) times one Q8_K activation row.
 * Reads byte 8 + 64g + 16r + j, slot s (bits 2s..2s+1) = row r, weight 64g + 16s + j. One ymm holds
 * rows r, r + 1 of group g, so slot s meets the 16 activations 64g + 16s .. + 15 broadcast to both
 * halves. Per row, isum is exact, then the canonical fmaf((float) isum, fp32(d) * d_y, acc).
 * Needs K % 256 == 0; F16C converts the scales. */
#include "util_avx2.h"
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"

/* 4 * (u . y) of rows r, r + 1 (u the codes 0..3): int32 [r x4 | r+1 x4]. */
static inline __m256i rowpair_dot4x(const uint8_t *qs, int r, const __m256i a[2][4]) {
    const __m256i m3 = _mm256_set1_epi8(3), mc = _mm256_set1_epi8(0x0c);
    __m256i c = _mm256_setzero_si256();
    for (int g = 0; g < 2; g++) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(qs + 64 * g + 16 * r));
        const __m256i t = _mm256_srli_epi16(v, 4); /* slot 2 and 3 bits down to 0..3 (bytes stay clean) */
        /* slots 0, 2 as u scaled by 4 after the multiply; slots 1, 3 masked in place as 4u */
        const __m256i p1 = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_and_si256(v, m3), a[g][0]),
                                            _mm256_maddubs_epi16(_mm256_and_si256(t, m3), a[g][2]));
        const __m256i p4 = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_and_si256(v, mc), a[g][1]),
                                            _mm256_maddubs_epi16(_mm256_and_si256(t, mc), a[g][3]));
        c = _mm256_add_epi16(c, _mm256_add_epi16(_mm256_slli_epi16(p1, 2), p4));
    }
    /* int16 safe: per lane, 2 groups x (4 * 2 pairs of 3 * 127 + 2 pairs of 12 * 127) = 24384 */
    return _mm256_madd_epi16(c, _mm256_set1_epi16(1));
}

static void gemv(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    for (int tile = first; tile < first + count; tile++) {
        const block_t2x4 *w = (const block_t2x4 *)mm->w + (size_t)tile * nb;
        __m128 acc = _mm_setzero_ps();
        for (int i = 0; i < nb; i++) {
            ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
            const block_q8_K *y = &x[i >> 1];
            const int8_t *q = y->qs + 128 * (i & 1);
            __m256i a[2][4];
            for (int g = 0; g < 2; g++)
                for (int s = 0; s < 4; s++)
                    a[g][s] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(q + 64 * g + 16 * s)));
            const __m256i d01 = rowpair_dot4x(w[i].qs, 0, a), d23 = rowpair_dot4x(w[i].qs, 2, a);
            /* [r0 r0 r2 r2 | r1 r1 r3 r3] -> [r0 r2 . . | r1 r3 . .] -> [r0 r1 r2 r3] */
            const __m256i h = _mm256_hadd_epi32(d01, d23), h2 = _mm256_hadd_epi32(h, h);
            const __m128i s4 = _mm_unpacklo_epi32(_mm256_castsi256_si128(h2), _mm256_extracti128_si256(h2, 1));
            /* 4 * (u.y - sum y) = 4 * isum exactly; the shift divides it back */
            const __m128i isum = _mm_srai_epi32(_mm_sub_epi32(s4, ciot_bsums8_x4_avx2(y->bsums + 8 * (i & 1))), 2);
            const __m128 scale = _mm_mul_ps(ciot_fp16x4_avx2(w[i].d), _mm_set1_ps(y->d));
            acc = _mm_fmadd_ps(_mm_cvtepi32_ps(isum), scale, acc);
        }
        _mm_storeu_ps(mm->y + 4 * tile, acc);
    }
}

CIOT_KERNEL(t2x4_gemv_avx2, t2x4_gemv_ref, .layout = &ciot_layout_t2x4, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVX2_I16);
