/* deltanet, NEON: the reference's order (kernels/ops.md), four channels or state columns at a time. Phase 1
 * reads each state row from memory once: S k, then the update and S q on the row while it is in L1, four rows
 * of a head side by side (rows(): why). */
#include "ops_impl.h"
#include "deltanet_phase0.h"
#include "ops_neon.h"
#include "prefetch.h"

/* The conv and SiLU of n channels (deltanet_phase0.h: the arguments). */
static inline __attribute__((always_inline)) void conv_channels(const float *qkv, float *st, const float *w,
                                                                float *dst, size_t C, int n, const int taps) {
    for (int i = 0; i < n; i += 4) {
        float32x4_t x = vld1q_f32(qkv + i), acc = vdupq_n_f32(0.0f);
        for (int t = 0; t < taps - 1; t++) acc = vfmaq_f32(acc, vld1q_f32(w + t * C + i), vld1q_f32(st + t * C + i));
        acc = vfmaq_f32(acc, vld1q_f32(w + (taps - 1) * C + i), x);
        for (int t = 0; t < taps - 2; t++) vst1q_f32(st + t * C + i, vld1q_f32(st + (t + 1) * C + i));
        vst1q_f32(st + (taps - 2) * C + i, x);
        vst1q_f32(dst + i, ciot_silu4(acc));
    }
}

static inline void scale(float *x, int n, float mul) {
    for (int i = 0; i < n; i += 4) vst1q_f32(x + i, vmulq_n_f32(vld1q_f32(x + i), mul));
}

/* Rows r .. r + R - 1 of one head side by side, each in the reference's order (kernels/ops.md: why); they
 * also share the k and q loads. Not timed (no Arm hardware): the static cost model gives fewer cycles a row
 * for four rows than for one on every modelled core (results/kernel-bounds.md, "DeltaNet"). */
#define ROWS 4
static inline __attribute__((always_inline)) void rows(const ciot_deltanet_args *a, ciot_deltanet_scratch s, long r,
                                                        int R, long ahead) {
    const int D = a->head_dim;
    const ciot_deltanet_head_rows g = ciot_deltanet_rows_at(a, s, r);
    float *S = g.S;
    ciot_prefetch(S, (size_t)R * D * sizeof *S, (size_t)ahead); /* the policy's bytes (x86 fetches otherwise) */
    const float *k = g.k, *q = g.q, decay = g.decay;
    float32x4_t acc[ROWS][4], uv[ROWS];
    for (int j = 0; j < R; j++)
        for (int l = 0; l < 4; l++) acc[j][l] = vdupq_n_f32(0.0f);
    for (int i = 0; i < D; i += 16)
        for (int l = 0; l < 4; l++) {
            float32x4_t kv = vld1q_f32(k + i + 4 * l);
            for (int j = 0; j < R; j++) acc[j][l] = vfmaq_f32(acc[j][l], vld1q_f32(S + (size_t)j * D + i + 4 * l), kv);
        }
    for (int j = 0; j < R; j++) {
        uv[j] = vdupq_n_f32((s.v[r + j] - decay * ciot_fold16_neon(acc[j][0], acc[j][1], acc[j][2], acc[j][3])) *
                            g.beta);
        for (int l = 0; l < 4; l++) acc[j][l] = vdupq_n_f32(0.0f);
    }
    const float32x4_t dv = vdupq_n_f32(decay);
    for (int i = 0; i < D; i += 16)
        for (int l = 0; l < 4; l++) {
            float32x4_t kv = vld1q_f32(k + i + 4 * l), qv = vld1q_f32(q + i + 4 * l);
            for (int j = 0; j < R; j++) {
                float *Sj = S + (size_t)j * D + i + 4 * l;
                float32x4_t sn = vfmaq_f32(vmulq_f32(dv, vld1q_f32(Sj)), kv, uv[j]);
                vst1q_f32(Sj, sn);
                acc[j][l] = vfmaq_f32(acc[j][l], sn, qv);
            }
        }
    for (int j = 0; j < R; j++) a->out[r + j] = ciot_fold16_neon(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
}

void ciot_deltanet_neon(const ciot_deltanet_args *a, int phase, int part, int parts) {
    if (phase == 0) {
        ciot_deltanet_phase0(a, part, parts, conv_channels, ciot_dot_neon, scale);
    } else {
        long lo, hi;
        ciot_deltanet_share_rows(a, part, parts, &lo, &hi);
        ciot_deltanet_groups(a, lo, hi, ROWS, (long)a->prefetch, rows);
    }
}
