#if !defined(__ARM_FEATURE_DOTPROD)
#error "t2p_gemm_neondot.c needs -march=armv8.2-a+dotprod (cmake/isa.cmake gives it to *_neondot.c)"
#endif
/* t2p_gemm_neondot: the T2P gemm for cores with SDOT but no SMMLA (Cortex-A76, Neoverse N1).
 * Each Q8_Kx4 group (qs[32c + 8r + e] = row r, value 8c + e) is de-interleaved back into Q8_K rows, a
 * chunk of K at a time, and the T2P gemv block loop runs per real activation row; the padded rows of the
 * last group are never computed. Reads T2P like t2p_gemv_neondot.
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups. */
#include "kernel.h"
#include "t2p_blocks_neondot.h"

enum { CHUNK = 16 }; /* Q8_K blocks de-interleaved per row at a time: 4 x 16 x 292 bytes of stack */

/* Row r of Q8_Kx4 blocks x[0 .. n-1] as Q8_K blocks, for all four rows. LD4 of 64 bytes (chunks c, c+1)
 * splits the 8-byte pieces of rows 0..3 into four registers. */
static void deinterleave(const block_q8_Kx4 *x, int n, block_q8_K rows[4][CHUNK]) {
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 32; c += 2) {
            const int64x2x4_t v = vld4q_s64((const ciot_i64_unaligned *)(x[i].qs + 32 * c));
            for (int r = 0; r < 4; r++) vst1q_s8(rows[r][i].qs + 8 * c, vreinterpretq_s8_s64(v.val[r]));
        }
        for (int r = 0; r < 4; r++) {
            rows[r][i].d = x[i].d[r];
            for (int k = 0; k < 4; k++) memcpy(rows[r][i].bsums + 4 * k, x[i].bsums + 16 * k + 4 * r, 8);
        }
    }
}

static void t2p_gemm_neondot(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    block_q8_K rows[4][CHUNK];
    for (int g = 0; g < groups; g++) {
        const int n = mm->batch - 4 * g < 4 ? mm->batch - 4 * g : 4;
        for (int k0 = 0; k0 < nbk; k0 += CHUNK) {
            const int kn = nbk - k0 < CHUNK ? nbk - k0 : CHUNK;
            deinterleave((const block_q8_Kx4 *)mm->x + (size_t)g * nbk + k0, kn, rows);
            for (int t = first; t < first + count; t++) {
                const block_t2p *w = (const block_t2p *)mm->w + (size_t)t * nb + 2 * k0;
                for (int r = 0; r < n; r++) {
                    /* the output doubles as the float accumulator between chunks: same order, same bits */
                    float *out = mm->y + (size_t)(4 * g + r) * mm->ldy + 4 * t;
                    float32x4_t acc = k0 ? vld1q_f32(out) : vdupq_n_f32(0.0f);
                    CIOT_MCA_BEGIN("t2p_gemm_neondot");
                    acc = ciot_t2p_blocks_neondot(w, rows[r], kn, acc, mm->prefetch);
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
