#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__) || !defined(__AVXVNNI__)
#error "t2p_tq2_gemm_avxvnni.c needs -mavx2 -mfma -mf16c -mavxvnni (cmake/isa.cmake gives it to *_avxvnni.c)"
#endif
/* The gemm with AVX-VNNI: T2P made from TQ2_0 times a batch of Q8_Kx4 groups, from
 * CIOT_T2P_SLICES_MIN_BATCH_AVXVNNI rows on decoded slices (t2p_slices_avx2.h) multiplied by vpdpbusd on ymm
 * (tl16_dot_avxvnni.h), the two 128-halves' sums added in int32, then one fmaf per 256-block; below it, the AVX2
 * gemm (its 8 x 4 int16 tile). K % 256 == 0; F16C. */
#include "kernel.h"
#include "t2p_slices_avx2.h"
#include "tl16_dot_avxvnni.h"

extern const ciot_kernel ciot_k_t2p_tq2_gemm_avx2;

extern const ciot_kernel ciot_k_t2p_tq2_gemm_avxvnni;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_t2p_tq2_gemm_avxvnni, mm->batch))
        ciot_k_t2p_tq2_gemm_avx2.compute(mm, first, count);
    else
        ciot_t2p_slices_gemm_loop(mm, first, count, CIOT_DOT_PER256, 2, ciot_t2p_decode_slice_avx2,
                                  ciot_slice_block_avxvnni);
}

CIOT_KERNEL(t2p_tq2_gemm_avxvnni, t2p_tq2_gemm_ref, .layout = &ciot_layout_t2p_tq2, .act = &ciot_act_q8_Kx4,
            .op = CIOT_OP_GEMM, .features = CIOT_F_AVXVNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm,
            .mac = CIOT_MAC_AVX2_I16, .mac_batch = CIOT_T2P_SLICES_MIN_BATCH_AVXVNNI, .mac_at_batch = CIOT_MAC_AVXVNNI);
