/* attention, AVX-512 F: the reference's order (kernels/ops.md) with the AVX2 version's unit loop, in zmm. A
 * zmm register holds the 16 canonical lanes of a dot product, lanes 0-15 in order, so each dot product is one
 * accumulator and half the AVX2 version's multiply-adds; a V row's 64-byte line is two zmm. The fold, the
 * softmax and the combine are the AVX2 version's (attention_avx2.h). */
#if !defined(__AVX512F__) || !defined(__F16C__) || !defined(__FMA__)
#error "attention_avx512f.c needs -mavx512f -mf16c -mfma (cmake/isa.cmake gives them to *_avx512f.c)"
#endif
#include "attention_avx2.h"
#include "cpu.h"
#include "fp16.h"

/* The fetch plan. On Intel the scores pass also fetches the chunk's V rows into L2 and the V pass the first
 * half of the next unit's K (weighted_rows), so the bus streams during both passes; on AMD both fetches made
 * attention slower, so only K is fetched ahead in the scores pass and V in the V pass, both in address order
 * (below; results/kernel-bounds.md, "Attention"). Which lines are fetched changes no bit. */
static int fetch_both_passes(void) { return !ciot_cpu_is_amd(); }

/* On AMD the fetches run in ascending address order, a fixed distance ahead of the bytes being read: a fetch
 * per row, strided by a row (the Intel plan's order), left Zen 5's own prefetcher behind
 * (results/kernel-bounds.md, "Attention"). */
#define K_AHEAD_BYTES 8192 /* scores: 16 K rows at head dim 256 */
#define V_AHEAD_BYTES 8192 /* weighted_v: past the next V block's start, so about a block and a half ahead */

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

/* The scores of four positions of the batch's heads (acc[r][j]: position p + r, head j; heads at or past nb
 * are zeros) by one transposed fold: the canonical additions of each dot product, j + 8, + 4, + 2, then
 * l[0] + l[1], done for 16 or more dot products per instruction across registers. Level one pairs positions
 * r and r + 1 of a head (lanes 0-7 and 8-15), level two positions 0-1 with 2-3 (a 128-bit chunk per
 * position), levels three and four pair heads within each chunk; then chunk r holds heads 0-3 (and 4-5) at
 * position p + r, which a permute turns into four positions a head, stored with one 16-byte store each. */
static inline __attribute__((always_inline)) void store_scores4(__m512 acc[][CIOT_ATTN_BATCH], const int nb,
                                                                __m512 scale, const ciot_attn_batch *b, int p) {
    __m512 B[CIOT_ATTN_BATCH][2], C[CIOT_ATTN_BATCH], D[3];
    for (int j = 0; j < nb; j++)
        for (int h = 0; h < 2; h++) /* j + 8: positions 2h (lanes 0-7) and 2h + 1 (lanes 8-15) */
            B[j][h] = _mm512_add_ps(_mm512_shuffle_f32x4(acc[2 * h][j], acc[2 * h + 1][j], 0x44),
                                    _mm512_shuffle_f32x4(acc[2 * h][j], acc[2 * h + 1][j], 0xee));
    for (int j = 0; j < nb; j++) /* j + 4: chunk r = position r's four lanes */
        C[j] = _mm512_add_ps(_mm512_shuffle_f32x4(B[j][0], B[j][1], 0x88), _mm512_shuffle_f32x4(B[j][0], B[j][1], 0xdd));
    for (int j = nb; j < 2 * ((nb + 1) / 2); j++) C[j] = _mm512_setzero_ps();
    for (int i = 0; 2 * i < nb; i++) { /* j + 2: heads 2i and 2i + 1 share each chunk, two lanes each */
        __m512d x = _mm512_castps_pd(C[2 * i]), y = _mm512_castps_pd(C[2 * i + 1]);
        D[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    const int nd = (nb + 1) / 2;
    const __m512i heads_by_position = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    for (int i = 0; i < nd; i += 2) { /* l[0] + l[1]: chunk r = heads 2i .. 2i + 3 at position p + r */
        __m512 x = D[i], y = i + 1 < nd ? D[i + 1] : D[i];
        __m512 r = _mm512_add_ps(_mm512_shuffle_ps(x, y, 0x88), _mm512_shuffle_ps(x, y, 0xdd));
        r = _mm512_permutexvar_ps(heads_by_position, _mm512_mul_ps(r, scale));
        for (int j = 2 * i; j < nb && j < 2 * i + 4; j++) {
            __m128 v = j - 2 * i == 0   ? _mm512_castps512_ps128(r)
                       : j - 2 * i == 1 ? _mm512_extractf32x4_ps(r, 1)
                       : j - 2 * i == 2 ? _mm512_extractf32x4_ps(r, 2)
                                        : _mm512_extractf32x4_ps(r, 3);
            _mm_storeu_ps(b->e[j] + p, v);
        }
    }
}

/* Positions p .. p + np - 1 (np a constant, 1, 2 or 4) scored side by side: each query load serves every row.
 * fv 1 (Intel, fetch_both_passes) also fetches the rows' V lines into L2 for weighted_v. */
static inline __attribute__((always_inline)) void score_rows(const uint16_t *K, const uint16_t *V, int D, int p,
                                                             const float *qp, const int nb, const int np,
                                                             __m256 scale, const ciot_attn_batch *b, const int fv) {
    __m512 acc[4][CIOT_ATTN_BATCH];
    for (int r = 0; r < np; r++)
        for (int j = 0; j < nb; j++) acc[r][j] = _mm512_setzero_ps();
    for (int d = 0; d < D; d += 16) {
        if (fv) {
            if (d % 32 == 0) /* one 64-byte line of each row */
                for (int r = 0; r < np; r++) {
                    _mm_prefetch((const char *)(K + (size_t)(p + r + AHEAD) * D + d), _MM_HINT_T0);
                    _mm_prefetch((const char *)(V + (size_t)(p + r + AHEAD) * D + d), _MM_HINT_T1);
                }
        } else if (np > 1 || d % 32 == 0) { /* the np rows' bytes K_AHEAD_BYTES on, in order: np / 2 lines a step */
            const char *ahead = (const char *)(K + (size_t)p * D) + K_AHEAD_BYTES + (size_t)d * np * 2;
            for (int o = 0; o < np * 32; o += 64) _mm_prefetch(ahead + o, _MM_HINT_T0);
        }
        __m512 x[4];
        for (int r = 0; r < np; r++) x[r] = fp16x16(K + (size_t)(p + r) * D + d);
        const float *q = qp + d * nb;
        for (int j = 0; j < nb; j++) {
            __m512 qj = _mm512_load_ps(q + 16 * j);
            for (int r = 0; r < np; r++) acc[r][j] = _mm512_fmadd_ps(qj, x[r], acc[r][j]);
        }
    }
    if (np == 4) store_scores4(acc, nb, _mm512_set1_ps(_mm256_cvtss_f32(scale)), b, p);
    else
        for (int r = 0; r < np; r++) store_scores(acc[r], nb, scale, b, p + r);
}

static inline __attribute__((always_inline)) void score_all(const uint16_t *K, const uint16_t *V, int D, int n,
                                                            const float *qp, const int nb, __m256 scale,
                                                            const ciot_attn_batch *b, const int fv) {
    int p = 0;
    for (; p + 4 <= n; p += 4) score_rows(K, V, D, p, qp, nb, 4, scale, b, fv);
    if (p + 2 <= n) score_rows(K, V, D, p, qp, nb, 2, scale, b, fv), p += 2;
    if (p < n) score_rows(K, V, D, p, qp, nb, 1, scale, b, fv);
}

/* Four positions per step: 4 x nb chains (24 at six heads) keep both FMA pipes busy, each query load serves
 * four rows, and the scores fold together (store_scores4). Then the last two and one positions. */
static inline __attribute__((always_inline)) void scores(const ciot_attention_args *a, const uint16_t *K, int n,
                                                         const ciot_attn_batch *b, const int nb) {
    int D = a->head_dim;
    const __m256 scale = _mm256_set1_ps(a->scale);
    const uint16_t *V = a->v_cache + (K - a->k_cache); /* this chunk's V rows, fetched into L2 beside K (Intel) */
    /* The batch's queries packed per 16 dims, head after head, so one pointer with constant offsets reaches
     * all of them (as in the AVX2 version). */
    float qp[CIOT_ATTN_BATCH * 1024] __attribute__((aligned(64)));
    for (int d = 0; d < D; d += 16)
        for (int j = 0; j < nb; j++) _mm512_store_ps(qp + d * nb + 16 * j, _mm512_loadu_ps(b->q[j] + d));
    if (fetch_both_passes()) score_all(K, V, D, n, qp, nb, scale, b, 1);
    else score_all(K, V, D, n, qp, nb, scale, b, 0);
}

/* Rows [p0, p1) of dims d .. d + 16 w - 1 (w = 2: a whole 64-byte line of each row; w = 1: a head dim's last
 * 16 when it is an odd multiple of 16) into the accumulators lo (and hi), in order of position. With fk 1
 * (Intel) each row also fetches the same dims of the next block's row into L1, the line this strip reads
 * there, and every second row fetches the same line of the next unit's K row p / 2 into L2 (Kn: the batch's
 * next_k): the scores pass takes most of a unit's time and this pass the rest, so fetching the first half
 * of the next K here evens the bus's load over the two (better than none, all or a quarter of it on Intel:
 * results/kernel-bounds.md, "Attention"); a short next chunk gets lines fetched past its end, never read (a
 * prefetch does not fault).
 * fk 0 (AMD, fetch_both_passes) leaves the next K to the scores pass and fetches V in address order. */
static inline __attribute__((always_inline)) void weighted_rows(const uint16_t *V, const uint16_t *Kn, int D, int d,
                                                                int p0, int p1, const float (*e)[CIOT_ATTN_CHUNK],
                                                                const int nb, __m512 *lo, __m512 *hi, const int w,
                                                                const int fk) {
    for (int p = p0; p < p1; p++) {
        if (fk) {
            _mm_prefetch((const char *)(V + (size_t)(p + V_BLOCK) * D + d), _MM_HINT_T0);
            if ((p & 1) == 0) _mm_prefetch((const char *)(Kn + (size_t)(p >> 1) * D + d), _MM_HINT_T1);
        } else /* the block's row steps, strip after strip, each fetch the next line in order from V_AHEAD_BYTES
                * past the next block's start */
            _mm_prefetch((const char *)(V + (size_t)(p0 + V_BLOCK) * D) + V_AHEAD_BYTES +
                             (size_t)((d / 32) * (p1 - p0) + (p - p0)) * 64, _MM_HINT_T0);
        __m512 v0 = fp16x16(V + (size_t)p * D + d), v1 = w == 2 ? fp16x16(V + (size_t)p * D + d + 16) : v0;
        for (int j = 0; j < nb; j++) {
            __m512 x = _mm512_set1_ps(e[j][p]);
            lo[j] = _mm512_fmadd_ps(x, v0, lo[j]);
            if (w == 2) hi[j] = _mm512_fmadd_ps(x, v1, hi[j]);
        }
    }
}

static inline __attribute__((always_inline)) void weighted_all(const ciot_attention_args *a, const uint16_t *V, int n,
                                                               const ciot_attn_batch *b, const int nb, const int fk) {
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
            weighted_rows(V, Kn, D, d, p0, p1, b->e, nb, lo, hi, 2, fk);
            for (int j = 0; j < nb; j++) {
                _mm512_storeu_ps(b->rec[j] + d, lo[j]);
                _mm512_storeu_ps(b->rec[j] + d + 16, hi[j]);
            }
        }
        if (d < D) { /* the last 16 dims */
            __m512 lo[CIOT_ATTN_BATCH];
            for (int j = 0; j < nb; j++) lo[j] = p0 ? _mm512_loadu_ps(b->rec[j] + d) : _mm512_setzero_ps();
            weighted_rows(V, Kn, D, d, p0, p1, b->e, nb, lo, NULL, 1, fk);
            for (int j = 0; j < nb; j++) _mm512_storeu_ps(b->rec[j] + d, lo[j]);
        }
    }
}

static inline __attribute__((always_inline)) void weighted_v(const ciot_attention_args *a, const uint16_t *V, int n,
                                                             const ciot_attn_batch *b, const int nb) {
    if (fetch_both_passes()) weighted_all(a, V, n, b, nb, 1);
    else weighted_all(a, V, n, b, nb, 0);
}

#include "attention_loop.h"
CIOT_ATTENTION_ENTRY(avx512f)
