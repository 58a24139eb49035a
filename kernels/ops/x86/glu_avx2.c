/* glu and the residual add, AVX2: the reference per element (kernels/ops.md). */
#include "ops_avx2.h"
#include "ops_impl.h"

void ciot_glu_avx2(const ciot_glu_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->n, part, parts, &lo, &hi);
    long i = lo;
    if (a->mode == CIOT_GLU_ADD) {
        for (; i + 8 <= hi; i += 8)
            _mm256_storeu_ps(a->y + i, _mm256_add_ps(_mm256_loadu_ps(a->y + i), _mm256_loadu_ps(a->up + i)));
        for (; i < hi; i++) a->y[i] = a->y[i] + a->up[i];
    } else {
        for (; i + 8 <= hi; i += 8)
            _mm256_storeu_ps(a->y + i, _mm256_mul_ps(ciot_silu8(_mm256_loadu_ps(a->gate + i)), _mm256_loadu_ps(a->up + i)));
        for (; i < hi; i++) a->y[i] = ciot_ops_siluf(a->gate[i]) * a->up[i];
    }
}
