/* tq1_0_gemv_ref, tq2_0_gemv_ref: TQ1_0 / TQ2_0 rows as stored (one 256-weight block per Q8_K block)
 * against one Q8_K row, each weight decoded on its own (formats.h positions). Per row: acc = 0; for
 * every 256-block i in order, isum = exact dot of (code - 1) with y[i].qs, then
 * acc = fmaf((float) isum, fp32(d_w) * y[i].d, acc) (kernels/README-tq.md). K % 256 == 0.
 * tq1_0_gemm_ref, tq2_0_gemm_ref: the same per activation row (ciot_gemm_by_rows), for shapes no repacked
 * layout takes. */
#include <stddef.h>
#include <string.h>
#include "kernel.h"
#include "prefetch.h"
#include "quant.h"
#include "ref_common.h"

/* Code of weight k of 256-block `b` (an element of a row of blocks `bytes` bytes apart). */
typedef int (*tq_code_fn)(const void *b, int k);
static int tq1_code(const void *b, int k) { return ciot_tq1_code(b, k); }
static int tq2_code(const void *b, int k) { return ciot_tq2_code(b, k); }

static void tq_gemv(const ciot_mm *mm, int first, int count, size_t bytes, tq_code_fn code) {
    const int nq = mm->K / CIOT_QK_TQ;
    const block_q8_K *x = mm->x;
    for (int r = first; r < first + count; r++) {
        const char *row = (const char *)mm->w + (size_t)r * nq * bytes;
        float acc = 0.0f;
        for (int i = 0; i < nq; i++) {
            const char *b = row + (size_t)i * bytes;
            ciot_prefetch(b, bytes, mm->prefetch);
            int32_t isum = 0;
            for (int k = 0; k < CIOT_QK_TQ; k++) isum += (code(b, k) - 1) * x[i].qs[k];
            uint16_t d; /* the scale is the block's last two bytes in both formats */
            memcpy(&d, b + bytes - 2, 2);
            acc = ciot_acc_q8_K(acc, isum, d, x[i].d);
        }
        mm->y[r] = acc;
    }
}

static void tq1_0_gemv_ref(const ciot_mm *mm, int first, int count) {
    tq_gemv(mm, first, count, sizeof(block_tq1_0), tq1_code);
}
static void tq2_0_gemv_ref(const ciot_mm *mm, int first, int count) {
    tq_gemv(mm, first, count, sizeof(block_tq2_0), tq2_code);
}

_Static_assert(offsetof(block_tq1_0, d) == sizeof(block_tq1_0) - 2, "TQ1_0 scale last");
_Static_assert(offsetof(block_tq2_0, d) == sizeof(block_tq2_0) - 2, "TQ2_0 scale last");

const ciot_kernel ciot_k_tq1_0_gemv_ref = {
    "tq1_0_gemv_ref", &ciot_layout_tq1_0, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "tq1_0_gemv_ref", tq1_0_gemv_ref,
    CIOT_MAC_SCALAR,
};
const ciot_kernel ciot_k_tq2_0_gemv_ref = {
    "tq2_0_gemv_ref", &ciot_layout_tq2_0, &ciot_act_q8_K, CIOT_OP_GEMV, 0, "tq2_0_gemv_ref", tq2_0_gemv_ref,
    CIOT_MAC_SCALAR,
};

static void tq1_0_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_gemm_by_rows(mm, first, count, tq1_0_gemv_ref, &ciot_act_q8_K); }

const ciot_kernel ciot_k_tq1_0_gemm_ref = {
    "tq1_0_gemm_ref", &ciot_layout_tq1_0, &ciot_act_q8_K, CIOT_OP_GEMM, 0, "tq1_0_gemm_ref", tq1_0_gemm_ref,
    CIOT_MAC_SCALAR,
};

static void tq2_0_gemm_ref(const ciot_mm *mm, int first, int count) { ciot_gemm_by_rows(mm, first, count, tq2_0_gemv_ref, &ciot_act_q8_K); }

const ciot_kernel ciot_k_tq2_0_gemm_ref = {
    "tq2_0_gemm_ref", &ciot_layout_tq2_0, &ciot_act_q8_K, CIOT_OP_GEMM, 0, "tq2_0_gemm_ref", tq2_0_gemm_ref,
    CIOT_MAC_SCALAR,
};
