#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_tq2_gemv_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: T2P made from TQ2_0 (blocks 2q, 2q + 1 = 256-block q, its scale in both) times one
 * Q8_K row. Reads T2P as t2p_gemv_avx2 does, with the same block dot (t2p_dot_avx2.h); only the float
 * step differs: per row the two halves' exact integer sums are added, then
 * acc = fmaf((float) isum_q, fp32(d[2q]) * d_y, acc), one step per 256-block. K % 256 == 0; F16C. */
#include "kernel.h"
#include "t2p_dot_avx2.h"
#include "t2p_gemv_loop_avx2.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_t2p_gemv_loop_avx2(mm, first, count, ciot_t2p_dot4x_avx2, 2);
}

CIOT_KERNEL(t2p_tq2_gemv_avx2, t2p_tq2_gemv_ref, .layout = &ciot_layout_t2p_tq2, .act = &ciot_act_q8_K,
            .op = CIOT_OP_GEMV, .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVX2_I16);
