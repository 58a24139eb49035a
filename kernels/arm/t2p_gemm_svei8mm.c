#if !defined(__ARM_FEATURE_SVE_MATMUL_INT8)
#error "t2p_gemm_svei8mm.c needs -march=armv8.6-a+sve+i8mm (cmake/isa.cmake gives it to *_svei8mm.c)"
#endif
/* The gemm with SVE SMMLA at any vector length: 4 weight rows x svcntb() / 16 activation groups (4 rows each)
 * per tile pass, each granule of the vector the 4x4 SMMLA tile of t2p_gemm_i8mm for one group
 * (t2p_dot_svei8mm.h). Reads T2P: slot s of word w of pair p is [row 2p: weights 8c .. 8c+7 | row 2p+1: same],
 * c = 4w + s, the 2x8 left operand as stored; Q8_Kx4 bytes 32c .. 32c+15 (rows 0-1) and 32c+16 .. 32c+31
 * (rows 2-3) of chunk c are the right ones. Per 128-block one fmaf per (weight row, activation row).
 * Preconditions: K % 256 == 0, rows % 4 == 0; activations ceil(batch / 4) groups, the last zero-padded. */
#include "t2p_dot_svei8mm.h"

static void tile(const block_t2p *w, const int8_t *buf, int nblk, float *state) {
    CIOT_MCA_BEGIN("t2p_gemm_svei8mm");
    ciot_t2p_tile_chunk_svei8mm(w, buf, nblk, state, 1);
    CIOT_MCA_END();
}

static void gemm(const ciot_mm *mm, int first, int count) { ciot_t2p_gemm_loop_svei8mm(mm, first, count, tile); }

CIOT_KERNEL(t2p_gemm_svei8mm, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_NEON | CIOT_F_SVE | CIOT_F_SVEI8MM, .compute = gemm, .mac = CIOT_MAC_SVEI8MM);
