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
    int32_t bi[4];
    vst1q_f32(bv, best);
    vst1q_s32(bi, at);
    ciot_argmax_best b = {-__builtin_inff(), -1};
    for (int j = 0; j < 4; j++)
        if (bi[j] >= 0 && (b.index < 0 || bv[j] > b.value || (bv[j] == b.value && bi[j] < b.index)))
            b = (ciot_argmax_best){bv[j], bi[j]};
    for (; i < hi; i++)
        if (x[i] > b.value || (b.index < 0 && x[i] == x[i])) b = (ciot_argmax_best){x[i], i};
    return b;
}

void ciot_argmax_neon(const ciot_argmax_args *a, int phase, int part, int parts) {
    if (phase == 1) {
        if (part == 0) ciot_argmax_combine(a);
        return;
    }
    long lo, hi;
    ciot_ops_share(ciot_argmax_chunks(a), part, parts, &lo, &hi);
    ciot_argmax_best *out = a->scratch;
    for (long c = lo; c < hi; c++) {
        long end = (c + 1) * CIOT_ARGMAX_CHUNK < a->n ? (c + 1) * CIOT_ARGMAX_CHUNK : a->n;
        out[c] = chunk_best(a->x, (int)(c * CIOT_ARGMAX_CHUNK), (int)end);
    }
}
