/* rmsnorm, AVX2: the reference's order (kernels/ops.md), eight lanes at a time. */
#include "ops_avx2.h"
#include "ops_impl.h"

void ciot_rmsnorm_avx2(const ciot_rmsnorm_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->rows, part, parts, &lo, &hi);
    int stride = ciot_rmsnorm_stride(a);
    for (long r = lo; r < hi; r++) {
        const float *x = a->x + r * stride;
        float *y = a->y + r * stride;
        __m256 inv = _mm256_set1_ps(1.0f / sqrtf(ciot_dot_avx2(x, x, a->n) / (float)a->n + a->eps));
        for (int i = 0; i < a->n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), inv), _mm256_loadu_ps(a->w + i)));
    }
}
