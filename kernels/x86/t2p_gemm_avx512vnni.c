#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__) || \
    !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemm_avx512vnni.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vnni.c)"
#endif
/* The gemm: T2P weights x Q8_Kx4 groups with AVX-512 VNNI, tile = 4 weight x 4 activation rows.
 * Word w of both pairs is broadcast to a zmm [R01 | R23 | R01 | R23] whose halves are decoded as slots s
 * and s + 1, lining up with Q8_Kx4 chunks 4w + s, + 1 of all rows: 64 contiguous bytes, one load. Swapping
 * the activations' 8-byte halves and the weights' row pairs gives the other pairings (all 16 dots).
 * A partial last group runs once as a full tile (zero padding rows); only real rows are written.
 * From CIOT_T2P_SLICES_MIN_BATCH_AVX512 activation rows, the decoded slices of t2p_slices_avx512vnni.h instead: eight
 * tiles' block decoded once for the batch, one vpdpbusd per 16 rows x 4 weights and activation row.
 * K % 256 == 0; F16C converts the scales. */
#include "kernel.h"
#include "t2p_dot_avx512vnni.h"
#include "t2p_slices_avx512vnni.h"
#include "tile4x4_avx2.h"

extern const ciot_kernel ciot_k_t2p_gemm_avx512vnni;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_t2p_gemm_avx512vnni, mm->batch))
        ciot_tile4x4_gemm_avx2(mm, first, count, ciot_t2p_dot4x4_avx512vnni, 1);
    else
        ciot_t2p_slices_gemm_avx512vnni(mm, first, count, CIOT_DOT_PER128);
}

CIOT_KERNEL(t2p_gemm_avx512vnni, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_AVX512VNNI,
            .mac_batch = CIOT_T2P_SLICES_MIN_BATCH_AVX512, .mac_at_batch = CIOT_MAC_AVX512VNNI);
