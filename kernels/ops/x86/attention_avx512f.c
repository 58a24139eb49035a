/* attention, AVX-512 F: the reference's order (kernels/ops.md) with the AVX2 version's unit loop, in zmm. A
 * zmm register holds the 16 canonical lanes of a dot product, lanes 0-15 in order, so each dot product is one
 * accumulator and half the AVX2 version's multiply-adds; a V row's 64-byte line is two zmm. The fold, the
 * softmax and the combine are the AVX2 version's (attention_avx2.h). */
#if !defined(__AVX512F__) || !defined(__F16C__) || !defined(__FMA__)
#error "attention_avx512f.c needs -mavx512f -mf16c -mfma (cmake/isa.cmake gives them to *_avx512f.c)"
#endif
#include "attention_avx2.h"
#include "fp16.h"

/* 16 fp16 values widened exactly. */
static inline __m512 fp16x16(const uint16_t *h) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)h)); }

/* The canonical j + 8 step of a dot product held in one zmm: lanes 0-7 plus lanes 8-15, the lane pair
 * fold16_x8 takes. */
static inline __m256 lane_pair(__m512 acc) {
    return _mm256_add_ps(_mm512_castps512_ps256(acc), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1)));
}

/* The scores of the batch's heads at position p from their accumulators, folded, times the scale. */
static inline __attribute__((always_inline)) void store_scores(const __m512 *acc, const int nb, __m256 scale,
                                                               const ciot_attn_batch *b, int p) {
    __m256 s[8];
    for (int j = 0; j < 8; j++) s[j] = j < nb ? lane_pair(acc[j]) : _mm256_setzero_ps();
    float f[8];
    _mm256_storeu_ps(f, _mm256_mul_ps(fold16_x8(s), scale));
    for (int j = 0; j < nb; j++) b->e[j][p] = f[j];
}

/* Positions p .. p + np - 1 (np a constant, 1 or 2) scored side by side: each query load serves every row. */
static inline __attribute__((always_inline)) void score_rows(const uint16_t *K, const uint16_t *V, int D, int p,
                                                             const float *qp, const int nb, const int np,
                                                             __m256 scale, const ciot_attn_batch *b) {
    __m512 acc[2][CIOT_ATTN_BATCH];
    for (int r = 0; r < np; r++)
        for (int j = 0; j < nb; j++) acc[r][j] = _mm512_setzero_ps();
    for (int d = 0; d < D; d += 16) {
        if (d % 32 == 0) /* one 64-byte line of each row */
            for (int r = 0; r < np; r++) {
                _mm_prefetch((const char *)(K + (size_t)(p + r + AHEAD) * D + d), _MM_HINT_T0);
                _mm_prefetch((const char *)(V + (size_t)(p + r + AHEAD) * D + d), _MM_HINT_T1);
            }
        __m512 x[2];
        for (int r = 0; r < np; r++) x[r] = fp16x16(K + (size_t)(p + r) * D + d);
        const float *q = qp + d * nb;
        for (int j = 0; j < nb; j++) {
            __m512 qj = _mm512_load_ps(q + 16 * j);
            for (int r = 0; r < np; r++) acc[r][j] = _mm512_fmadd_ps(qj, x[r], acc[r][j]);
        }
    }
    for (int r = 0; r < np; r++) store_scores(acc[r], nb, scale, b, p + r);
}

/* Two positions per step: 2 x nb chains (12 at six heads) keep both FMA pipes busy where nb chains of latency
 * 4 would not. Then a last position alone when n is odd. */
static inline __attribute__((always_inline)) void scores(const ciot_attention_args *a, const uint16_t *K, int n,
                                                         const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    const __m256 scale = _mm256_set1_ps(a->scale);
    const uint16_t *V = a->v_cache + (K - a->k_cache); /* this chunk's V rows, fetched into L2 beside K */
    /* The batch's queries packed per 16 dims, head after head, so one pointer with constant offsets reaches
     * all of them (as in the AVX2 version). */
    float qp[CIOT_ATTN_BATCH * 1024] __attribute__((aligned(64)));
    for (int d = 0; d < D; d += 16)
        for (int j = 0; j < nb; j++) _mm512_store_ps(qp + d * nb + 16 * j, _mm512_loadu_ps(b->q[j] + d));
    int p = 0;
    for (; p + 2 <= n; p += 2) score_rows(K, V, D, p, qp, nb, 2, scale, b);
    if (p < n) score_rows(K, V, D, p, qp, nb, 1, scale, b);
}

/* Rows [p0, p1) of dims d .. d + 16 w - 1 (w = 2: a whole 64-byte line of each row; w = 1: a head dim's last
 * 16 when it is an odd multiple of 16) into the accumulators lo (and hi), in order of position; each row
 * also fetches the same dims of the next block's row into L1, the line this strip reads there. Every second
 * row fetches the same line of the next unit's K row p / 2 into L2 (Kn: the batch's next_k): the scores pass
 * takes about 70% of a unit's time and this pass the rest, so fetching the first half of the next K here
 * evens the bus's load over the two; a short next chunk gets lines fetched past its end, never read (a
 * prefetch does not fault). Measured on an Intel Xeon (bench_token_ops, 3 rounds, % of the paired read):
 * 75.3-81.2 against 71.5-76.5 without it, 70.7-73.6 fetching all of the next K here, 75.4-79.2 a quarter. */
static inline __attribute__((always_inline)) void weighted_rows(const uint16_t *V, const uint16_t *Kn, int D, int d,
                                                                int p0, int p1, const float (*e)[CIOT_ATTN_CHUNK],
                                                                const int nb, __m512 *lo, __m512 *hi, const int w) {
    for (int p = p0; p < p1; p++) {
        _mm_prefetch((const char *)(V + (size_t)(p + V_BLOCK) * D + d), _MM_HINT_T0);
        if ((p & 1) == 0) _mm_prefetch((const char *)(Kn + (size_t)(p >> 1) * D + d), _MM_HINT_T1);
        __m512 v0 = fp16x16(V + (size_t)p * D + d), v1 = w == 2 ? fp16x16(V + (size_t)p * D + d + 16) : v0;
        for (int j = 0; j < nb; j++) {
            __m512 x = _mm512_set1_ps(e[j][p]);
            lo[j] = _mm512_fmadd_ps(x, v0, lo[j]);
            if (w == 2) hi[j] = _mm512_fmadd_ps(x, v1, hi[j]);
        }
    }
}

static inline __attribute__((always_inline)) void weighted_v(const ciot_attention_args *a, const uint16_t *V, int n,
                                                             const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    const uint16_t *Kn = b->next_k;
    for (int p0 = 0; p0 < n; p0 += V_BLOCK) {
        int p1 = p0 + V_BLOCK < n ? p0 + V_BLOCK : n, d = 0;
        for (; d + 32 <= D; d += 32) {
            __m512 lo[CIOT_ATTN_BATCH], hi[CIOT_ATTN_BATCH];
            for (int j = 0; j < nb; j++) {
                lo[j] = p0 ? _mm512_loadu_ps(b->rec[j] + d) : _mm512_setzero_ps();
                hi[j] = p0 ? _mm512_loadu_ps(b->rec[j] + d + 16) : _mm512_setzero_ps();
            }
            weighted_rows(V, Kn, D, d, p0, p1, b->e, nb, lo, hi, 2);
            for (int j = 0; j < nb; j++) {
                _mm512_storeu_ps(b->rec[j] + d, lo[j]);
                _mm512_storeu_ps(b->rec[j] + d + 16, hi[j]);
            }
        }
        if (d < D) { /* the last 16 dims */
            __m512 lo[CIOT_ATTN_BATCH];
            for (int j = 0; j < nb; j++) lo[j] = p0 ? _mm512_loadu_ps(b->rec[j] + d) : _mm512_setzero_ps();
            weighted_rows(V, Kn, D, d, p0, p1, b->e, nb, lo, NULL, 1);
            for (int j = 0; j < nb; j++) _mm512_storeu_ps(b->rec[j] + d, lo[j]);
        }
    }
}

#include "attention_loop.h"
CIOT_ATTENTION_ENTRY(avx512f)
