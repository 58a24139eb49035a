/* attention, AVX2: the reference's order (kernels/ops.md). A unit (KV head, chunk) reads each K and V row
 * of its chunk from memory once for up to six query heads at a time (all six of a Bonsai group): their
 * dot products share each widened K row, their weighted sums each widened V row. */
#include "fp16.h"
#include "ops_avx2.h"
#include "ops_impl.h"

#define V_BLOCK 32 /* positions whose V rows (16 KiB at head dim 256) stay in L1 across the dim blocks */
#define AHEAD 8    /* rows fetched ahead of the one scored: K into L1, V into L2 for weighted_v */

/* The canonical fold of eight lane pairs (lo + hi of up to eight dot products) at once: the same additions
 * as ciot_fold16_avx2 on each, by shuffles across the eight; lane i of the result is the fold of s[i]. */
static inline __m256 fold16_x8(const __m256 s[8]) {
    __m256 t[4], u[2];
    for (int i = 0; i < 4; i++) /* j + 4: the two 128-bit halves of s[2i] and s[2i+1] */
        t[i] = _mm256_add_ps(_mm256_permute2f128_ps(s[2 * i], s[2 * i + 1], 0x20),
                             _mm256_permute2f128_ps(s[2 * i], s[2 * i + 1], 0x31));
    for (int i = 0; i < 2; i++) /* j + 2 */
        u[i] = _mm256_add_ps(_mm256_shuffle_ps(t[2 * i], t[2 * i + 1], 0x44), _mm256_shuffle_ps(t[2 * i], t[2 * i + 1], 0xee));
    /* j + 1; the lanes come out as s0 s2 s4 s6 | s1 s3 s5 s7 in halves: put them in order */
    __m256 r = _mm256_add_ps(_mm256_shuffle_ps(u[0], u[1], 0x88), _mm256_shuffle_ps(u[0], u[1], 0xdd));
    return _mm256_permutevar8x32_ps(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

static inline __attribute__((always_inline)) void scores(const ciot_attention_args *a, const uint16_t *K, int n,
                                                         const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    const __m256 scale = _mm256_set1_ps(a->scale);
    const uint16_t *V = a->v_cache + (K - a->k_cache); /* this chunk's V rows, fetched into L2 beside K */
    /* The batch's queries packed in the order the loop reads them (per 16 dims: the low eight of every head,
     * then the high eight), so one pointer with constant offsets reaches all of them: six pointers of their
     * own do not fit the registers beside the loop's, and reloading them from the stack cost 6 loads a step. */
    float qp[CIOT_ATTN_BATCH * 1024] __attribute__((aligned(32)));
    for (int d = 0; d < D; d += 16)
        for (int j = 0; j < nb; j++) {
            _mm256_store_ps(qp + d * nb + 8 * j, _mm256_loadu_ps(b->q[j] + d));
            _mm256_store_ps(qp + d * nb + 8 * (nb + j), _mm256_loadu_ps(b->q[j] + d + 8));
        }
    for (int p = 0; p < n; p++) {
        __m256 lo[CIOT_ATTN_BATCH], hi[CIOT_ATTN_BATCH];
        for (int j = 0; j < nb; j++) lo[j] = hi[j] = _mm256_setzero_ps();
        const uint16_t *kr = K + (size_t)p * D;
        for (int d = 0; d < D; d += 16) {
            if (d % 32 == 0) { /* one 64-byte line of each */
                _mm_prefetch((const char *)(kr + AHEAD * D + d), _MM_HINT_T0);
                _mm_prefetch((const char *)(V + (size_t)(p + AHEAD) * D + d), _MM_HINT_T1);
            }
            __m256 k0 = ciot_fp16x8_avx2(kr + d), k1 = ciot_fp16x8_avx2(kr + d + 8);
            const float *q = qp + d * nb;
            for (int j = 0; j < nb; j++) {
                lo[j] = _mm256_fmadd_ps(_mm256_load_ps(q + 8 * j), k0, lo[j]);
                hi[j] = _mm256_fmadd_ps(_mm256_load_ps(q + 8 * (nb + j)), k1, hi[j]);
            }
        }
        __m256 s[8];
        for (int j = 0; j < 8; j++) s[j] = j < nb ? _mm256_add_ps(lo[j], hi[j]) : _mm256_setzero_ps();
        float f[8];
        _mm256_storeu_ps(f, _mm256_mul_ps(fold16_x8(s), scale));
        for (int j = 0; j < nb; j++) b->e[j][p] = f[j];
    }
}

/* Rows [p0, p1) of dims d .. d + 15 into the accumulators; fetch: also fetch the next block's rows (a
 * constant at each call, so the loop carries no branch). */
static inline __attribute__((always_inline)) void weighted_rows(const uint16_t *V, int D, int d, int p0, int p1,
                                                                const float (*e)[CIOT_ATTN_CHUNK], const int nb,
                                                                __m256 *lo, __m256 *hi, const int fetch) {
    for (int p = p0; p < p1; p++) {
        if (fetch) _mm_prefetch((const char *)(V + (size_t)(p + V_BLOCK) * D + 2 * d), _MM_HINT_T0);
        __m256 v0 = ciot_fp16x8_avx2(V + (size_t)p * D + d), v1 = ciot_fp16x8_avx2(V + (size_t)p * D + d + 8);
        for (int j = 0; j < nb; j++) {
            __m256 w = _mm256_broadcast_ss(&e[j][p]);
            lo[j] = _mm256_fmadd_ps(w, v0, lo[j]);
            hi[j] = _mm256_fmadd_ps(w, v1, hi[j]);
        }
    }
}

static inline __attribute__((always_inline)) void weighted_v(const ciot_attention_args *a, const uint16_t *V, int n,
                                                             const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    for (int p0 = 0; p0 < n; p0 += V_BLOCK) {
        int p1 = p0 + V_BLOCK < n ? p0 + V_BLOCK : n;
        for (int d = 0; d < D; d += 16) {
            __m256 lo[CIOT_ATTN_BATCH], hi[CIOT_ATTN_BATCH];
            for (int j = 0; j < nb; j++) {
                lo[j] = p0 ? _mm256_loadu_ps(b->rec[j] + d) : _mm256_setzero_ps();
                hi[j] = p0 ? _mm256_loadu_ps(b->rec[j] + d + 8) : _mm256_setzero_ps();
            }
            if (2 * d < D) weighted_rows(V, D, d, p0, p1, b->e, nb, lo, hi, 1);
            else weighted_rows(V, D, d, p0, p1, b->e, nb, lo, hi, 0);
            for (int j = 0; j < nb; j++) {
                _mm256_storeu_ps(b->rec[j] + d, lo[j]);
                _mm256_storeu_ps(b->rec[j] + d + 8, hi[j]);
            }
        }
    }
}

/* exp(s - max) in place (zero past n, up to the next 16), the max and the sum of the exps into the record. */
/* The canonical max (e[0], then each larger) eight lanes at a time: max_ps(x, m) is x > m ? x : m, so a NaN
 * e[0] stays and a later NaN never wins, as in the scalar order. Lanes holding equal values agree bit for bit
 * unless the max is a zero (+0 and -0 compare equal): then the first one, in order, decides. */
static float chunk_max(const float *e, int n) {
    int p = 0;
    __m256 mv = _mm256_set1_ps(e[0]);
    for (; p + 8 <= n; p += 8) mv = _mm256_max_ps(_mm256_loadu_ps(e + p), mv);
    float l[8], m = e[0];
    _mm256_storeu_ps(l, mv);
    for (int j = 0; j < 8; j++) m = l[j] > m ? l[j] : m;
    if (m == 0.0f)
        for (int i = 0; i < p; i++) m = i == 0 || e[i] > m ? e[i] : m;
    for (; p < n; p++) m = e[p] > m ? e[p] : m;
    return m;
}

static void softmax_part(float *e, int n, float *rec, int D) {
    float m = chunk_max(e, n);
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

#include "attention_loop.h"
CIOT_ATTENTION_ENTRY(avx2)
