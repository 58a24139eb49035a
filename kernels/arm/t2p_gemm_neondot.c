#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemm_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* t2p_gemm_neondot: the T2P gemm for cores with SDOT but no SMMLA (Cortex-A76, Neoverse N1).
 * Each real activation row of a Q8_Kx4 group (qs[32c + 8r + e] = row r, value 8c + e) is prepared for the
 * T2P block loop (act_t2p_neon.h), a chunk of K at a time, and the loop of t2p_gemv_neondot runs per tile
 * and row; the padded rows of the last group are never computed. Reads T2P like t2p_gemv_neondot.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups. */
#include "kernel.h"
#include "t2p_blocks_neondot.h"

enum { ACT_QK = 16 }; /* Q8_K blocks prepared per row at a time: 4 x 16 x 560 bytes = 35 KiB of stack */

static void t2p_gemm_neondot(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, nk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    ciot_t2p_act2_neon act[4][ACT_QK];
    for (int g = 0; g < groups; g++) {
        const int n = mm->batch - 4 * g < 4 ? mm->batch - 4 * g : 4;
        const block_q8_Kx4 *x = (const block_q8_Kx4 *)mm->x + (size_t)g * nk;
        for (int j0 = 0; j0 < nk; j0 += ACT_QK) {
            const int kn = nk - j0 < ACT_QK ? nk - j0 : ACT_QK;
            for (int r = 0; r < n; r++) ciot_t2p_act_prepare_x4_neon(x, r, j0, kn, act[r]);
            for (int t = first; t < first + count; t++) {
                const block_t2p *w = (const block_t2p *)mm->w + (size_t)t * nb + 2 * j0;
                for (int r = 0; r < n; r++) {
                    /* the output doubles as the float accumulator between chunks: same order, same bits */
                    float *out = mm->y + (size_t)(4 * g + r) * mm->ldy + 4 * t;
                    float32x4_t acc = j0 ? vld1q_f32(out) : vdupq_n_f32(0.0f);
                    CIOT_MCA_BEGIN("t2p_gemm_neondot");
                    acc = ciot_t2p_blocks_neondot(w, act[r], kn, acc, mm->prefetch);
                    CIOT_MCA_END();
                    vst1q_f32(out, acc);
                }
            }
        }
    }
}

const ciot_kernel ciot_k_t2p_gemm_neondot = {
    "t2p_gemm_neondot", &ciot_layout_t2p, &ciot_act_q8_Kx4, CIOT_OP_GEMM, CIOT_F_NEON | CIOT_F_DOTPROD,
    "t2p_gemm_ref", t2p_gemm_neondot,
};
