#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemm_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemm: T2P weights times a batch of Q8_Kx4 activation groups, tile = 4 weight rows x 4
 * activation rows. Reads T2P as in t2p_gemv_avx2 (one ymm per word w: [row0 | row1 | row2 | row3] x 8
 * weights of chunk 4w + s) and Q8_Kx4 qs[32c + 8b + e]: activation row b's chunk c is one 8-byte
 * broadcast, so each decoded slot vector is used by four multiplies. A partial last group runs once as a
 * full tile (its padding rows are zero); only real rows are written. Needs K % 256 == 0; F16C. */
#include "kernel.h"
#include "t2p_dot_avx2.h"
#include "tile4x4_avx2.h"

static void gemm(const ciot_mm *mm, int first, int count) {
    ciot_tile4x4_gemm_avx2(mm, first, count, ciot_t2p_dot4x4_avx2, 1);
}

CIOT_KERNEL(t2p_gemm_avx2, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_AVX2);
