/* attention, AVX2: the reference's order (kernels/ops.md). A unit (KV head, chunk) reads each K and V row
 * of its chunk from memory once for up to six query heads at a time (all six of a Bonsai group): their
 * dot products share each widened K row, their weighted sums each widened V row. */
#include "fp16.h"
#include "ops_avx2.h"
#include "ops_impl.h"

#define BATCH 6
#define V_BLOCK 32 /* positions whose V rows (16 KiB at head dim 256) stay in L1 across the dim blocks */

typedef struct {
    const float *q[BATCH];
    float *rec[BATCH];
    float *e[BATCH];
} batch_ptrs;

static inline __attribute__((always_inline)) void scores(const ciot_attention_args *a, const uint16_t *K, int n,
                                                         const batch_ptrs *b, const int nb) {
    int D = a->head_dim;
    for (int p = 0; p < n; p++) {
        __m256 lo[BATCH], hi[BATCH];
        for (int j = 0; j < nb; j++) lo[j] = hi[j] = _mm256_setzero_ps();
        const uint16_t *kr = K + (size_t)p * D;
        for (int d = 0; d < D; d += 16) {
            __m256 k0 = ciot_fp16x8_avx2(kr + d), k1 = ciot_fp16x8_avx2(kr + d + 8);
            for (int j = 0; j < nb; j++) {
                lo[j] = _mm256_fmadd_ps(_mm256_loadu_ps(b->q[j] + d), k0, lo[j]);
                hi[j] = _mm256_fmadd_ps(_mm256_loadu_ps(b->q[j] + d + 8), k1, hi[j]);
            }
        }
        for (int j = 0; j < nb; j++) b->e[j][p] = ciot_fold16_avx2(lo[j], hi[j]) * a->scale;
    }
}

static inline __attribute__((always_inline)) void weighted_v(const ciot_attention_args *a, const uint16_t *V, int n,
                                                             const batch_ptrs *b, const int nb) {
    int D = a->head_dim;
    for (int p0 = 0; p0 < n; p0 += V_BLOCK) {
        int p1 = p0 + V_BLOCK < n ? p0 + V_BLOCK : n;
        for (int d = 0; d < D; d += 16) {
            __m256 lo[BATCH], hi[BATCH];
            for (int j = 0; j < nb; j++) {
                lo[j] = p0 ? _mm256_loadu_ps(b->rec[j] + d) : _mm256_setzero_ps();
                hi[j] = p0 ? _mm256_loadu_ps(b->rec[j] + d + 8) : _mm256_setzero_ps();
            }
            for (int p = p0; p < p1; p++) {
                __m256 v0 = ciot_fp16x8_avx2(V + (size_t)p * D + d), v1 = ciot_fp16x8_avx2(V + (size_t)p * D + d + 8);
                for (int j = 0; j < nb; j++) {
                    __m256 w = _mm256_broadcast_ss(b->e[j] + p);
                    lo[j] = _mm256_fmadd_ps(w, v0, lo[j]);
                    hi[j] = _mm256_fmadd_ps(w, v1, hi[j]);
                }
            }
            for (int j = 0; j < nb; j++) {
                _mm256_storeu_ps(b->rec[j] + d, lo[j]);
                _mm256_storeu_ps(b->rec[j] + d + 8, hi[j]);
            }
        }
    }
}

/* exp(s - max) in place (zero past n, up to the next 16), the max and the sum of the exps into the record. */
static void softmax_part(float *e, int n, float *rec, int D) {
    float m = 0;
    for (int p = 0; p < n; p++) m = p == 0 || e[p] > m ? e[p] : m;
    int n16 = (n + 15) & ~15;
    for (int p = n; p < n16; p++) e[p] = 0.0f;
    __m256 mv = _mm256_set1_ps(m), lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    for (int p = 0; p < n16; p += 16) {
        __m256 e0 = ciot_exp8(_mm256_sub_ps(_mm256_loadu_ps(e + p), mv));
        __m256 e1 = ciot_exp8(_mm256_sub_ps(_mm256_loadu_ps(e + p + 8), mv));
        /* the padding's exps are thrown away: it adds zeros */
        if (p + 8 > n) e0 = _mm256_and_ps(e0, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(n - p), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))));
        if (p + 16 > n) e1 = _mm256_and_ps(e1, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(n - p - 8), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))));
        _mm256_storeu_ps(e + p, e0);
        _mm256_storeu_ps(e + p + 8, e1);
        lo = _mm256_add_ps(lo, e0);
        hi = _mm256_add_ps(hi, e1);
    }
    rec[D] = m;
    rec[D + 1] = ciot_fold16_avx2(lo, hi);
}

static void chunk_unit(const ciot_attention_args *a, int g, int c) {
    int D = a->head_dim, G = a->q_heads / a->kv_heads, p0 = c * CIOT_ATTN_CHUNK;
    int n = a->L + 1 - p0 < CIOT_ATTN_CHUNK ? a->L + 1 - p0 : CIOT_ATTN_CHUNK;
    if (c == ciot_attention_chunks(a) - 1) ciot_attention_append(a, g);
    const uint16_t *K = a->k_cache + ((size_t)g * a->capacity + p0) * D;
    const uint16_t *V = a->v_cache + ((size_t)g * a->capacity + p0) * D;
    float e[BATCH][CIOT_ATTN_CHUNK] __attribute__((aligned(32)));
    for (int j0 = 0; j0 < G; j0 += BATCH) {
        int nb = G - j0 < BATCH ? G - j0 : BATCH;
        batch_ptrs b;
        for (int j = 0; j < nb; j++) {
            b.q[j] = a->q + (size_t)(g * G + j0 + j) * a->q_stride;
            b.rec[j] = ciot_attention_rec(a, g * G + j0 + j, c);
            b.e[j] = e[j];
        }
        switch (nb) {
        case 6: scores(a, K, n, &b, 6); break;
        case 5: scores(a, K, n, &b, 5); break;
        case 4: scores(a, K, n, &b, 4); break;
        case 3: scores(a, K, n, &b, 3); break;
        case 2: scores(a, K, n, &b, 2); break;
        default: scores(a, K, n, &b, 1); break;
        }
        for (int j = 0; j < nb; j++) softmax_part(e[j], n, b.rec[j], D);
        switch (nb) {
        case 6: weighted_v(a, V, n, &b, 6); break;
        case 5: weighted_v(a, V, n, &b, 5); break;
        case 4: weighted_v(a, V, n, &b, 4); break;
        case 3: weighted_v(a, V, n, &b, 3); break;
        case 2: weighted_v(a, V, n, &b, 2); break;
        default: weighted_v(a, V, n, &b, 1); break;
        }
    }
}

static void combine(const ciot_attention_args *a, int qh) {
    int D = a->head_dim, nc = ciot_attention_chunks(a);
    float M = ciot_attention_rec(a, qh, 0)[D];
    for (int c = 1; c < nc; c++) {
        float m = ciot_attention_rec(a, qh, c)[D];
        M = m > M ? m : M;
    }
    float sum = 0.0f, *out = a->out + (size_t)qh * D;
    for (int d = 0; d < D; d += 8) _mm256_storeu_ps(out + d, _mm256_setzero_ps());
    for (int c = 0; c < nc; c++) {
        const float *rec = ciot_attention_rec(a, qh, c);
        float fc = ciot_ops_expf(rec[D] - M);
        sum = fmaf(rec[D + 1], fc, sum);
        __m256 f = _mm256_set1_ps(fc);
        for (int d = 0; d < D; d += 8)
            _mm256_storeu_ps(out + d, _mm256_fmadd_ps(_mm256_loadu_ps(rec + d), f, _mm256_loadu_ps(out + d)));
    }
    const float *gate = a->gate + (size_t)qh * a->q_stride;
    __m256 s = _mm256_set1_ps(sum);
    for (int d = 0; d < D; d += 8)
        _mm256_storeu_ps(out + d, _mm256_mul_ps(_mm256_div_ps(_mm256_loadu_ps(out + d), s), ciot_sigmoid8(_mm256_loadu_ps(gate + d))));
}

void ciot_attention_avx2(const ciot_attention_args *a, int phase, int part, int parts) {
    long lo, hi;
    if (phase == 0) {
        int nc = ciot_attention_chunks(a);
        ciot_ops_share((long)a->kv_heads * nc, part, parts, &lo, &hi);
        for (long u = lo; u < hi; u++) chunk_unit(a, (int)(u / nc), (int)(u % nc));
    } else {
        ciot_ops_share(a->q_heads, part, parts, &lo, &hi);
        for (long qh = lo; qh < hi; qh++) combine(a, (int)qh);
    }
}
