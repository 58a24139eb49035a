/* attention's pieces shared by the AVX2 and AVX-512 F versions (kernels/ops.md's order; both include this
 * before attention_loop.h): the fold of eight dot products' lane pairs at once, the chunk max, the softmax of
 * a chunk, the combine, and the V block and fetch distance their unit loops use. The 512-bit version widens
 * scores and weighted_v only: the softmax and the combine move a few KiB per unit, not the KV cache. */
#ifndef CIOT_ATTENTION_AVX2_H
#define CIOT_ATTENTION_AVX2_H

#include "ops_avx2.h"
#include "ops_impl.h"

#define V_BLOCK 32 /* positions whose V rows (16 KiB at head dim 256) stay in L1 across the dim blocks */
#define AHEAD 8    /* rows fetched ahead of the one scored: K into L1, V into L2 for weighted_v */

/* The canonical fold of eight lane pairs (lo + hi of up to eight dot products) at once: the same additions
 * as ciot_fold16_avx2 on each, by shuffles across the eight; lane i of the result is the fold of s[i]. */
static inline __m256 fold16_x8(const __m256 s[8]) {
    __m256 t[4], u[2];
    for (int i = 0; i < 4; i++) /* j + 4: the two 128-bit halves of s[2i] and s[2i+1] */
        t[i] = _mm256_add_ps(_mm256_permute2f128_ps(s[2 * i], s[2 * i + 1], 0x20),
                             _mm256_permute2f128_ps(s[2 * i], s[2 * i + 1], 0x31));
    for (int i = 0; i < 2; i++) /* j + 2 */
        u[i] = _mm256_add_ps(_mm256_shuffle_ps(t[2 * i], t[2 * i + 1], 0x44), _mm256_shuffle_ps(t[2 * i], t[2 * i + 1], 0xee));
    /* j + 1; the lanes come out as s0 s2 s4 s6 | s1 s3 s5 s7 in halves: put them in order */
    __m256 r = _mm256_add_ps(_mm256_shuffle_ps(u[0], u[1], 0x88), _mm256_shuffle_ps(u[0], u[1], 0xdd));
    return _mm256_permutevar8x32_ps(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The canonical max (e[0], then each larger) eight lanes at a time: max_ps(x, m) is x > m ? x : m, so a NaN
 * e[0] stays and a later NaN never wins, as in the scalar order. Lanes holding equal values agree bit for bit
 * unless the max is a zero (+0 and -0 compare equal): then the first one, in order, decides. */
static inline float chunk_max(const float *e, int n) {
    int p = 0;
    __m256 mv = _mm256_set1_ps(e[0]);
    for (; p + 8 <= n; p += 8) mv = _mm256_max_ps(_mm256_loadu_ps(e + p), mv);
    float l[8], m = e[0];
    _mm256_storeu_ps(l, mv);
    for (int j = 0; j < 8; j++) m = l[j] > m ? l[j] : m;
    if (m == 0.0f)
        for (int i = 0; i < p; i++) m = i == 0 || e[i] > m ? e[i] : m;
    for (; p < n; p++) m = e[p] > m ? e[p] : m;
    return m;
}

/* exp(s - max) in place (zero past n, up to the next 16), the max and the sum of the exps into the record. */
static inline void softmax_part(float *e, int n, float *rec, int D) {
    float m = chunk_max(e, n);
    int n16 = (n + 15) & ~15;
    for (int p = n; p < n16; p++) e[p] = 0.0f;
    __m256 mv = _mm256_set1_ps(m), lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    for (int p = 0; p < n16; p += 16) {
        __m256 e0 = ciot_exp8(_mm256_sub_ps(_mm256_loadu_ps(e + p), mv));
        __m256 e1 = ciot_exp8(_mm256_sub_ps(_mm256_loadu_ps(e + p + 8), mv));
        /* the padding's exps are thrown away: it adds zeros */
        if (p + 8 > n) e0 = _mm256_and_ps(e0, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(n - p), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))));
        if (p + 16 > n) e1 = _mm256_and_ps(e1, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(n - p - 8), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))));
        _mm256_storeu_ps(e + p, e0);
        _mm256_storeu_ps(e + p + 8, e1);
        lo = _mm256_add_ps(lo, e0);
        hi = _mm256_add_ps(hi, e1);
    }
    rec[D] = m;
    rec[D + 1] = ciot_fold16_avx2(lo, hi);
}

/* Phase 1: the chunks of query head qh rescaled to the common max, in chunk order, then the output gate. */
static inline void combine(const ciot_attention_args *a, int qh) {
    int D = a->head_dim, nc = ciot_attention_chunks(a);
    float M = ciot_attention_max(a, qh);
    float sum = 0.0f, *out = a->out + (size_t)qh * D;
    for (int d = 0; d < D; d += 8) _mm256_storeu_ps(out + d, _mm256_setzero_ps());
    for (int c = 0; c < nc; c++) {
        const float *rec = ciot_attention_rec(a, qh, c);
        float fc = ciot_ops_expf(rec[D] - M);
        sum = fmaf(rec[D + 1], fc, sum);
        __m256 f = _mm256_set1_ps(fc);
        for (int d = 0; d < D; d += 8)
            _mm256_storeu_ps(out + d, _mm256_fmadd_ps(_mm256_loadu_ps(rec + d), f, _mm256_loadu_ps(out + d)));
    }
    const float *gate = a->gate + (size_t)qh * a->q_stride;
    __m256 s = _mm256_set1_ps(sum);
    for (int d = 0; d < D; d += 8)
        _mm256_storeu_ps(out + d, _mm256_mul_ps(_mm256_div_ps(_mm256_loadu_ps(out + d), s), ciot_sigmoid8(_mm256_loadu_ps(gate + d))));
}

#endif
