#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__) || !defined(__AVXVNNI__)
#error "t2p_gemv_avxvnni.c needs -mavx2 -mfma -mf16c -mavxvnni (cmake/isa.cmake gives it to *_avxvnni.c)"
#endif
/* t2p_gemv_avxvnni: t2p_gemv_avx2 with AVX-VNNI. Same bytes and activation vectors (act_t2p_avx2.h):
 * one ymm = words 2W, 2W + 1 of pair p, slot s meets chunks 8W + s and 8W + 4 + s over both rows.
 * vpdpbusd multiplies, adds four products and accumulates in int32 in one instruction, which removes
 * the int16 adds and widening of the AVX2 path. Per row, isum is exact, then
 * fmaf((float) isum, fp32(d) * d_y, acc). K % 256 == 0; F16C converts the scales. */
#include "act_t2p_avx2.h"
#include "kernel.h"
#include "t2p_gemv_loop_avx2.h"

/* 4 * (u . y) of the four rows of one block, u the codes 0..3, as [r0 r1 r2 r3]. */
static inline __m128i block_dot4x(const uint8_t *qs, const ciot_t2p_act_avx2 *a) {
    const __m256i m3 = _mm256_set1_epi8(3), mc = _mm256_set1_epi8(0x0c);
    __m256i m[2];
    for (int p = 0; p < 2; p++) {
        __m256i c1 = _mm256_setzero_si256(), c4 = _mm256_setzero_si256();
        for (int W = 0; W < 2; W++) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(qs + 64 * p + 32 * W));
            const __m256i t = _mm256_srli_epi16(v, 4); /* slots 2, 3 down to bits 0..3 (bytes stay clean) */
            const __m256i y[4] = {a->y[0][W], a->y[1][W], a->y[2][W], a->y[3][W]};
            /* slots 0, 2 as u, slots 1, 3 as 4u; int32 lanes, far from overflow */
            c1 = _mm256_dpbusd_avx_epi32(c1, _mm256_and_si256(v, m3), y[0]);
            c4 = _mm256_dpbusd_avx_epi32(c4, _mm256_and_si256(v, mc), y[1]);
            c1 = _mm256_dpbusd_avx_epi32(c1, _mm256_and_si256(t, m3), y[2]);
            c4 = _mm256_dpbusd_avx_epi32(c4, _mm256_and_si256(t, mc), y[3]);
        }
        m[p] = _mm256_add_epi32(_mm256_slli_epi32(c1, 2), c4);
    }
    /* m[p] = [r2p r2p r2p+1 r2p+1 | same, other chunks]: hadd, then fold the halves */
    const __m256i h = _mm256_hadd_epi32(m[0], m[1]);
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_t2p_gemv_loop_avx2(mm, first, count, block_dot4x, 1);
}

CIOT_KERNEL(t2p_gemv_avxvnni, t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_AVXVNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVXVNNI);
