#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemm_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemm: T2P weights times a batch of Q8_Kx4 activation groups, 8 weight rows (two tiles) x 4
 * activation rows at a time, int16 sums widened once per 128-block (t2p_tile8x4_avx2.h: the tile, its
 * int16 bound and why). One float step per 128-block, PQ2_0's order. Needs K % 256 == 0; F16C. */
#include "kernel.h"
#include "t2p_slices_avx2.h"
#include "t2p_tile8x4_avx2.h"

extern const ciot_kernel ciot_k_t2p_gemm_avx2;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_t2p_gemm_avx2, mm->batch))
        ciot_t2p_tile8x4_gemm_avx2(mm, first, count, 1);
    else
        ciot_t2p_slices_gemm_avx2(mm, first, count, CIOT_DOT_PER128);
}

CIOT_KERNEL(t2p_gemm_avx2, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_AVX2_I16,
            .mac_batch = CIOT_T2P_SLICES_MIN_BATCH_AVX2, .mac_at_batch = CIOT_MAC_AVX2_I16);
