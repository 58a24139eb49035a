#if !defined(__ARM_FEATURE_SVE)
#error "t2p_gemv_sve.c needs -march=armv8.2-a+sve (cmake/isa.cmake gives it to *_sve.c)"
#endif
/* The gemv with SVE SDOT at any vector length: 4 weight rows x one Q8_K row per tile; per run of svcntb()
 * bytes of a pair one load, three ANDs, one shift, four SDOTs against slot images prepared once per slice
 * and chunk of K (act_t2p_sve.h, t2p_dot_sve.h).
 * Reads T2P: row r, weight k at byte 64p + 16w + j, bits 2s..2s+1 (p = r >> 1, c = k >> 3, w = c >> 2,
 * s = c & 3, j = 8 (r & 1) + (k & 7)); per block fmaf((float) isum, fp32(d[r]) * d_y, acc).
 * Preconditions: K % 256 == 0, rows % 4 == 0, batch 1. */
#include "kernel.h"
#include "t2p_dot_sve.h"

static float32x4_t loop(const block_t2p *w, const ciot_t2p_act2_sve *a, int n, float32x4_t acc, size_t prefetch) {
    CIOT_MCA_BEGIN("t2p_gemv_sve");
    acc = ciot_t2p_blocks_sve(w, a, n, acc, prefetch);
    CIOT_MCA_END();
    return acc;
}

static void gemv(const ciot_mm *mm, int first, int count) { ciot_t2p_gemv_loop_sve(mm, first, count, loop); }

CIOT_KERNEL(t2p_gemv_sve, t2p_gemv_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_K, .op = CIOT_OP_GEMV,
            .features = CIOT_F_NEON | CIOT_F_SVE, .compute = gemv, .mac = CIOT_MAC_SVEDOT);
