/* deltanet, AVX2: the reference's order (kernels/ops.md), eight channels or state columns at a time. Phase 1
 * reads each state row from memory once: S k, then the update and S q on the row while it is in L1, four rows
 * of a head side by side (rows(): why), which runs faster than one row at a time.
 * Software prefetch (on unless a->prefetch is 0): each group fetches rows ahead into L1, so its S k (the
 * chain the update waits on) loads from L1. How far ahead depends on the vendor (results/kernel-bounds.md,
 * "DeltaNet", has the figures):
 * - Intel: the next group (the row after next beat 8 rows ahead and the policy's L2 fetch, one row at a time).
 * - AMD: 8 rows ahead (4 KiB), which beat the row after next; a far fetch beat none, and 4 to 32 rows ahead
 *   measured the same with groups of four. */
#include "ops_avx2.h"
#include "cpu.h"
#include "ops_impl.h"
#include "deltanet_phase0.h"

/* The conv and SiLU of n channels (deltanet_phase0.h: the arguments). */
static inline __attribute__((always_inline)) void conv_channels(const float *qkv, float *st, const float *w,
                                                                float *dst, size_t C, int n, const int taps) {
    for (int i = 0; i < n; i += 8) {
        __m256 x = _mm256_loadu_ps(qkv + i), acc = _mm256_setzero_ps();
        for (int t = 0; t < taps - 1; t++)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + t * C + i), _mm256_loadu_ps(st + t * C + i), acc);
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(w + (taps - 1) * C + i), x, acc);
        for (int t = 0; t < taps - 2; t++) _mm256_storeu_ps(st + t * C + i, _mm256_loadu_ps(st + (t + 1) * C + i));
        _mm256_storeu_ps(st + (taps - 2) * C + i, x);
        _mm256_storeu_ps(dst + i, ciot_silu8(acc));
    }
}

static inline void scale(float *x, int n, float mul) {
    const __m256 m = _mm256_set1_ps(mul);
    for (int i = 0; i < n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), m));
}

/* Floats ahead: AMD 8 rows, Intel 2 (measured: above), at least the next group; 0 with the policy off. */
long ciot_deltanet_fetch_ahead(const ciot_deltanet_args *a, int group) {
    long rows = ciot_cpu_is_amd() ? 8 : 2;
    return a->prefetch ? (rows > group ? rows : group) * (long)a->head_dim : 0;
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
    __m256 lo[ROWS], hi[ROWS], uv[ROWS];
    for (int j = 0; j < R; j++) lo[j] = hi[j] = _mm256_setzero_ps();
    for (int i = 0; i < D; i += 16) {
        __m256 k0 = _mm256_loadu_ps(k + i), k1 = _mm256_loadu_ps(k + i + 8);
        for (int j = 0; j < R; j++) {
            lo[j] = _mm256_fmadd_ps(_mm256_loadu_ps(S + (size_t)j * D + i), k0, lo[j]);
            hi[j] = _mm256_fmadd_ps(_mm256_loadu_ps(S + (size_t)j * D + i + 8), k1, hi[j]);
        }
    }
    for (int j = 0; j < R; j++) {
        uv[j] = _mm256_set1_ps((s.v[r + j] - decay * ciot_fold16_avx2(lo[j], hi[j])) * g.beta);
        lo[j] = hi[j] = _mm256_setzero_ps();
    }
    const __m256 dv = _mm256_set1_ps(decay);
    for (int i = 0; i < D; i += 16) {
        __m256 k0 = _mm256_loadu_ps(k + i), k1 = _mm256_loadu_ps(k + i + 8);
        for (int j = 0; j < R; j++) {
            float *Sj = S + (size_t)j * D + i;
            __m256 s0 = _mm256_fmadd_ps(k0, uv[j], _mm256_mul_ps(dv, _mm256_loadu_ps(Sj)));
            __m256 s1 = _mm256_fmadd_ps(k1, uv[j], _mm256_mul_ps(dv, _mm256_loadu_ps(Sj + 8)));
            _mm256_storeu_ps(Sj, s0);
            _mm256_storeu_ps(Sj + 8, s1);
            lo[j] = _mm256_fmadd_ps(s0, _mm256_loadu_ps(q + i), lo[j]);
            hi[j] = _mm256_fmadd_ps(s1, _mm256_loadu_ps(q + i + 8), hi[j]);
        }
    }
    for (int j = 0; j < R; j++) a->out[r + j] = ciot_fold16_avx2(lo[j], hi[j]);
}

void ciot_deltanet_avx2(const ciot_deltanet_args *a, int phase, int part, int parts) {
    if (phase == 0) {
        ciot_deltanet_phase0(a, part, parts, conv_channels, ciot_dot_avx2, scale);
    } else {
        long lo, hi;
        ciot_deltanet_share_rows(a, part, parts, &lo, &hi);
        ciot_deltanet_groups(a, lo, hi, ROWS, ciot_deltanet_fetch_ahead(a, ROWS), rows);
    }
}
