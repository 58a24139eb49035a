#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__) || !defined(__AVXVNNI__)
#error "t2p_gemm_avxvnni.c needs -mavx2 -mfma -mf16c -mavxvnni (cmake/isa.cmake gives it to *_avxvnni.c)"
#endif
/* The gemm: T2P weights times a batch of Q8_Kx4 activation groups with AVX-VNNI; from
 * CIOT_T2P_SLICES_MIN_BATCH_AVXVNNI rows on decoded slices, below it in tiles of 4 weight rows x 4 activation
 * rows. One ymm per word w of the block: [row0 | row1 | row2 | row3] x 8 weights of
 * chunk 4w + s. Q8_Kx4 bytes 32c .. 32c + 15 are chunk c of activation rows 0, 1: broadcast to both
 * halves ([b0 | b1 | b0 | b1]) and swapped ([b1 | b0 | b1 | b0]) they pair every weight row with rows 0
 * and 1; bytes 32c + 16 .. + 31 do the same for rows 2, 3. A partial last group runs once as a full tile
 * (its padding rows are zero); only real rows are written. K % 256 == 0; F16C converts the scales. */
#include "formats.h"
#include "kernel.h"
#include "t2p_dot_avx2.h"
#include "t2p_slices_avx2.h"
#include "tile4x4_avx2.h"
#include "tl16_dot_avxvnni.h"

/* One 128-block (half h of xb): 4 * (u . y) as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void block_dot4x4(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23) {
    /* [pairing][class]: pairing 0 = (R0b0 R1b1 R2b0 R3b1), 1 = (R0b1 R1b0 R2b1 R3b0), 2, 3 the same for b2, b3 */
    __m256i c[4][2];
    for (int k = 0; k < 4; k++) c[k][0] = c[k][1] = _mm256_setzero_si256();
    for (int w = 0; w < 4; w++) {
        __m256i u[4]; /* u, 4u, u, 4u */
        ciot_t2p_slots_avx2(ciot_load2x16_avx2(qs + 16 * w, qs + 64 + 16 * w), u);
        for (int s = 0; s < 4; s++) {
            const int8_t *a = xb->qs + 32 * (16 * h + 4 * w + s);
            const __m256i b01 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a));
            const __m256i b23 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(a + 16)));
            const int cls = s & 1;
            c[0][cls] = _mm256_dpbusd_avx_epi32(c[0][cls], u[s], b01);
            c[1][cls] = _mm256_dpbusd_avx_epi32(c[1][cls], u[s], _mm256_shuffle_epi32(b01, 0x4e));
            c[2][cls] = _mm256_dpbusd_avx_epi32(c[2][cls], u[s], b23);
            c[3][cls] = _mm256_dpbusd_avx_epi32(c[3][cls], u[s], _mm256_shuffle_epi32(b23, 0x4e));
        }
    }
    __m256i m[4];
    for (int k = 0; k < 4; k++) m[k] = _mm256_add_epi32(_mm256_slli_epi32(c[k][0], 2), c[k][1]);
    /* hadd(pairing 0, 1) = [R0b0 R1b1 R0b1 R1b0 | R2b0 R3b1 R2b1 R3b0], permuted to [b0: R0..R3 | b1: R0..R3] */
    const __m256i order = _mm256_setr_epi32(0, 3, 4, 7, 2, 1, 6, 5);
    *s01 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(m[0], m[1]), order);
    *s23 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(m[2], m[3]), order);
}

extern const ciot_kernel ciot_k_t2p_gemm_avxvnni;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_t2p_gemm_avxvnni, mm->batch))
        ciot_tile4x4_gemm_avx2(mm, first, count, block_dot4x4, 1);
    else
        ciot_t2p_slices_gemm_loop(mm, first, count, CIOT_DOT_PER128, 2, ciot_t2p_decode_slice_avx2,
                                  ciot_slice_block_avxvnni);
}

CIOT_KERNEL(t2p_gemm_avxvnni, t2p_gemm_ref, .layout = &ciot_layout_t2p, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVXVNNI | CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_AVXVNNI,
            .mac_batch = CIOT_T2P_SLICES_MIN_BATCH_AVXVNNI, .mac_at_batch = CIOT_MAC_AVXVNNI);
