#if !defined(__ARM_FEATURE_SVE2)
#error "tl3_tq1_sve2.c needs -march=armv9-a+sve2 (cmake/isa.cmake gives it to *_sve2.c)"
#endif
/* The gemv: TQ1_0 in TL3's bytes (layout tl3_tq1: 256-block q of a row = TL3 128-blocks 2q and 2q + 1, both
 * carrying its scale) times Q8_K activations by table lookup with SVE2's two-register TBL at any vector
 * length: tl3_gemv_sve2's lookups (tl3_sums_sve2.h), only the float order differs. TQ1_0's: the eight
 * sub-block sums of a 256-block added as integers (16-bit, exact), then one fmaf per row with block
 * 2q + 1's scales. K % 256 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "prefetch.h"
#include "tl3_sums_sve2.h"

typedef struct {
    ciot_tl3_tables_neon t; /* tl3_sums_neon.h */
    float dy;               /* the Q8_K scale of the 256-block */
    int half;               /* 0: its weights 0..127, 1: 128..255 */
} block_tables;

/* One tile's state between the two halves of a 256-block and across blocks (row r at index r). */
typedef struct {
    _Alignas(64) int16_t s[CIOT_LUT_TILE]; /* isum so far, exact: |isum| <= 256 * 127 over the 256-block */
    float acc[CIOT_LUT_TILE];
} tile_state;

static void build(const void *x, int i, void *tables) {
    const block_q8_K *y = (const block_q8_K *)x + (i >> 1);
    block_tables *tb = tables;
    ciot_tl3_build_block_neon(y->qs + CIOT_QK * (i & 1), &tb->t);
    tb->dy = y->d, tb->half = i & 1;
}

/* The hot loop: svcntb() rows x 32 weights (one sub-block) per iteration, 16 weights of a 32-row tile at
 * 128 bits; scripts/arm-cost scales the count to the length it compiles for. */
CIOT_MCA_TILE("tl3_tq1_gemv_sve2", "weight_rows=32 anchor=tbl weights_per_iteration_128=16");

/* Each partial sum is the isum of the sub-blocks so far, within +-8 * 32 * 127: no step leaves int16. */
static inline __attribute__((always_inline)) void block(const block_tl3 *w, const block_tables *tb, int16_t *S,
                                                         size_t prefetch, const int nw) {
    /* the sums in a local copy: stores to the state could alias the tables (bytes), which clang would then
     * reload after every store */
    int16_t s[CIOT_LUT_TILE] __attribute__((aligned(64)));
    memcpy(s, S, sizeof s);
    for (int q = 0; q < 4; q++) {
        ciot_prefetch(&w->sb[q], sizeof w->sb[q], prefetch);
        ciot_tl3_subblock_sums_sve2(w, &tb->t, q, s, nw);
    }
    memcpy(S, s, sizeof s);
}

/* One 128-block (half) of a tile. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl3 *w = wp;
    const block_tables *tb = tables;
    tile_state *st = state;
    ciot_prefetch(w->d, sizeof w->d, prefetch); /* the prefetch policy, each part just before it is read */
    if (!tb->half) memset(st->s, 0, sizeof st->s);
    const int nw = ciot_tl3_windows_sve2();
    CIOT_MCA_BEGIN("tl3_tq1_gemv_sve2");
    if (nw == 1)
        block(w, tb, st->s, prefetch, 1);
    else if (nw == 2)
        block(w, tb, st->s, prefetch, 2);
    else
        block(w, tb, st->s, prefetch, 4);
    CIOT_MCA_END();
    if (!tb->half) return;
    /* fmaf((float) isum, fp32(d[r]) * d_y, acc[r]); FCVT widens the fp16 scales exactly, SCVTF is exact */
    for (int r = 0; r < CIOT_LUT_TILE; r += (int)svcntw()) {
        const svbool_t p = svwhilelt_b32(r, CIOT_LUT_TILE);
        const svfloat32_t dw = svcvt_f32_f16_x(p, svreinterpret_f16_u32(svld1uh_u32(p, w->d + r)));
        const svfloat32_t isum = svcvt_f32_s32_x(p, svld1sh_s32(p, st->s + r));
        svst1_f32(p, st->acc + r, svmla_f32_m(p, svld1_f32(p, st->acc + r), isum, svmul_n_f32_x(p, dw, tb->dy)));
    }
}

static void finish(const void *state, float *y) {
    const tile_state *st = state;
    memcpy(y, st->acc, sizeof st->acc);
}

CIOT_LUT_METHOD(CIOT_TL3_GROUP, block_tables, tile_state, block_tl3, NULL);

CIOT_LUT_KERNELS(tl3_tq1, sve2, ciot_act_q8_K, CIOT_F_NEON | CIOT_F_SVE | CIOT_F_SVE2, CIOT_MAC_LOOKUP);
