/* Loops around the 4-row reference tiles: canonical float order per output, block by block. */
#include <stdlib.h>
#include "prefetch.h"
#include "quant.h"
#include "common.h"
#include "tile4x4.h"

/* T2X4 and T2P share the 136-byte block shape: fp16 d[4], then 128 code bytes. */
static void tile(const block_t2x4 *w, int nb, const block_q8_K *const *rows, int nrows, float *out, int ldy,
                 ciot_tile4x4_dot_ref_fn dot, int halves, size_t prefetch) {
    for (int b = 0; b < nrows; b++) {
        float acc[4] = {0, 0, 0, 0};
        for (int i = 0; i < nb; i += halves) {
            const block_q8_K *y = &rows[b][i >> 1];
            int32_t isum[4] = {0, 0, 0, 0};
            for (int h = 0; h < halves; h++) {
                int32_t part[4];
                ciot_prefetch(&w[i + h], sizeof w[i + h], prefetch);
                dot(w[i + h].qs, y->qs + 128 * ((i + h) & 1), part);
                for (int r = 0; r < 4; r++) isum[r] += part[r];
            }
            for (int r = 0; r < 4; r++) acc[r] = ciot_acc_q8_K_ref(acc[r], isum[r], w[i].d[r], y->d);
        }
        for (int r = 0; r < 4; r++) out[(size_t)b * ldy + r] = acc[r];
    }
}

void ciot_tile4x4_gemv_ref(const ciot_mm *mm, int first, int count, ciot_tile4x4_dot_ref_fn dot, int halves) {
    const int nb = mm->K / CIOT_QK;
    const block_q8_K *x = mm->x;
    for (int g = first; g < first + count; g++)
        tile((const block_t2x4 *)mm->w + (size_t)g * nb, nb, &x, 1, mm->y + 4 * g, 0, dot, halves, mm->prefetch);
}

void ciot_tile4x4_gemm_ref(const ciot_mm *mm, int first, int count, ciot_tile4x4_dot_ref_fn dot, int halves) {
    const int nb = mm->K / CIOT_QK, nbk = mm->K / CIOT_QK_K;
    const block_q8_Kx4 *x = mm->x;
    block_q8_K *rows = malloc(sizeof(block_q8_K) * (size_t)nbk * 4);
    if (!rows) abort(); /* a reference on a test-sized problem; 4 rows of one K */
    for (int bg = 0; bg < (mm->batch + 3) / 4; bg++) {
        const int n = mm->batch - 4 * bg < 4 ? mm->batch - 4 * bg : 4;
        const block_q8_K *rp[4];
        for (int r = 0; r < 4; r++) {
            for (int i = 0; i < nbk; i++) ciot_q8_Kx4_row(&x[(size_t)bg * nbk + i], r, &rows[(size_t)r * nbk + i]);
            rp[r] = &rows[(size_t)r * nbk];
        }
        for (int g = first; g < first + count; g++)
            tile((const block_t2x4 *)mm->w + (size_t)g * nb, nb, rp, n, mm->y + (size_t)4 * bg * mm->ldy + 4 * g,
                 mm->ldy, dot, halves, mm->prefetch);
    }
    free(rows);
}
