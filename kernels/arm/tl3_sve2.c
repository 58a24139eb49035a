#if !defined(__ARM_FEATURE_SVE2)
#error "tl3_sve2.c needs -march=armv9-a+sve2 (cmake/isa.cmake gives it to *_sve2.c)"
#endif
/* The gemv: TL3 tiles (256 rows x 128 weights) times Q8_0 activations by 128-entry lookups with SVE2's
 * two-register TBL at any vector length: tl3_gemv_neon's tables, svcntb() rows per iteration
 * (tl3_sums_sve2.h). Per sub-block q the rows' int16 sums, then PTQ1_0's float order: four lanes per row
 * (one per Q8_0 block, fmaf with d_y[q] * d_w[r]), then (a0 + a1) + (a2 + a3). K % 128 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "prefetch.h"
#include "tl3_sums_sve2.h"

typedef struct {
    ciot_tl3_tables_neon t; /* tl3_sums_neon.h */
    float dy[4];            /* fp32 scale of each Q8_0 block */
} block_tables;

static void build(const void *x, int i, void *tables) {
    const block_q8_0 *y = (const block_q8_0 *)x + 4 * (size_t)i;
    block_tables *tb = tables;
    int8_t a[CIOT_QK]; /* the four Q8_0 blocks' values side by side */
    for (int q = 0; q < 4; q++) {
        memcpy(a + 32 * q, y[q].qs, 32);
        tb->dy[q] = ciot_fp16_neon(&y[q].d);
    }
    ciot_tl3_build_block_neon(a, &tb->t);
}

/* The hot loop: svcntb() rows x 32 weights (one sub-block) per iteration, 16 weights of a 32-row tile at
 * 128 bits; scripts/arm-cost scales the count to the length it compiles for. */
CIOT_MCA_TILE("tl3_gemv_sve2", "weight_rows=32 anchor=tbl weights_per_iteration_128=16");

/* The block's four sub-blocks: the sums of each, then its float lane acc[q][r] of every row. */
static inline __attribute__((always_inline)) void block(const block_tl3 *w, const block_tables *tb, float (*acc)[CIOT_LUT_TILE],
                                                         size_t prefetch, const int nw) {
    for (int q = 0; q < 4; q++) {
        int16_t s[CIOT_LUT_TILE] __attribute__((aligned(64))) = {0};
        ciot_prefetch(&w->sb[q], sizeof w->sb[q], prefetch);
        ciot_tl3_subblock_sums_sve2(w, &tb->t, q, s, nw);
        /* fmaf((float) isum, fp32(d[r]) * d_y, acc[q][r]); FCVT widens the fp16 scales exactly, SCVTF is exact */
        for (int r = 0; r < CIOT_LUT_TILE; r += (int)svcntw()) {
            const svbool_t p = svwhilelt_b32(r, CIOT_LUT_TILE);
            const svfloat32_t dw = svcvt_f32_f16_x(p, svreinterpret_f16_u32(svld1uh_u32(p, w->d + r)));
            const svfloat32_t isum = svcvt_f32_s32_x(p, svld1sh_s32(p, s + r));
            svst1_f32(p, acc[q] + r, svmla_f32_m(p, svld1_f32(p, acc[q] + r), isum, svmul_n_f32_x(p, dw, tb->dy[q])));
        }
    }
}

static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    const int nw = ciot_tl3_windows_sve2();
    CIOT_MCA_BEGIN("tl3_gemv_sve2");
    if (nw == 1)
        block(w, tables, state, prefetch, 1);
    else if (nw == 2)
        block(w, tables, state, prefetch, 2);
    else
        block(w, tables, state, prefetch, 4);
    CIOT_MCA_END();
}

static void finish(const void *state, float *y) {
    const float(*acc)[CIOT_LUT_TILE] = state;
    for (int r = 0; r < CIOT_LUT_TILE; r++) y[r] = (acc[0][r] + acc[1][r]) + (acc[2][r] + acc[3][r]);
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_tables, float[4][CIOT_LUT_TILE], block_tl3, NULL);

CIOT_LUT_KERNELS(tl3, sve2, ciot_act_q8_0, CIOT_F_NEON | CIOT_F_SVE | CIOT_F_SVE2, CIOT_MAC_LOOKUP);
