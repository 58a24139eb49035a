/* attention, AVX2: the reference's order (kernels/ops.md). A unit (KV head, chunk) reads each K and V row
 * of its chunk from memory once for up to six query heads at a time (all six of a Bonsai group): their
 * dot products share each widened K row, their weighted sums each widened V row. The fold, the softmax and the
 * combine are attention_avx2.h's, shared with the AVX-512 F version. */
#include "attention_avx2.h"
#include "fp16.h"

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

#include "attention_loop.h"
CIOT_ATTENTION_ENTRY(avx2)
