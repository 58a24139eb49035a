#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemm_avx2.c needs -mavx2 -mfma -mf16c (cmake/isa.cmake gives it to *_avx2.c)"
#endif
/* t2p_gemm_avx2: T2P weights times a batch of Q8_Kx4 activation groups, tile = 4 weight rows x 4
 * activation rows. Reads T2P as in t2p_gemv_avx2 (one ymm per word w: [row0 | row1 | row2 | row3] x 8
 * weights of chunk 4w + s) and Q8_Kx4 qs[32c + 8b + e]: activation row b's chunk c is one 8-byte
 * broadcast, so each decoded slot vector is used by four multiplies. A partial last group runs once as a
 * full tile (its padding rows are zero); only real rows are written. Needs K % 256 == 0; F16C. */
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "tile4x4_avx2.h"

/* One 128-block (half h of the Q8_Kx4 block xb): 4 * (u . y) for the 16 (weight row, activation row)
 * pairs as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void block_dot4x4(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23) {
    const __m256i m3 = _mm256_set1_epi8(3), mc = _mm256_set1_epi8(0x0c);
    __m256i c1[4], c4[4];
    for (int b = 0; b < 4; b++) c1[b] = c4[b] = _mm256_setzero_si256();
    for (int w = 0; w < 4; w++) {
        const __m256i v = ciot_load2x16(qs + 16 * w, qs + 64 + 16 * w);
        const __m256i t = _mm256_srli_epi16(v, 4); /* slot 2 and 3 bits down to 0..3 (bytes stay clean) */
        const __m256i u0 = _mm256_and_si256(v, m3), u1 = _mm256_and_si256(v, mc);
        const __m256i u2 = _mm256_and_si256(t, m3), u3 = _mm256_and_si256(t, mc);
        const int8_t *a = xb->qs + 32 * (16 * h + 4 * w); /* chunk 4w of this half; row b at +8b */
        for (int b = 0; b < 4; b++) {
            c1[b] = _mm256_add_epi16(c1[b], _mm256_add_epi16(_mm256_maddubs_epi16(u0, ciot_bcast8(a + 8 * b)),
                                                             _mm256_maddubs_epi16(u2, ciot_bcast8(a + 64 + 8 * b))));
            c4[b] = _mm256_add_epi16(c4[b], _mm256_add_epi16(_mm256_maddubs_epi16(u1, ciot_bcast8(a + 32 + 8 * b)),
                                                             _mm256_maddubs_epi16(u3, ciot_bcast8(a + 96 + 8 * b))));
        }
    }
    /* int16 safe: c1 sums 8 pairs of 3 * 127 (6096), c4 8 pairs of 12 * 127 (24384) */
    __m256i t[4];
    for (int b = 0; b < 4; b++)
        t[b] = _mm256_add_epi32(_mm256_madd_epi16(c1[b], _mm256_set1_epi16(4)), _mm256_madd_epi16(c4[b], _mm256_set1_epi16(1)));
    /* t[b] = [R0 R0 R1 R1 | R2 R2 R3 R3]; hadd pairs rows b, b + 1, the permute restores R order */
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    *s01 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(t[0], t[1]), order);
    *s23 = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(t[2], t[3]), order);
}

static void t2p_gemm_avx2(const ciot_mm *mm, int first, int count) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K, groups = (mm->batch + 3) / 4;
    const block_q8_Kx4 *x = mm->x;
    for (int tile = first; tile < first + count; tile++) {
        const block_t2p *w = (const block_t2p *)mm->w + (size_t)tile * nb;
        for (int bg = 0; bg < groups; bg++) {
            const block_q8_Kx4 *xg = x + (size_t)bg * nbk;
            __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int i = 0; i < nb; i++) {
                ciot_prefetch(&w[i], sizeof w[i], mm->prefetch);
                __m256i s01, s23;
                block_dot4x4(w[i].qs, &xg[i >> 1], i & 1, &s01, &s23);
                ciot_tile4x4_step(acc, s01, s23, &xg[i >> 1], i & 1, w[i].d);
            }
            const int n = mm->batch - 4 * bg < 4 ? mm->batch - 4 * bg : 4;
            ciot_tile4x4_store(acc, n, mm->y + (size_t)4 * bg * mm->ldy + 4 * tile, mm->ldy);
        }
    }
}

const ciot_kernel ciot_k_t2p_gemm_avx2 = {
    "t2p_gemm_avx2", &ciot_layout_t2p, &ciot_act_q8_Kx4, CIOT_OP_GEMM, CIOT_F_AVX2 | CIOT_F_FMA, "t2p_gemm_ref",
    t2p_gemm_avx2,
};
