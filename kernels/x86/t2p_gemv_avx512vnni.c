#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VNNI__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemv_avx512vnni.c needs -mavx512f -mavx512bw -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vnni.c)"
#endif
/* The gemv: t2p_gemv_avx2 with 512-bit vectors and AVX-512 VNNI. One zmm is a whole pair p of a
 * block (bytes 64p .. 64p + 63: words 0..3); its slot s meets chunks s, 4 + s, 8 + s, 12 + s, each
 * duplicated over both rows of the pair: the act_t2p_avx2.h vectors y[s][0], y[s][1] side by side.
 * vpdpbusd multiplies, adds four products and accumulates in int32. Per row, isum is exact, then
 * fmaf((float) isum, fp32(d) * d_y, acc). K % 256 == 0; F16C converts the scales. */
#include "kernel.h"
#include "t2p_dot_avx512vnni.h"
#include "t2p_gemv_loop_avx2.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_t2p_gemv_loop_avx2(mm, first, count, ciot_t2p_dot4x_avx512vnni, 1);
}

CIOT_KERNEL(t2p_gemv_avx512vnni, t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVX512VNNI);
