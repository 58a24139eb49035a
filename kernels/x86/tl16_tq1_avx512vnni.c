#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__) || \
    !defined(__FMA__) || !defined(__F16C__)
#error "tl16_tq1_avx512vnni.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vnni.c)"
#endif
/* The gemm: TL16 tiles (formats.h) times Q8_K activations, each 32-row slice of a block decoded once into its
 * weights for the whole batch and multiplied by vpdpbusd (tl16_dot_avx512vnni.h); below a few rows, the AVX2
 * gemm's lookups. Float order of kernels/formats.md (TQ1_0): one lane per row, the 256-block's int32 sum, one
 * fmaf. K % 256 == 0, rows % 256 == 0. */
#include "kernel.h"
#include "tl16_dot_avx512vnni.h"

extern const ciot_kernel ciot_k_tl16_tq1_gemm_avx2;

extern const ciot_kernel ciot_k_tl16_tq1_gemm_avx512vnni;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_tl16_tq1_gemm_avx512vnni, mm->batch))
        ciot_k_tl16_tq1_gemm_avx2.compute(mm, first, count);
    else
        ciot_tl16_dot_gemm_avx512vnni(mm, first, count, ciot_act_bytes(&ciot_act_q8_K, 1, mm->K), 1);
}

CIOT_KERNEL(tl16_tq1_gemm_avx512vnni, tl16_tq1_gemm_ref, .layout = &ciot_layout_tl16_tq1, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_LOOKUP,
            .mac_batch = CIOT_TL16_DOT_MIN_BATCH_AVX512, .mac_at_batch = CIOT_MAC_AVX512VNNI);
