/* deltanet, AVX-512 F: phase 1 (the state rows) in zmm; phase 0 (the conv, norms and gates) is AVX2's. A zmm
 * register holds the 16 canonical lanes of a dot product in order, so S k and S q are one accumulator each and
 * the row takes half the AVX2 version's multiply-adds, loads and stores: more rows are in flight while the
 * bus streams (results/kernel-bounds.md, "DeltaNet"). The fetch ahead is AVX2's (x86/deltanet_avx2.c gives
 * the distances and why). */
#if !defined(__AVX512F__) || !defined(__FMA__)
#error "deltanet_avx512f.c needs -mavx512f -mfma (cmake/isa.cmake gives them to *_avx512f.c)"
#endif
#include "ops_avx2.h"
#include "ops_impl.h"

/* The 16 canonical lanes of one zmm folded j + 8, + 4, + 2, + 1. */
static inline float fold16(__m512 acc) {
    return ciot_fold16_avx2(_mm512_castps512_ps256(acc),
                            _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1)));
}

/* Rows r .. r + R - 1 of one head side by side, each in the reference's order (kernels/ops.md: why). */
#define ROWS 4
static inline __attribute__((always_inline)) void rows(const ciot_deltanet_args *a, ciot_deltanet_scratch s, long r,
                                                        int R, long ahead) {
    const int D = a->head_dim;
    const ciot_deltanet_head_rows g = ciot_deltanet_rows_at(a, s, r);
    float *S = g.S;
    if (ahead)
        for (int i = 0; i < R * D; i += 16) _mm_prefetch((const char *)(S + ahead + i), _MM_HINT_T0);
    const float *k = g.k, *q = g.q, decay = g.decay;
    __m512 acc[ROWS], uv[ROWS];
    for (int j = 0; j < R; j++) acc[j] = _mm512_setzero_ps();
    for (int i = 0; i < D; i += 16) {
        __m512 kv = _mm512_loadu_ps(k + i);
        for (int j = 0; j < R; j++) acc[j] = _mm512_fmadd_ps(_mm512_loadu_ps(S + (size_t)j * D + i), kv, acc[j]);
    }
    for (int j = 0; j < R; j++) {
        uv[j] = _mm512_set1_ps((s.v[r + j] - decay * fold16(acc[j])) * g.beta);
        acc[j] = _mm512_setzero_ps();
    }
    const __m512 dv = _mm512_set1_ps(decay);
    for (int i = 0; i < D; i += 16) {
        __m512 kv = _mm512_loadu_ps(k + i), qv = _mm512_loadu_ps(q + i);
        for (int j = 0; j < R; j++) {
            float *Sj = S + (size_t)j * D + i;
            __m512 x = _mm512_fmadd_ps(kv, uv[j], _mm512_mul_ps(dv, _mm512_loadu_ps(Sj)));
            _mm512_storeu_ps(Sj, x);
            acc[j] = _mm512_fmadd_ps(x, qv, acc[j]);
        }
    }
    for (int j = 0; j < R; j++) a->out[r + j] = fold16(acc[j]);
}

void ciot_deltanet_avx512f(const ciot_deltanet_args *a, int phase, int part, int parts) {
    if (phase == 0) {
        ciot_deltanet_avx2(a, phase, part, parts);
        return;
    }
    long lo, hi;
    ciot_deltanet_share_rows(a, part, parts, &lo, &hi);
    ciot_deltanet_groups(a, lo, hi, ROWS, ciot_deltanet_fetch_ahead(a, ROWS), rows);
}
