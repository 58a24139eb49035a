/* t2p_gemv_avx2: T2P weights (4 rows x 128 per 136-byte block) times one Q8_K activation row.
 * Reads byte 8 + 64p + 16w + j, slot s (bits 2s..2s+1) = row 2p + (j >= 8), weight 8(4w + s) + (j & 7).
 * One ymm per word w joins pair 0 and pair 1: [row0 | row1 | row2 | row3] x 8 weights of chunk 4w + s,
 * so chunk c's 8 activations broadcast to all four quarters. Per row, isum is exact, then the canonical
 * fmaf((float) isum, fp32(d) * d_y, acc). Needs K % 256 == 0; F16C converts the scales. */
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemv_avx2.c needs -mavx2 -mfma -mf16c"
#endif
#include "avx2_util.h"
#include "formats.h"
#include "kernel.h"

/* 4 * (u . y) for the four rows of one block, u the codes 0..3; int32 [r0 r0 r1 r1 | r2 r2 r3 r3]. */
static inline __m256i block_dot4x(const uint8_t *qs, const int8_t *a) {
    const __m256i m3 = _mm256_set1_epi8(3), mc = _mm256_set1_epi8(0x0c);
    __m256i c1 = _mm256_setzero_si256(), c4 = _mm256_setzero_si256();
    for (int w = 0; w < 4; w++) {
        const __m256i v = ciot_load2x16(qs + 16 * w, qs + 64 + 16 * w);
        const __m256i t = _mm256_srli_epi16(v, 4); /* slot 2 and 3 bits down to 0..3 (bytes stay clean) */
        const int8_t *ac = a + 32 * w;
        /* slots 0, 2 as u (x1), slots 1, 3 as 4u: int16 lanes never saturate, see below */
        c1 = _mm256_add_epi16(c1, _mm256_maddubs_epi16(_mm256_and_si256(v, m3), ciot_bcast8(ac)));
        c4 = _mm256_add_epi16(c4, _mm256_maddubs_epi16(_mm256_and_si256(v, mc), ciot_bcast8(ac + 8)));
        c1 = _mm256_add_epi16(c1, _mm256_maddubs_epi16(_mm256_and_si256(t, m3), ciot_bcast8(ac + 16)));
        c4 = _mm256_add_epi16(c4, _mm256_maddubs_epi16(_mm256_and_si256(t, mc), ciot_bcast8(ac + 24)));
    }
    /* int16 safe: c1 sums 8 pairs of 3 * 127 (6096), c4 8 pairs of 12 * 127 (24384) */
    return _mm256_add_epi32(_mm256_madd_epi16(c1, _mm256_set1_epi16(4)), _mm256_madd_epi16(c4, _mm256_set1_epi16(1)));
}

static void t2p_gemv_avx2(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    for (int g = first; g < first + count; g++) {
        const block_t2p *w = (const block_t2p *)mm->w + (size_t)g * nb;
        __m128 acc = _mm_setzero_ps();
        for (int i = 0; i < nb; i++) {
            const block_q8_K *y = &x[i >> 1];
            const __m256i d = block_dot4x(w[i].qs, y->qs + 128 * (i & 1));
            const __m128i s4 = _mm_hadd_epi32(_mm256_castsi256_si128(d), _mm256_extracti128_si256(d, 1));
            /* 4 * (u.y - sum y) = 4 * isum exactly; the shift divides it back */
            const __m128i isum = _mm_srai_epi32(_mm_sub_epi32(s4, ciot_bsums8_x4(y->bsums + 8 * (i & 1))), 2);
            const __m128 scale = _mm_mul_ps(ciot_fp16x4(w[i].d), _mm_set1_ps(y->d));
            acc = _mm_fmadd_ps(_mm_cvtepi32_ps(isum), scale, acc);
        }
        _mm_storeu_ps(mm->y + 4 * g, acc);
    }
}

const ciot_kernel ciot_k_t2p_gemv_avx2 = {
    "t2p_gemv_avx2", &ciot_layout_t2p, &ciot_act_q8_K, CIOT_OP_GEMV, CIOT_F_AVX2 | CIOT_F_FMA, "t2p_gemv_ref",
    t2p_gemv_avx2,
};
