#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__) || !defined(__AVXVNNI__)
#error "t2p_gemv_avxvnni.c needs -mavx2 -mfma -mf16c -mavxvnni (cmake/isa.cmake gives it to *_avxvnni.c)"
#endif
/* The gemv: t2p_gemv_avx2 with AVX-VNNI. Same bytes and activation vectors (act_t2p_avx2.h):
 * one ymm = words 2W, 2W + 1 of pair p, slot s meets chunks 8W + s and 8W + 4 + s over both rows.
 * vpdpbusd multiplies, adds four products and accumulates in int32 in one instruction, which removes
 * the int16 adds and widening of the AVX2 path. Per row, isum is exact, then
 * fmaf((float) isum, fp32(d) * d_y, acc). K % 256 == 0; F16C converts the scales. */
#include "kernel.h"
#include "t2p_dot_avx2.h"
#include "t2p_gemv_loop_avx2.h"

/* 4 * (u . y) of the four rows of one block, u the codes 0..3, as [r0 r1 r2 r3]. */
static inline __m128i block_dot4x(const uint8_t *qs, const ciot_t2p_act_avx2 *a) {
    __m256i m[2];
    for (int p = 0; p < 2; p++) {
        __m256i c1 = _mm256_setzero_si256(), c4 = _mm256_setzero_si256();
        for (int W = 0; W < 2; W++) {
            __m256i u[4];
            ciot_t2p_slots_avx2(_mm256_loadu_si256((const __m256i *)(qs + 64 * p + 32 * W)), u);
            /* slots 0, 2 as u, slots 1, 3 as 4u; int32 lanes, far from overflow */
            c1 = _mm256_dpbusd_avx_epi32(c1, u[0], a->y[0][W]);
            c4 = _mm256_dpbusd_avx_epi32(c4, u[1], a->y[1][W]);
            c1 = _mm256_dpbusd_avx_epi32(c1, u[2], a->y[2][W]);
            c4 = _mm256_dpbusd_avx_epi32(c4, u[3], a->y[3][W]);
        }
        m[p] = _mm256_add_epi32(_mm256_slli_epi32(c1, 2), c4);
    }
    return ciot_t2p_rows4_avx2(m);
}

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_t2p_gemv_loop_avx2(mm, first, count, block_dot4x, 1);
}

CIOT_KERNEL(t2p_gemv_avxvnni, t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_AVXVNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVXVNNI);
