/* deltanet, NEON: the reference's order (kernels/ops.md), four channels or state columns at a time. Phase 1
 * reads each state row from memory once: S k, then the update and S q on the row while it is in L1. */
#include "ops_impl.h"
#include "ops_neon.h"
#include "prefetch.h"

static void conv_unit(const ciot_deltanet_args *a, int u) {
    int D = a->head_dim, C = ciot_deltanet_channels(a), taps = a->conv;
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    float *dst = s.q + (size_t)u * D;
    for (int i = 0; i < D; i += 4) {
        size_t c = (size_t)u * D + i;
        float32x4_t x = vld1q_f32(a->qkv + c), acc = vdupq_n_f32(0.0f);
        for (int t = 0; t < taps - 1; t++)
            acc = vfmaq_f32(acc, vld1q_f32(a->conv_w + t * (size_t)C + c), vld1q_f32(a->conv_state + t * (size_t)C + c));
        acc = vfmaq_f32(acc, vld1q_f32(a->conv_w + (taps - 1) * (size_t)C + c), x);
        for (int t = 0; t < taps - 2; t++)
            vst1q_f32(a->conv_state + t * (size_t)C + c, vld1q_f32(a->conv_state + (t + 1) * (size_t)C + c));
        vst1q_f32(a->conv_state + (taps - 2) * (size_t)C + c, x);
        vst1q_f32(dst + i, ciot_silu4(acc));
    }
    if (u < 2 * a->k_heads) {
        float mul = 1.0f / sqrtf(ciot_dot_neon(dst, dst, D) + a->eps);
        if (u < a->k_heads) mul = mul * (1.0f / sqrtf((float)D));
        for (int i = 0; i < D; i += 4) vst1q_f32(dst + i, vmulq_n_f32(vld1q_f32(dst + i), mul));
    } else {
        ciot_deltanet_gates(a, u - 2 * a->k_heads);
    }
}

static void state_rows(const ciot_deltanet_args *a, long lo, long hi) {
    int D = a->head_dim, per_k = a->v_heads / a->k_heads;
    ciot_deltanet_scratch s = ciot_deltanet_scratch_of(a);
    for (long r = lo; r < hi; r++) {
        int h = (int)(r / D);
        float *S = a->state + r * D;
        ciot_prefetch(S, (size_t)D * sizeof *S, a->prefetch); /* the policy (the AVX2 version fetches otherwise) */
        const float *k = s.k + (size_t)(h / per_k) * D, *q = s.q + (size_t)(h / per_k) * D;
        float decay = s.decay[h];
        float u = (s.v[r] - decay * ciot_dot_neon(S, k, D)) * s.beta[h];
        float32x4_t dv = vdupq_n_f32(decay), uv = vdupq_n_f32(u), acc[4];
        for (int j = 0; j < 4; j++) acc[j] = vdupq_n_f32(0.0f);
        for (int i = 0; i < D; i += 16)
            for (int j = 0; j < 4; j++) {
                float32x4_t sn = vfmaq_f32(vmulq_f32(dv, vld1q_f32(S + i + 4 * j)), vld1q_f32(k + i + 4 * j), uv);
                vst1q_f32(S + i + 4 * j, sn);
                acc[j] = vfmaq_f32(acc[j], sn, vld1q_f32(q + i + 4 * j));
            }
        a->out[r] = ciot_fold16_neon(acc[0], acc[1], acc[2], acc[3]);
    }
}

void ciot_deltanet_neon(const ciot_deltanet_args *a, int phase, int part, int parts) {
    long lo, hi;
    if (phase == 0) {
        ciot_ops_share(2 * a->k_heads + a->v_heads, part, parts, &lo, &hi);
        for (long u = lo; u < hi; u++) conv_unit(a, (int)u);
    } else {
        ciot_ops_share((long)a->v_heads * a->head_dim, part, parts, &lo, &hi);
        state_rows(a, lo, hi);
    }
}
