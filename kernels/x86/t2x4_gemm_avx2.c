#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2x4_gemm_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* The gemm: T2X4 weights times a batch of Q8_Kx4 activation groups. Below CIOT_T2X4_SLICES_MIN_BATCH_AVX2
 * rows, tiles of 4 weight rows x 4 activation rows: T2X4 read as in t2x4_gemv_avx2 (one ymm = rows r, r + 1
 * of group g; slot s meets activations 64g + 16s .. + 15) and Q8_Kx4 qs[32c + 8b + e]: those 16 activations
 * are chunks c, c + 1 of row b, joined by one unpack per (row, slot). A partial last group runs once as a full
 * tile (its padding rows are zero); only real rows are written. From that batch on, the T2P gemms' decoded
 * slices (t2p_slices_avx2.h), decoded from T2X4's order. Needs K % 256 == 0; F16C. */
#include "formats.h"
#include "kernel.h"
#include "t2p_slices_avx2.h"
#include "tile4x4_avx2.h"

/* The slices from this batch on, where the 4 x 4 tiles pad to 8 rows (results/kernel-bounds.md, "T2X4"). */
enum { CIOT_T2X4_SLICES_MIN_BATCH_AVX2 = 5 };

/* Slot s of a T2X4 ymm as 4u (bits 2..3 of each byte; 16-bit shifts never carry into bits 2..3). */
static inline __m256i slot4x(__m256i v, int s) {
    const __m256i mc = _mm256_set1_epi8(0x0c);
    switch (s) {
    case 0: return _mm256_and_si256(_mm256_slli_epi16(v, 2), mc);
    case 1: return _mm256_and_si256(v, mc);
    case 2: return _mm256_and_si256(_mm256_srli_epi16(v, 2), mc);
    default: return _mm256_and_si256(_mm256_srli_epi16(v, 4), mc);
    }
}

/* One 128-block (half h of xb): 4 * (u . y) as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void block_dot4x4(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23) {
    __m256i c[2][4]; /* [row pair][activation row], int16 */
    for (int p = 0; p < 2; p++)
        for (int b = 0; b < 4; b++) c[p][b] = _mm256_setzero_si256();
    for (int g = 0; g < 2; g++) {
        const __m256i v0 = _mm256_loadu_si256((const __m256i *)(qs + 64 * g));
        const __m256i v1 = _mm256_loadu_si256((const __m256i *)(qs + 64 * g + 32));
        for (int s = 0; s < 4; s++) {
            const __m256i u0 = slot4x(v0, s), u1 = slot4x(v1, s);
            const int8_t *a = xb->qs + 32 * (16 * h + 8 * g + 2 * s); /* chunks 8g + 2s, + 1 of this half */
            for (int b = 0; b < 4; b++) {
                const __m256i y = _mm256_unpacklo_epi64(ciot_bcast8_avx2(a + 8 * b), ciot_bcast8_avx2(a + 32 + 8 * b));
                c[0][b] = _mm256_add_epi16(c[0][b], _mm256_maddubs_epi16(u0, y));
                c[1][b] = _mm256_add_epi16(c[1][b], _mm256_maddubs_epi16(u1, y));
            }
        }
    }
    /* int16 safe: 8 pairs of 12 * 127 = 24384 per lane */
    __m256i hs[4];
    for (int b = 0; b < 4; b++)
        hs[b] = _mm256_hadd_epi32(_mm256_madd_epi16(c[0][b], _mm256_set1_epi16(1)),
                                 _mm256_madd_epi16(c[1][b], _mm256_set1_epi16(1))); /* [R0 R0 R2 R2 | R1 R1 R3 R3] */
    /* hadd of rows b, b + 1: [R0b R2b R0b' R2b' | R1b R3b R1b' R3b'], permuted to [b: R0..R3 | b': R0..R3] */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    *s01 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(hs[0], hs[1]), order);
    *s23 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(hs[2], hs[3]), order);
}

extern const ciot_kernel ciot_k_t2x4_gemm_avx2;
static void gemm(const ciot_mm *mm, int first, int count) {
    if (!ciot_kernel_at_batch(&ciot_k_t2x4_gemm_avx2, mm->batch))
        ciot_tile4x4_gemm_avx2(mm, first, count, block_dot4x4, 1);
    else
        ciot_t2p_slices_gemm_loop(mm, first, count, CIOT_DOT_PER128, 2, ciot_t2x4_decode_slice_avx2,
                                  ciot_slice_block_avx2);
}

CIOT_KERNEL(t2x4_gemm_avx2, t2x4_gemm_ref, .layout = &ciot_layout_t2x4, .act = &ciot_act_q8_Kx4, .op = CIOT_OP_GEMM,
            .features = CIOT_F_AVX2 | CIOT_F_FMA, .compute = gemm, .mac = CIOT_MAC_AVX2_I16,
            .mac_batch = CIOT_T2X4_SLICES_MIN_BATCH_AVX2, .mac_at_batch = CIOT_MAC_AVX2_I16);
