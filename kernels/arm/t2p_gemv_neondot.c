#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemv_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* t2p_gemv_neondot: 4 weight rows x one Q8_K row per tile, two 128-blocks per loop iteration; per 16-byte word
 * one load, three ANDs, one shift, four SDOTs against activations duplicated once per slice and chunk of K
 * (act_t2p_neon.h).
 * Reads T2P: row r, weight k at byte 64p + 16w + j, bits 2s..2s+1 (p = r >> 1, c = k >> 3, w = c >> 2,
 * s = c & 3, j = 8 (r & 1) + (k & 7)); per block fmaf((float) isum, fp32(d[r]) * d_y, acc).
 * Preconditions: K % 256 == 0, rows % 4 == 0, batch 1. */
#include "kernel.h"
#include "t2p_blocks_neondot.h"

enum {
    ACT_QK = 32,    /* Q8_K blocks prepared at a time: 8192 activations (64 T2P blocks), 17.5 KiB of stack */
    ACT_TILES = 32, /* tiles that share one preparation (float accumulators kept meanwhile) */
};

static void t2p_gemv_neondot(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, nk = mm->K / CIOT_QK_K;
    ciot_t2p_act2_neon act[ACT_QK];
    float32x4_t acc[ACT_TILES];
    for (int t0 = first; t0 < first + count; t0 += ACT_TILES) {
        const int nt = first + count - t0 < ACT_TILES ? first + count - t0 : ACT_TILES;
        for (int t = 0; t < nt; t++) acc[t] = vdupq_n_f32(0.0f);
        for (int j0 = 0; j0 < nk; j0 += ACT_QK) {
            const int n = nk - j0 < ACT_QK ? nk - j0 : ACT_QK;
            ciot_t2p_act_prepare_neon(mm->x, j0, n, act);
            for (int t = 0; t < nt; t++) {
                const block_t2p *w = (const block_t2p *)mm->w + (size_t)(t0 + t) * nb + 2 * j0;
                CIOT_MCA_BEGIN("t2p_gemv_neondot");
                acc[t] = ciot_t2p_blocks_neondot(w, act, n, acc[t], mm->prefetch);
                CIOT_MCA_END();
            }
        }
        for (int t = 0; t < nt; t++) vst1q_f32(mm->y + 4 * (t0 + t), acc[t]);
    }
}

const ciot_kernel ciot_k_t2p_gemv_neondot = {
    "t2p_gemv_neondot", &ciot_layout_t2p, &ciot_act_q8_K, CIOT_OP_GEMV, CIOT_F_NEON | CIOT_F_DOTPROD,
    "t2p_gemv_ref", t2p_gemv_neondot,
};
