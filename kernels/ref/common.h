/* Shared by the scalar references: the canonical float step of kernels/formats.md, a gemm as its gemv per
 * activation row, and the block decoders a layout's reference shares with its TQ twin's (T2P with t2p_tq2,
 * TL3 with tl3_tq1, TQ1_0 with TQ2_0). */
#ifndef CIOT_REF_COMMON_H
#define CIOT_REF_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "formats.h"
#include "fp16.h"
#include "kernel.h"
#include "prefetch.h"

/* PQ2_0 family, one 128-block: acc = fmaf((float) isum, fp32(d_w) * d_y, acc). */
static inline float ciot_acc_q8_K_ref(float acc, int32_t isum, uint16_t d_w, float d_y) {
    return fmaf((float)isum, ciot_fp16_to_fp32(d_w) * d_y, acc);
}

/* A gemm reference: the gemv reference run once per activation row (format `act`, rows one after another),
 * row b into y + b * ldy, so every row gets the gemv's float order. */
static inline void ciot_gemm_by_rows_ref(const ciot_mm *mm, int first, int count, ciot_compute_fn gemv,
                                         const ciot_act_format *act) {
    const size_t row_bytes = ciot_act_bytes(act, 1, mm->K);
    for (int b = 0; b < mm->batch; b++) {
        ciot_mm row = *mm;
        row.x = (const unsigned char *)mm->x + (size_t)b * row_bytes;
        row.y = mm->y + (size_t)b * mm->ldy;
        row.batch = 1;
        gemv(&row, first, count);
    }
}

/* T2P bytes read the way the layout is defined "the other way round": byte j of word w of pair p holds, in
 * slot s, row 2p + (j >= 8), weight 8 * (4w + s) + (j & 7). isum[r] = exact dot of row r's 128 weights
 * (code - 1) of the block qs with a[0..127]. */
static inline void ciot_t2p_dot_ref(const uint8_t qs[128], const int8_t *a, int32_t isum[4]) {
    for (int r = 0; r < 4; r++) isum[r] = 0;
    for (int p = 0; p < 2; p++)
        for (int w = 0; w < 4; w++)
            for (int j = 0; j < 16; j++) {
                const uint8_t byte = qs[64 * p + 16 * w + j];
                const int r = 2 * p + (j >= 8);
                for (int s = 0; s < 4; s++) isum[r] += (((byte >> (2 * s)) & 3) - 1) * a[8 * (4 * w + s) + (j & 7)];
            }
}

/* TL3 bytes read "the other way round": row r's group code sb[q].qs[g][r] has the value V = ciot_tl3_value(code)
 * whose trit n, (V / 3^(4 - n)) % 3, is weight 32q + 5g + n; nibble (r >> 7) of sb[q].qn[r & 127] has the pair
 * value P, weights 32q + 30, 32q + 31 are P / 3 and P % 3. Exact dot of row r's sub-block q (32 weights,
 * w = trit - 1) with a[0..31]. */
static inline int32_t ciot_tl3_subblock_dot_ref(const block_tl3 *w, int r, int q, const int8_t *a) {
    static const int pow3[5] = {81, 27, 9, 3, 1};
    int32_t s = 0;
    for (int g = 0; g < 6; g++) {
        const int V = ciot_tl3_value(w->sb[q].qs[g][r]);
        for (int n = 0; n < 5; n++) s += (V / pow3[n] % 3 - 1) * a[5 * g + n];
    }
    const int P = ciot_tl3_pair_value((w->sb[q].qn[r & 127] >> (4 * (r >> 7))) & 15);
    return s + (P / 3 - 1) * a[30] + (P % 3 - 1) * a[31];
}

/* TL16 bytes read "the other way round": row r is byte j = r & 31 of slice v = r >> 5; group g (0..9) of its
 * sub-block q has magnitude nibble (g & 1) of sb[q].qs[g >> 1][j] and sign bit g of sb[q].sg[j] (g < 8) or
 * bit 2q + g - 8 of sx[j] (g = 8, 9); its trit n (ciot_tl16_trit) is weight 32q + 3g + n. The pair code is
 * TL3's, in nibble (q & 1) of qn[q >> 1][j]. Exact dot of row r's sub-block q (32 weights, w = trit - 1) with
 * a[0..31]. */
static inline int32_t ciot_tl16_subblock_dot_ref(const block_tl16 *w, int r, int q, const int8_t *a) {
    const int v = r >> 5, j = r & 31;
    int32_t s = 0;
    for (int g = 0; g < 10; g++) {
        const int m = (w->v[v].sb[q].qs[g >> 1][j] >> (4 * (g & 1))) & 15;
        const int sg = g < 8 ? (w->v[v].sb[q].sg[j] >> g) & 1 : (w->v[v].sx[j] >> (2 * q + g - 8)) & 1;
        for (int n = 0; n < 3; n++) s += (ciot_tl16_trit(m, sg, n) - 1) * a[3 * g + n];
    }
    const int P = ciot_tl3_pair_value((w->v[v].qn[q >> 1][j] >> (4 * (q & 1))) & 15);
    return s + (P / 3 - 1) * a[30] + (P % 3 - 1) * a[31];
}

/* The 256 codes of a TQ1_0 or TQ2_0 block `b`. */
typedef void (*ciot_tq_codes_ref_fn)(const void *b, uint8_t codes[CIOT_QK_TQ]);

/* TQ1_0 / TQ2_0 rows as stored (one 256-weight block of `bytes` bytes per Q8_K block) against one Q8_K row,
 * each block decoded on its own: per row acc = 0; for every 256-block i in order, isum = exact dot of
 * (code - 1) with y[i].qs, then acc = fmaf((float) isum, fp32(d_w) * y[i].d, acc) (kernels/README-tq.md). */
static inline void ciot_tq_gemv_ref(const ciot_mm *mm, int first, int count, size_t bytes, ciot_tq_codes_ref_fn codes) {
    const int nq = mm->K / CIOT_QK_TQ;
    const block_q8_K *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const char *row = (const char *)mm->w + (size_t)r * nq * bytes;
        float acc = 0.0f;
        for (int i = 0; i < nq; i++) {
            const char *b = row + (size_t)i * bytes;
            ciot_prefetch(b, bytes, mm->prefetch);
            uint8_t u[CIOT_QK_TQ];
            codes(b, u);
            int32_t isum = 0;
            for (int k = 0; k < CIOT_QK_TQ; k++) isum += (u[k] - 1) * x[i].qs[k];
            uint16_t d; /* the scale is the block's last two bytes in both formats */
            memcpy(&d, b + bytes - 2, 2);
            acc = ciot_acc_q8_K_ref(acc, isum, d, x[i].d);
        }
        mm->y[r] = acc;
    }
}
_Static_assert(offsetof(block_tq1_0, d) == sizeof(block_tq1_0) - 2, "TQ1_0 scale last");
_Static_assert(offsetof(block_tq2_0, d) == sizeof(block_tq2_0) - 2, "TQ2_0 scale last");

#endif
