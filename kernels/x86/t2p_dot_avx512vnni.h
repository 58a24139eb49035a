#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__)
#error "t2p_dot_avx512vnni.h needs -mavx512f -mavx512bw -mavx512vl -mavx512vnni (include it from *_avx512vnni.c only)"
#endif
/* The AVX-512 VNNI block dots over T2P bytes (vpdpbusd: four products accumulated in int32), shared by the
 * kernels of T2P made from PQ2_0 and from TQ2_0: one 128-block of a 4-row tile against prepared Q8_K
 * activations (gemv: one zmm is a whole pair p, bytes 64p .. 64p + 63) or against one Q8_Kx4 group (gemm:
 * word w of both pairs broadcast to a zmm). Byte 64p + 16w + j holds, in slot s, row 2p + (j >= 8),
 * weight 8 (4w + s) + (j & 7). */
#ifndef CIOT_X86_T2P_DOT_AVX512VNNI_H
#define CIOT_X86_T2P_DOT_AVX512VNNI_H

#include "formats.h"
#include "t2p_dot_avx2.h"

/* 4 * (u . y) of the four rows of one block, u the codes 0..3, as [r0 r1 r2 r3]. */
static inline __m128i ciot_t2p_dot4x_avx512vnni(const uint8_t *qs, const ciot_t2p_act_avx2 *a) {
    const __m512i m3 = _mm512_set1_epi8(3), mc = _mm512_set1_epi8(0x0c);
    __m256i m[2];
    for (int p = 0; p < 2; p++) {
        const __m512i v = _mm512_loadu_si512(qs + 64 * p);
        const __m512i t = _mm512_srli_epi16(v, 4); /* slots 2, 3 down to bits 0..3 (bytes stay clean) */
        /* slots 0, 2 as u, slots 1, 3 as 4u; int32 lanes, far from overflow */
        __m512i c1 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(v, m3), _mm512_loadu_si512(a->y[0]));
        __m512i c4 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(v, mc), _mm512_loadu_si512(a->y[1]));
        c1 = _mm512_dpbusd_epi32(c1, _mm512_and_si512(t, m3), _mm512_loadu_si512(a->y[2]));
        c4 = _mm512_dpbusd_epi32(c4, _mm512_and_si512(t, mc), _mm512_loadu_si512(a->y[3]));
        const __m512i s = _mm512_add_epi32(_mm512_slli_epi32(c1, 2), c4);
        m[p] = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    }
    return ciot_t2p_rows4_avx2(m); /* m[p] = [r2p r2p r2p+1 r2p+1 | same] */
}

/* One 128-block (half h of xb): 4 * (u . y) as [b0: R0..R3 | b1: R0..R3] and [b2 | b3]. */
static inline void ciot_t2p_dot4x4_avx512vnni(const uint8_t *qs, const block_q8_Kx4 *xb, int h, __m256i *s01, __m256i *s23) {
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

#endif
