#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemv_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemv: T2P weights (4 rows x 128 per 136-byte block) times one Q8_K activation row.
 * Reads byte 8 + 64p + 16w + j, slot s (bits 2s..2s+1) = row 2p + (j >= 8), weight 8(4w + s) + (j & 7).
 * One ymm = words 2W, 2W + 1 of pair p (32 contiguous bytes); its slot s meets chunks 8W + s and
 * 8W + 4 + s, each duplicated over both rows of the pair. Those activation vectors are made once per
 * slice and activation chunk (act_t2p_avx2.h), so the weight loop loads them as memory operands.
 * Per row, isum is exact, then fmaf((float) isum, fp32(d) * d_y, acc). K % 256 == 0; F16C scales. */
#include "kernel.h"
#include "t2p_dot_avx2.h"
#include "t2p_gemv_loop_avx2.h"

static void gemv(const ciot_mm *mm, int first, int count) {
    ciot_t2p_gemv_loop_avx2(mm, first, count, ciot_t2p_dot4x_avx2, 1);
}

CIOT_KERNEL(t2p_gemv_avx2, t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemv, .mac = CIOT_MAC_AVX2_I16);
