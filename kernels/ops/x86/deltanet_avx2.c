/* deltanet, AVX2: the reference's order (kernels/ops.md), eight channels or state columns at a time. Phase 1
 * reads each state row from memory once: S k, then the update and S q on the row while it is in L1.
 * Software prefetch (on unless a->prefetch is 0): each row fetches a row ahead into L1, so the row's S k (the
 * chain the update waits on) loads from L1. How far ahead was measured per vendor:
 * - Intel Xeon (bench_token_ops, 3 interleaved rounds, % of the paired update probe): the row after next ran
 *   85.4-86.9 at 1 thread and 81.9-83.0 at 2; with the policy's fetch 8 KiB ahead into L2 beside it
 *   76.5-77.8 and 78.6-79.5; the policy's fetch alone 72.4-75.8 and 74.7-78.9; 8 rows ahead 82.9-84.0 and
 *   82.9-83.2.
 * - AMD Zen 5 (ciot replay, 1 thread, 5 interleaved rounds): 8 rows ahead (4 KiB) 70.9-87.1% against the
 *   row after next's 60.6-71.3; at 2 threads (3 rounds) 56.9-63.4 against 58.8-62.4, the same. On Zen 3 the
 *   policy's 8 KiB ahead had beaten no fetch (17.4 GB/s of read + write against 14.0), so AMD keeps a far
 *   fetch rather than none. */
#include "ops_avx2.h"
#include "cpu.h"
#include "ops_impl.h"

static void conv_unit(const ciot_deltanet_args *a, int u) {
    int D = a->head_dim, C = ciot_deltanet_channels(a), taps = a->conv;
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    float *dst = s.q + (size_t)u * D;
    for (int i = 0; i < D; i += 8) {
        size_t c = (size_t)u * D + i;
        __m256 x = _mm256_loadu_ps(a->qkv + c), acc = _mm256_setzero_ps();
        for (int t = 0; t < taps - 1; t++)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(a->conv_w + t * (size_t)C + c), _mm256_loadu_ps(a->conv_state + t * (size_t)C + c), acc);
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(a->conv_w + (taps - 1) * (size_t)C + c), x, acc);
        for (int t = 0; t < taps - 2; t++)
            _mm256_storeu_ps(a->conv_state + t * (size_t)C + c, _mm256_loadu_ps(a->conv_state + (t + 1) * (size_t)C + c));
        _mm256_storeu_ps(a->conv_state + (taps - 2) * (size_t)C + c, x);
        _mm256_storeu_ps(dst + i, ciot_silu8(acc));
    }
    if (u < 2 * a->k_heads) {
        float mul = 1.0f / sqrtf(ciot_dot_avx2(dst, dst, D) + a->eps);
        if (u < a->k_heads) mul = mul * (1.0f / sqrtf((float)D));
        __m256 m = _mm256_set1_ps(mul);
        for (int i = 0; i < D; i += 8) _mm256_storeu_ps(dst + i, _mm256_mul_ps(_mm256_loadu_ps(dst + i), m));
    } else {
        ciot_deltanet_gates(a, u - 2 * a->k_heads);
    }
}

static void state_rows(const ciot_deltanet_args *a, long lo, long hi) {
    int D = a->head_dim, per_k = a->v_heads / a->k_heads;
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    const long ahead = a->prefetch ? (ciot_cpu_is_amd() ? 8L : 2L) * D : 0; /* rows ahead: above */
    for (long r = lo; r < hi; r++) {
        int h = (int)(r / D);
        float *S = a->state + r * D;
        if (ahead)
            for (int i = 0; i < D; i += 16) _mm_prefetch((const char *)(S + ahead + i), _MM_HINT_T0);
        const float *k = s.k + (size_t)(h / per_k) * D, *q = s.q + (size_t)(h / per_k) * D;
        float decay = s.decay[h];
        float u = (s.v[r] - decay * ciot_dot_avx2(S, k, D)) * s.beta[h];
        __m256 dv = _mm256_set1_ps(decay), uv = _mm256_set1_ps(u);
        __m256 lo8 = _mm256_setzero_ps(), hi8 = _mm256_setzero_ps();
        for (int i = 0; i < D; i += 16) {
            __m256 s0 = _mm256_fmadd_ps(_mm256_loadu_ps(k + i), uv, _mm256_mul_ps(dv, _mm256_loadu_ps(S + i)));
            __m256 s1 = _mm256_fmadd_ps(_mm256_loadu_ps(k + i + 8), uv, _mm256_mul_ps(dv, _mm256_loadu_ps(S + i + 8)));
            _mm256_storeu_ps(S + i, s0);
            _mm256_storeu_ps(S + i + 8, s1);
            lo8 = _mm256_fmadd_ps(s0, _mm256_loadu_ps(q + i), lo8);
            hi8 = _mm256_fmadd_ps(s1, _mm256_loadu_ps(q + i + 8), hi8);
        }
        a->out[r] = ciot_fold16_avx2(lo8, hi8);
    }
}

void ciot_deltanet_avx2(const ciot_deltanet_args *a, int phase, int part, int parts) {
    long lo, hi;
    if (phase == 0) {
        ciot_ops_share(2 * a->k_heads + a->v_heads, part, parts, &lo, &hi);
        for (long u = lo; u < hi; u++) conv_unit(a, (int)u);
    } else {
        ciot_ops_share((long)a->v_heads * a->head_dim, part, parts, &lo, &hi);
        state_rows(a, lo, hi);
    }
}
