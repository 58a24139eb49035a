/* argmax, AVX2: each lane keeps the first largest of its elements; the lanes' bests then fold to the largest
 * value at the smallest index, which is the reference's first largest (kernels/ops.md). */
#include "ops_avx2.h"
#include "ops_impl.h"

static ciot_argmax_best chunk_best(const float *x, int lo, int hi) {
    __m256 best = _mm256_set1_ps(-__builtin_inff());
    __m256i at = _mm256_set1_epi32(-1), idx = _mm256_setr_epi32(lo, lo + 1, lo + 2, lo + 3, lo + 4, lo + 5, lo + 6, lo + 7);
    const __m256i none = _mm256_set1_epi32(-1), eight = _mm256_set1_epi32(8);
    int i = lo;
    for (; i + 8 <= hi; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        /* strictly larger, or the first non-NaN value of a lane that has none yet */
        __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ),
                                   _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(at, none)),
                                                 _mm256_cmp_ps(v, v, _CMP_ORD_Q)));
        best = _mm256_blendv_ps(best, v, take);
        at = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(at), _mm256_castsi256_ps(idx), take));
        idx = _mm256_add_epi32(idx, eight);
    }
    float bv[8];
    int bi[8];
    _mm256_storeu_ps(bv, best);
    _mm256_storeu_si256((__m256i *)bi, at);
    return ciot_argmax_lanes(bv, bi, 8, x, i, hi);
}

void ciot_argmax_avx2(const ciot_argmax_args *a, int phase, int part, int parts) {
    ciot_argmax_run(a, phase, part, parts, chunk_best);
}
