#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__) || !defined(__AVXVNNI__)
#error "tl16_avxvnni.c needs -mavx2 -mfma -mf16c -mavxvnni (cmake/isa.cmake gives it to *_avxvnni.c)"
#endif
/* The gemm with AVX-VNNI (no AVX-512: Intel client cores from Alder Lake): TL16 tiles (formats.h) times Q8_0
 * activations, each 32-row slice of a block decoded once for the whole batch and multiplied by vpdpbusd on ymm
 * (tl16_dot_avxvnni.h); below CIOT_TL16_DOT_MIN_BATCH_AVXVNNI rows, the AVX2 gemm (its lookups). Float order
 * of kernels/formats.md (PTQ1_0): four lanes per row, one fmaf per Q8_0 block. K % 128 == 0, rows % 256 == 0. */
#include "kernel.h"
#include "tl16_dot_avxvnni.h"

extern const ciot_kernel ciot_k_tl16_gemm_avx2;

extern const ciot_kernel ciot_k_tl16_gemm_avxvnni;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_tl16_gemm_avxvnni, mm->batch))
        ciot_k_tl16_gemm_avx2.compute(mm, first, count);
    else
        ciot_tl16_dot_gemm_loop(mm, first, count, ciot_act_bytes(&ciot_act_q8_0, 1, mm->K), 0, 2,
                                ciot_slice_block_avxvnni);
}

CIOT_KERNEL(tl16_gemm_avxvnni, tl16_gemm_ref, .layout = &ciot_layout_tl16, .act = &ciot_act_q8_0, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVXVNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_LOOKUP,
            .mac_batch = CIOT_TL16_DOT_MIN_BATCH_AVXVNNI, .mac_at_batch = CIOT_MAC_AVXVNNI_B32);
