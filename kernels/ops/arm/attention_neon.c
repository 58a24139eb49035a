/* attention, NEON: the reference's order (kernels/ops.md). A unit (KV head, chunk) reads each K and V row
 * of its chunk from memory once for up to six query heads at a time (all six of a Bonsai group): their
 * dot products share each widened K row, their weighted sums each widened V row. */
#include "fp16.h"
#include "ops_impl.h"
#include "ops_neon.h"

#define V_BLOCK 32 /* positions whose V rows (16 KiB at head dim 256) stay in L1 across the dim blocks */

static inline __attribute__((always_inline)) void scores(const ciot_attention_args *a, const uint16_t *K, int n,
                                                         const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    for (int p = 0; p < n; p++) {
        float32x4_t acc[CIOT_ATTN_BATCH][4];
        for (int j = 0; j < nb; j++)
            for (int l = 0; l < 4; l++) acc[j][l] = vdupq_n_f32(0.0f);
        const uint16_t *kr = K + (size_t)p * D;
        for (int d = 0; d < D; d += 16) {
            float32x4_t k[4];
            for (int l = 0; l < 4; l++) k[l] = ciot_fp16x4_neon(kr + d + 4 * l);
            for (int j = 0; j < nb; j++)
                for (int l = 0; l < 4; l++) acc[j][l] = vfmaq_f32(acc[j][l], vld1q_f32(b->q[j] + d + 4 * l), k[l]);
        }
        for (int j = 0; j < nb; j++)
            b->e[j][p] = ciot_fold16_neon(acc[j][0], acc[j][1], acc[j][2], acc[j][3]) * a->scale;
    }
}

static inline __attribute__((always_inline)) void weighted_v(const ciot_attention_args *a, const uint16_t *V, int n,
                                                             const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    for (int p0 = 0; p0 < n; p0 += V_BLOCK) {
        int p1 = p0 + V_BLOCK < n ? p0 + V_BLOCK : n;
        for (int d = 0; d < D; d += 16) {
            float32x4_t acc[CIOT_ATTN_BATCH][4];
            for (int j = 0; j < nb; j++)
                for (int l = 0; l < 4; l++) acc[j][l] = p0 ? vld1q_f32(b->rec[j] + d + 4 * l) : vdupq_n_f32(0.0f);
            for (int p = p0; p < p1; p++) {
                float32x4_t v[4];
                for (int l = 0; l < 4; l++) v[l] = ciot_fp16x4_neon(V + (size_t)p * D + d + 4 * l);
                for (int j = 0; j < nb; j++) {
                    float32x4_t w = vld1q_dup_f32(b->e[j] + p);
                    for (int l = 0; l < 4; l++) acc[j][l] = vfmaq_f32(acc[j][l], w, v[l]);
                }
            }
            for (int j = 0; j < nb; j++)
                for (int l = 0; l < 4; l++) vst1q_f32(b->rec[j] + d + 4 * l, acc[j][l]);
        }
    }
}

/* exp(s - max) in place (zero past n, up to the next 16), the max and the sum of the exps into the record. */
static void softmax_part(float *e, int n, float *rec, int D) {
    float m = 0;
    for (int p = 0; p < n; p++) m = p == 0 || e[p] > m ? e[p] : m;
    int n16 = (n + 15) & ~15;
    float32x4_t mv = vdupq_n_f32(m), acc[4];
    for (int l = 0; l < 4; l++) acc[l] = vdupq_n_f32(0.0f);
    const int32_t lane[4] = {0, 1, 2, 3};
    const int32x4_t lanes = vld1q_s32(lane);
    for (int p = 0; p < n16; p += 16)
        for (int l = 0; l < 4; l++) {
            int at = p + 4 * l;
            float32x4_t x = ciot_exp4(vsubq_f32(vld1q_f32(e + at), mv));
            /* the padding's exps are thrown away: it adds zeros */
            if (at + 4 > n) x = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(x), vcgtq_s32(vdupq_n_s32(n - at), lanes)));
            vst1q_f32(e + at, x);
            acc[l] = vaddq_f32(acc[l], x);
        }
    rec[D] = m;
    rec[D + 1] = ciot_fold16_neon(acc[0], acc[1], acc[2], acc[3]);
}

static void combine(const ciot_attention_args *a, int qh) {
    int D = a->head_dim, nc = ciot_attention_chunks(a);
    float M = ciot_attention_max(a, qh);
    float sum = 0.0f, *out = a->out + (size_t)qh * D;
    for (int d = 0; d < D; d += 4) vst1q_f32(out + d, vdupq_n_f32(0.0f));
    for (int c = 0; c < nc; c++) {
        const float *rec = ciot_attention_rec(a, qh, c);
        float fc = ciot_ops_expf(rec[D] - M);
        sum = fmaf(rec[D + 1], fc, sum);
        float32x4_t f = vdupq_n_f32(fc);
        for (int d = 0; d < D; d += 4) vst1q_f32(out + d, vfmaq_f32(vld1q_f32(out + d), vld1q_f32(rec + d), f));
    }
    const float *gate = a->gate + (size_t)qh * a->q_stride;
    float32x4_t s = vdupq_n_f32(sum);
    for (int d = 0; d < D; d += 4)
        vst1q_f32(out + d, vmulq_f32(vdivq_f32(vld1q_f32(out + d), s), ciot_sigmoid4(vld1q_f32(gate + d))));
}

#include "attention_loop.h"
CIOT_ATTENTION_ENTRY(neon)
