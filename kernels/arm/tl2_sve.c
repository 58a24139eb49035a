#if !defined(__ARM_FEATURE_SVE)
#error "tl2_sve.c needs -march=armv8.2-a+sve (cmake/isa.cmake gives it to *_sve.c)"
#endif
/* The gemv: TL2 tiles (256 rows x 128 weights) times Q8_K activations by 16-entry SVE TBL lookups at any
 * vector length: the tables and their byte planes are tl2_gemv_neon's (built with the same NEON helpers),
 * and one vector holds svcntb() rows' codes of a byte (the last run of a 256-row plane predicated: at 384
 * bits 5 x 48 + 16 rows). A 16-entry table needs only the first 16 bytes of its vector: SVE TBL indexes the
 * whole vector and every index is 0..15. Per run of rows and 4 bytes: 4 loads, AND + LSR per byte, 16 TBL,
 * 16 ADD into byte sums (l in 0..248, h in -128..120), then into the int16 running sums of the tile block's
 * rows in L1 (UUNPKLO/HI keep the row order). At 128 bits (run_q) the rows are the outer loop instead: a run of
 * 16 rows keeps its int16 sums in registers over the whole block and reloads the tables per 4 bytes. PQ2_0's
 * float order: per row one fmaf per block. K % 256 == 0, rows % 256 == 0. */
#include "formats.h"
#include "kernel.h"
#include "lut_loop.h"
#include "lut_neon.h"
#include "prefetch.h"
#include "util_sve.h"

/* Byte j: t[j][0], t[j][1] = planes l, h of its low nibble's table, t[j][2], t[j][3] of its high nibble's. */
typedef struct {
    uint8_t t[32][4][16];
    float dy; /* the Q8_K scale */
} block_tables;

/* coefficients (code - 1) of a nibble's two weights, per nibble value c */
#define N0(c) (((c) & 3) - 1)
#define N1(c) (((c) >> 2) - 1)
static const int8_t coef[2][16] = {{CIOT_L16(N0, 0)}, {CIOT_L16(N1, 0)}};

static void build(const void *x, int i, void *tables) {
    const block_q8_K *b = (const block_q8_K *)x + (i >> 1);
    const int8_t *a = b->qs + 128 * (i & 1);
    block_tables *tb = tables;
    for (int j = 0; j < 32; j++)
        for (int n = 0; n < 2; n++) /* |T| <= 2 * 2 * 127: l in 0..31, h in -16..15 */
            ciot_lut_table16_neon(coef[0], coef[1], a[4 * j + 2 * n], a[4 * j + 2 * n + 1], tb->t[j][2 * n],
                                  (int8_t *)tb->t[j][2 * n + 1]);
    tb->dy = b->d;
}

/* The hot loop: svcntb() rows x 16 weights per iteration, as many weights of a 32-row tile as 8 per row at
 * 128 bits (16 at 256): scripts/arm-cost scales the count to the length it compiles for. */
CIOT_MCA_TILE("tl2_gemv_sve", "weight_rows=32 anchor=tbl weights_per_iteration_128=8");

/* Byte j of the 4 for the rows under pg from o: its nibbles' lookups, sl (planes l) and sh (planes h). */
#define CIOT_TL2_LOOKUP_SVE(j, pg, o, sl, sh)                                              \
    const svuint8_t x##j = svld1_u8(pg, w->qs[j0 + (j)] + (o));                            \
    const svuint8_t lo##j = ciot_and_sve(x##j, c15), hi##j = CIOT_LSR_U8_SVE(x##j, 4);    \
    const svuint8_t sl = ciot_add_u8_sve(svtbl_u8(l##j, lo##j), svtbl_u8(L##j, hi##j));   \
    const svuint8_t sh = ciot_add_u8_sve(svtbl_u8(h##j, lo##j), svtbl_u8(H##j, hi##j))
/* Bytes 0..2 into the byte sums al, ah (byte 0 starts them), byte 3's lookups in sl3, sh3. */
#define CIOT_TL2_BYTES_SVE(pg, o)                                          \
    CIOT_TL2_LOOKUP_SVE(0, pg, o, sl0, sh0);                               \
    CIOT_TL2_LOOKUP_SVE(1, pg, o, sl1, sh1);                               \
    svuint8_t al = ciot_add_u8_sve(sl0, sl1), ah = ciot_add_u8_sve(sh0, sh1); \
    CIOT_TL2_LOOKUP_SVE(2, pg, o, sl2, sh2);                               \
    al = ciot_add_u8_sve(al, sl2), ah = ciot_add_u8_sve(ah, sh2);          \
    CIOT_TL2_LOOKUP_SVE(3, pg, o, sl3, sh3)

/* Rows o .. o + svcntb() - 1 (those under pg): s += al + 32 ah, widened in row order (UUNPKLO/HI). */
#define CIOT_TL2_RUN_SVE(pg, o)                                                                                    \
    do {                                                                                                           \
        CIOT_TL2_BYTES_SVE(pg, o);                                                                                 \
        const svuint8_t a4 = ciot_add_u8_sve(al, sl3), h4 = ciot_add_u8_sve(ah, sh3);                              \
        const svbool_t p0 = svwhilelt_b16((o), CIOT_LUT_TILE), p1 = svwhilelt_b16((o) + vb / 2, CIOT_LUT_TILE);  \
        const svint16_t a0 = svreinterpret_s16_u16(svunpklo_u16(a4)), a1 = svreinterpret_s16_u16(svunpkhi_u16(a4)); \
        const svint16_t b0 = svunpklo_s16(svreinterpret_s8_u8(h4)), b1 = svunpkhi_s16(svreinterpret_s8_u8(h4));   \
        svst1_s16(p0, s + (o), svadd_s16_x(p0, svld1_s16(p0, s + (o)), svmla_n_s16_x(p0, a0, b0, 32)));             \
        svst1_s16(p1, s + (o) + vb / 2, svadd_s16_x(p1, svld1_s16(p1, s + (o) + vb / 2), svmla_n_s16_x(p1, a1, b1, 32))); \
    } while (0)

/* The same at 128 bits for rows o .. o + 15 into their int16 sums sv (registers): the byte sums' last ADDs write
 * NEON registers, and NEON's UADDW and SMLAL widen them (four instructions per 16 rows, where SVE1 needs four
 * unpacks, two adds and two multiply-adds) */
#define CIOT_TL2_RUN_Q_SVE(o, sv)                                                                          \
    do {                                                                                                   \
        CIOT_TL2_BYTES_SVE(all, o);                                                                        \
        const uint8x16_t al_q = ciot_add_u8_q_sve(al, sl3), ah_q = ciot_add_u8_q_sve(ah, sh3);            \
        ciot_lut_widen_neon(al_q, vreinterpretq_s8_u8(ah_q), sv);                                          \
    } while (0)

/* The four bytes j0 .. j0 + 3's tables, 16 registers (the first 16 bytes of each vector are the table) */
#define CIOT_TL2_TABLES_SVE(j0)                                                                                    \
    const svuint8_t l0 = svld1rq_u8(all, tb->t[j0][0]), h0 = svld1rq_u8(all, tb->t[j0][1]);                        \
    const svuint8_t L0 = svld1rq_u8(all, tb->t[j0][2]), H0 = svld1rq_u8(all, tb->t[j0][3]);                        \
    const svuint8_t l1 = svld1rq_u8(all, tb->t[(j0) + 1][0]), h1 = svld1rq_u8(all, tb->t[(j0) + 1][1]);            \
    const svuint8_t L1 = svld1rq_u8(all, tb->t[(j0) + 1][2]), H1 = svld1rq_u8(all, tb->t[(j0) + 1][3]);            \
    const svuint8_t l2 = svld1rq_u8(all, tb->t[(j0) + 2][0]), h2 = svld1rq_u8(all, tb->t[(j0) + 2][1]);            \
    const svuint8_t L2 = svld1rq_u8(all, tb->t[(j0) + 2][2]), H2 = svld1rq_u8(all, tb->t[(j0) + 2][3]);            \
    const svuint8_t l3 = svld1rq_u8(all, tb->t[(j0) + 3][0]), h3 = svld1rq_u8(all, tb->t[(j0) + 3][1]);            \
    const svuint8_t L3 = svld1rq_u8(all, tb->t[(j0) + 3][2]), H3 = svld1rq_u8(all, tb->t[(j0) + 3][3])

/* 128 bits: rows outer. Each run of 16 rows keeps its int16 sums in two registers over the block's 32 bytes and
 * reloads the 16 table registers per 4 bytes (loads, on the load pipes), instead of loading and storing the sums
 * per 4 bytes (a vector store's data is a vector-pipe uop: 2 per 16 rows and 4 bytes, 1.75 saved); then the
 * float step of those 16 rows (NEON's). The codes are read 16 bytes of each of the 32 byte planes per run (a
 * stride of 256 bytes); the prefetch covers the block's codes in 16 slices of 512 bytes, one per run. */
static void run_q(const block_tl2 *w, const block_tables *tb, float *acc, size_t prefetch) {
    const svbool_t all = svptrue_b8();
    svuint8_t c15 = svdup_n_u8(15);
    __asm__("" : "+w"(c15)); /* in a register: the two-vector AND (util_sve.h) */
    CIOT_MCA_BEGIN("tl2_gemv_sve");
    for (int o = 0; o < CIOT_LUT_TILE; o += 16) {
        ciot_prefetch(&w->qs[0][0] + (size_t)(o / 16) * (sizeof w->qs / 16), sizeof w->qs / 16, prefetch);
        int16x8_t sv[2] = {vdupq_n_s16(0), vdupq_n_s16(0)};
#pragma clang loop unroll(disable) /* the loop scripts/arm-cost measures */
        for (int j0 = 0; j0 < 32; j0 += 4) {
            CIOT_TL2_TABLES_SVE(j0);
            CIOT_TL2_RUN_Q_SVE(o, sv);
        }
        float32x4_t dw[4];
        ciot_lut_scales_neon(w->d + o, dw);
        float32x4_t a[4];
        for (int k = 0; k < 4; k++) a[k] = vld1q_f32(acc + o + 4 * k);
        ciot_lut_fma16_neon(sv, dw, tb->dy, a); /* fmaf((float) isum, fp32(d[r]) * d_y, acc[r]), as below */
        for (int k = 0; k < 4; k++) vst1q_f32(acc + o + 4 * k, a[k]);
    }
    CIOT_MCA_END();
}

/* One 128-block of a tile: the block's int16 sums per row in s (int16 safe: a row's sum is at most 128 products
 * of at most 2 * 127), then the float step into the state, rows in order; at 128 bits run_q. */
static void run(const void *wp, const void *tables, void *state, size_t prefetch) {
    const block_tl2 *w = wp;
    const block_tables *tb = tables;
    float *acc = state;
    const int vb = (int)svcntb();
    ciot_prefetch(w->d, sizeof w->d, prefetch);
    if (vb == 16) {
        run_q(w, tb, acc, prefetch);
        return;
    }
    int16_t s[CIOT_LUT_TILE] __attribute__((aligned(64))) = {0};
    const svbool_t all = svptrue_b8();
    svuint8_t c15 = svdup_n_u8(15);
    __asm__("" : "+w"(c15)); /* in a register: the two-vector AND (util_sve.h) */
    CIOT_MCA_BEGIN("tl2_gemv_sve");
    for (int j0 = 0; j0 < 32; j0 += 4) {
        /* the four bytes' tables stay in registers while their four 256-byte planes are read whole */
        CIOT_TL2_TABLES_SVE(j0);
        ciot_prefetch(w->qs[j0], 4 * sizeof w->qs[j0], prefetch);
        int o = 0;
#pragma clang loop unroll(disable) /* the loop scripts/arm-cost measures */
        for (; o + vb <= CIOT_LUT_TILE; o += vb) CIOT_TL2_RUN_SVE(all, o);
        if (o < CIOT_LUT_TILE) { /* 256 rows are not a whole number of vectors (5 x 48 + 16 at 384 bits) */
            const svbool_t pg = svwhilelt_b8(o, CIOT_LUT_TILE);
            CIOT_TL2_RUN_SVE(pg, o);
        }
    }
    CIOT_MCA_END();
    /* fmaf((float) isum, fp32(d[r]) * d_y, acc[r]); FCVT widens the fp16 scales exactly, SCVTF is exact */
    for (int r = 0; r < CIOT_LUT_TILE; r += (int)svcntw()) {
        const svbool_t p = svwhilelt_b32(r, CIOT_LUT_TILE);
        const svfloat32_t dw = svcvt_f32_f16_x(p, svreinterpret_f16_u32(svld1uh_u32(p, w->d + r)));
        const svfloat32_t isum = svcvt_f32_s32_x(p, svld1sh_s32(p, s + r));
        svst1_f32(p, acc + r, svmla_f32_m(p, svld1_f32(p, acc + r), isum, svmul_n_f32_x(p, dw, tb->dy)));
    }
}

static void finish(const void *state, float *y) { memcpy(y, state, CIOT_LUT_TILE * sizeof(float)); }

CIOT_LUT_METHOD(CIOT_TL2_GROUP, block_tables, float[CIOT_LUT_TILE], block_tl2, NULL);

CIOT_LUT_KERNELS(tl2, sve, ciot_act_q8_K, CIOT_F_NEON | CIOT_F_SVE, CIOT_MAC_LOOKUP);
