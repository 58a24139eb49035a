#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__) || \
    !defined(__FMA__) || !defined(__F16C__)
#error "t2p_gemm_avx512vnni.c needs -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mf16c (cmake/isa.cmake gives it to *_avx512vnni.c)"
#endif
/* t2p_gemm_avx512vnni: T2P weights x Q8_Kx4 groups with AVX-512 VNNI, tile = 4 weight x 4 activation rows.
 * Word w of both pairs is broadcast to a zmm [R01 | R23 | R01 | R23] whose halves are decoded as slots s
 * and s + 1, lining up with Q8_Kx4 chunks 4w + s, + 1 of all rows: 64 contiguous bytes, one load. Swapping
 * the activations' 8-byte halves and the weights' row pairs gives the other pairings (all 16 dots).
 * A partial last group runs once as a full tile (zero padding rows); only real rows are written.
 * K % 256 == 0; F16C converts the scales. */
#include "formats.h"
#include "kernel.h"
#include "prefetch.h"
#include "tile4x4_avx2.h"

/* One 128-block (half h of xb): 4 * (u . y) as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void block_dot4x4(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23) {
    /* low half takes slot s as u (mask 3), high half slot s + 1 as 4u (mask 0x0c, bits in place) */
    const __m512i mask = _mm512_inserti64x4(_mm512_set1_epi8(3), _mm256_set1_epi8(0x0c), 1);
    /* c[k]: k = 0 (R0b0 R1b1 | R2b2 R3b3), 1 (R0b1 R1b0 | R2b3 R3b2), 2 (R2b0 R3b1 | R0b2 R1b3),
     * 3 (R2b1 R3b0 | R0b3 R1b2), per 16-byte lane; the low 256 bits count u, the high ones 4u */
    __m512i c[4][2]; /* two chains per pairing (even, odd word) so vpdpbusd latency overlaps */
    for (int k = 0; k < 4; k++) c[k][0] = c[k][1] = _mm512_setzero_si512();
    for (int w = 0; w < 4; w++) {
        const __m512i p0 = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(qs + 16 * w)));
        const __m512i p1 = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(qs + 64 + 16 * w)));
        const __m512i v = _mm512_mask_blend_epi64(0xcc, p0, p1), vs = _mm512_mask_blend_epi64(0x33, p0, p1);
        const __m512i t = _mm512_srli_epi16(v, 4), ts = _mm512_srli_epi16(vs, 4); /* slots 2, 3 to bits 0..3 */
        const __m512i u01 = _mm512_and_si512(v, mask), u23 = _mm512_and_si512(t, mask);
        const __m512i u01s = _mm512_and_si512(vs, mask), u23s = _mm512_and_si512(ts, mask);
        const int8_t *a = xb->qs + 32 * (16 * h + 4 * w); /* chunks 4w .. 4w + 3, all rows */
        const __m512i y01 = _mm512_loadu_si512(a), y23 = _mm512_loadu_si512(a + 64);
        const __m512i y01x = _mm512_shuffle_epi32(y01, 0x4e), y23x = _mm512_shuffle_epi32(y23, 0x4e); /* b10, b32 */
        __m512i *e = &c[0][w & 1];
        e[0] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(e[0], u01, y01), u23, y23);
        e[2] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(e[2], u01, y01x), u23, y23x);
        e[4] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(e[4], u01s, y01), u23s, y23);
        e[6] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(e[6], u01s, y01x), u23s, y23x);
    }
    __m256i m[4];
    for (int k = 0; k < 4; k++) { /* 4 * (u part) + (4u part) */
        const __m512i ck = _mm512_add_epi32(c[k][0], c[k][1]);
        m[k] = _mm256_add_epi32(_mm256_slli_epi32(_mm512_castsi512_si256(ck), 2), _mm512_extracti64x4_epi64(ck, 1));
    }
    /* h01 = [R0b0 R1b1 R0b1 R1b0 | R2b2 R3b3 R2b3 R3b2], h23 = [R2b0 R3b1 R2b1 R3b0 | R0b2 R1b3 R0b3 R1b2] */
    const __m256i h01 = _mm256_hadd_epi32(m[0], m[1]), h23 = _mm256_hadd_epi32(m[2], m[3]);
    *s01 = _mm256_permutex2var_epi32(h01, _mm256_setr_epi32(0, 3, 8, 11, 2, 1, 10, 9), h23);
    *s23 = _mm256_permutex2var_epi32(h01, _mm256_setr_epi32(12, 15, 4, 7, 14, 13, 6, 5), h23);
}

static void t2p_gemm_avx512vnni(const ciot_mm *mm, int first, int count) {
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

const ciot_kernel ciot_k_t2p_gemm_avx512vnni = {
    "t2p_gemm_avx512vnni", &ciot_layout_t2p, &ciot_act_q8_Kx4, CIOT_OP_GEMM, CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA,
    "t2p_gemm_ref", t2p_gemm_avx512vnni,
};
