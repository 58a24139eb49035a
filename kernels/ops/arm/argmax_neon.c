/* argmax, NEON: each lane keeps the first largest of its elements; the lanes' bests then fold to the largest
 * value at the smallest index, which is the reference's first largest (kernels/ops.md). */
#include "ops_impl.h"
#include "ops_neon.h"

static ciot_argmax_best chunk_best(const float *x, int lo, int hi) {
    float32x4_t best = vdupq_n_f32(-__builtin_inff());
    int32x4_t at = vdupq_n_s32(-1);
    const int32_t start[4] = {lo, lo + 1, lo + 2, lo + 3};
    int32x4_t idx = vld1q_s32(start);
    int i = lo;
    for (; i + 4 <= hi; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        /* strictly larger, or the first non-NaN value of a lane that has none yet */
        uint32x4_t take = vorrq_u32(vcgtq_f32(v, best), vandq_u32(vceqq_s32(at, vdupq_n_s32(-1)), vceqq_f32(v, v)));
        best = vbslq_f32(take, v, best);
        at = vbslq_s32(take, idx, at);
        idx = vaddq_s32(idx, vdupq_n_s32(4));
    }
    float bv[4];
    int bi[4];
    vst1q_f32(bv, best);
    vst1q_s32(bi, at);
    return ciot_argmax_lanes(bv, bi, 4, x, i, hi);
}

void ciot_argmax_neon(const ciot_argmax_args *a, int phase, int part, int parts) {
    ciot_argmax_run(a, phase, part, parts, chunk_best);
}
