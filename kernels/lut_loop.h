/* The loop around the lookup-table kernels of the TL2, TL3 and TL16 layouts (plain C, any kernel file, x86 or arm):
 * per-block data (activation tables, or whatever a kernel prepares) is built once for one 128-block, then
 * every 256-row tile of a group (formats.h: the layout's matrix order) runs that block, so the weights are
 * read in address order and each preparation serves the group's tiles. Per-tile float state (the
 * canonical accumulators) lives in a stack buffer. Stack: CIOT_LUT_ROWS x (CIOT_LUT_TABLE_BUDGET +
 * CIOT_LUT_STATE_BUDGET), 208 KiB. A lookup file ends in two rows: CIOT_LUT_METHOD, then CIOT_LUT_KERNELS or
 * CIOT_LUT_KERNELS_BY_BATCH (below). */
#ifndef CIOT_LUT_LOOP_H
#define CIOT_LUT_LOOP_H

#include <stddef.h>
#include <string.h>
#include "formats.h"
#include "kernel.h"

enum {
    CIOT_LUT_TABLE_BUDGET = 20 << 10, /* per-block data of one 128-block */
    CIOT_LUT_STATE_BUDGET = 32 << 10, /* float state of the tiles of one group */
    CIOT_LUT_ROWS = 4,                /* gemm: activation rows run against a weight block while it is in L1 */
};

/* Lists of lane constants: L32(F, 0) is F(0), F(1), ..., F(31). */
#define CIOT_L8(F, b) F((b) + 0), F((b) + 1), F((b) + 2), F((b) + 3), F((b) + 4), F((b) + 5), F((b) + 6), F((b) + 7)
#define CIOT_L16(F, b) CIOT_L8(F, b), CIOT_L8(F, (b) + 8)
#define CIOT_L32(F, b) CIOT_L16(F, b), CIOT_L16(F, (b) + 16)

/* TL3's constant tables on every ISA (kernels/README.md, "The lookup-table method"): a group's 128-entry table
 * is T[m] = P[m / 9] + Q[m % 9], P over the first three trits (H = 9 u0 + 3 u1 + u2), Q over the last two
 * (L = 3 u3 + u4 = 0..8): the coefficients u - 1 of entry H of P and L of Q (0 past L = 8, never indexed).
 * A pair code c: the trits u and the weights u - 1 of weights 30 and 31. */
#define CIOT_TL3_P0(H) ((H) / 9 - 1)
#define CIOT_TL3_P1(H) ((H) / 3 % 3 - 1)
#define CIOT_TL3_P2(H) ((H) % 3 - 1)
#define CIOT_TL3_Q3(L) ((L) < 9 ? (L) / 3 - 1 : 0)
#define CIOT_TL3_Q4(L) ((L) < 9 ? (L) % 3 - 1 : 0)
#define CIOT_TL3_PAIR_U0(c) (CIOT_TL3_PAIR_VALUE(c) / 3)
#define CIOT_TL3_PAIR_U1(c) (CIOT_TL3_PAIR_VALUE(c) % 3)
#define CIOT_TL3_PAIR_W0(c) (CIOT_TL3_PAIR_U0(c) - 1)
#define CIOT_TL3_PAIR_W1(c) (CIOT_TL3_PAIR_U1(c) - 1)

/* A lookup-table kernel: its layout's group (formats.h), its per-block data and float state, and the steps
 * the loop calls. table_bytes and group * state_bytes must fit the budgets. */
typedef struct {
    int group;           /* tiles per group of the layout's matrix order */
    size_t table_bytes;  /* per-block data of one 128-block (64-byte aligned) */
    size_t state_bytes;  /* float state of one tile (a multiple of 64), zeroed before the first block */
    size_t block_bytes;  /* bytes of one tile block of the layout */
    void (*build)(const void *x, int i, void *tables);                 /* tables of 128-block i of x */
    void (*run)(const void *w, const void *tables, void *state, size_t prefetch); /* one tile block */
    void (*finish)(const void *state, float *y);                       /* a tile's 256 results */
    /* Optional (NULL: run once per row): one tile block for nr (2 .. CIOT_LUT_ROWS) activation rows at once,
     * the same results as run per row, for a kernel whose weight decoding several rows can share. */
    void (*run_rows)(const void *w, const void *const *tables, void *const *states, int nr, size_t prefetch);
} ciot_lut_method;

/* A method's run and run_rows from one always-inline step(w, tables, states, nr, prefetch) that does nr rows at
 * once: run is the step for one row; run_rows passes every row count (2, 3, 4) as a constant, so the step's row
 * loops unroll and its sums stay in registers (with nr a variable they live on the stack, and a batch of 2 or 3
 * ran at half the gemv's rate per row). */
_Static_assert(CIOT_LUT_ROWS == 4, "run_rows has a case for every row count from 2 to CIOT_LUT_ROWS");
#define CIOT_LUT_RUN_FROM_STEP(step, run, run_rows)                                                            \
    static void run(const void *w, const void *tables, void *state, size_t prefetch) {                        \
        step(w, &tables, &state, 1, prefetch);                                                                 \
    }                                                                                                          \
    static void run_rows(const void *w, const void *const *tables, void *const *states, int nr, size_t prefetch) { \
        if (nr == 2)                                                                                           \
            step(w, tables, states, 2, prefetch);                                                              \
        else if (nr == 3)                                                                                      \
            step(w, tables, states, 3, prefetch);                                                              \
        else                                                                                                   \
            step(w, tables, states, CIOT_LUT_ROWS, prefetch);                                                  \
    }

/* Tiles [first, first + count) against mm->batch activation rows of x_row_bytes each (a gemv: one row).
 * Per part of a group in the slice, per run of up to CIOT_LUT_ROWS activation rows, per 128-block: each
 * row's tables are built, then every tile of the part runs the block for each row in turn, so a weight block
 * is read from memory once per run of rows and reused from L1; the prefetch is issued on the first row's
 * call only, as in a gemv. The tiles' blocks i are adjacent in memory (read in address order). Each row gets
 * the gemv's float order. Row b's results go to y + b * ldy. */
static inline void ciot_lut_mm(const ciot_lut_method *m, const ciot_mm *mm, int first, int count, size_t x_row_bytes) {
    _Alignas(64) unsigned char tables[CIOT_LUT_ROWS][CIOT_LUT_TABLE_BUDGET];
    _Alignas(64) unsigned char state[CIOT_LUT_ROWS][CIOT_LUT_STATE_BUDGET];
    const int nb = mm->K / 128, tiles = mm->rows / CIOT_LUT_TILE, end = first + count;
    const unsigned char *W = mm->w, *X = mm->x;
    for (int s0 = first; s0 < end;) {
        const int group_end = s0 - s0 % m->group + m->group, ns = (group_end < end ? group_end : end) - s0;
        for (int b0 = 0; b0 < mm->batch; b0 += CIOT_LUT_ROWS) {
            const int nr = mm->batch - b0 < CIOT_LUT_ROWS ? mm->batch - b0 : CIOT_LUT_ROWS;
            for (int r = 0; r < nr; r++) memset(state[r], 0, (size_t)ns * m->state_bytes);
            for (int i = 0; i < nb; i++) {
                for (int r = 0; r < nr; r++) m->build(X + (size_t)(b0 + r) * x_row_bytes, i, tables[r]);
                const unsigned char *w = W + ciot_lut_block_index(s0, i, tiles, nb, m->group) * m->block_bytes;
                for (int t = 0; t < ns; t++) {
                    const unsigned char *wt = w + (size_t)t * m->block_bytes;
                    if (m->run_rows && nr > 1) {
                        const void *tab[CIOT_LUT_ROWS];
                        void *st[CIOT_LUT_ROWS];
                        for (int r = 0; r < nr; r++) tab[r] = tables[r], st[r] = state[r] + (size_t)t * m->state_bytes;
                        m->run_rows(wt, tab, st, nr, mm->prefetch);
                    } else {
                        for (int r = 0; r < nr; r++)
                            m->run(wt, tables[r], state[r] + (size_t)t * m->state_bytes, r ? 0 : mm->prefetch);
                    }
                }
            }
            for (int r = 0; r < nr; r++)
                for (int t = 0; t < ns; t++)
                    m->finish(state[r] + (size_t)t * m->state_bytes,
                              mm->y + (size_t)(b0 + r) * mm->ldy + (size_t)CIOT_LUT_TILE * (s0 + t));
        }
        s0 += ns;
    }
}

/* The gemv (batch 1). */
static inline void ciot_lut_gemv(const ciot_lut_method *m, const ciot_mm *mm, int first, int count) {
    ciot_lut_mm(m, mm, first, count, 0);
}

/* The gemm: mm->batch rows of activation format `act`, one after another. */
static inline void ciot_lut_gemm(const ciot_lut_method *m, const ciot_act_format *act, const ciot_mm *mm, int first,
                                 int count) {
    ciot_lut_mm(m, mm, first, count, ciot_act_bytes(act, 1, mm->K));
}

/* A lookup file's `method` from its static build, run and finish (and run_rows, or NULL), the types of its per-block
 * data, tile state and weight block, and its layout's group; the budgets and the state's alignment are checked. */
#define CIOT_LUT_METHOD(group_tiles, table_type, state_type, block_type, run_rows_fn)                           \
    static const ciot_lut_method method = {(group_tiles), sizeof(table_type), sizeof(state_type),              \
                                           sizeof(block_type), build, run, finish, run_rows_fn};               \
    _Static_assert(sizeof(table_type) <= CIOT_LUT_TABLE_BUDGET, "a block's tables fit");                       \
    _Static_assert((group_tiles) * sizeof(state_type) <= CIOT_LUT_STATE_BUDGET, "a group's state fits");       \
    _Static_assert(sizeof(state_type) % 64 == 0, "tile states stay 64-byte aligned")

/* The gemv of a lookup file on its `method`: LAYOUT_gemv_ISA (twin LAYOUT_gemv_ref) on ciot_layout_LAYOUT, with
 * activations act_format, CPU features and inner loop mac_family; its compute function is a static gemv. */
#define CIOT_LUT_GEMV_(layout_name, isa, act_format, feature_bits, mac_family)                                  \
    static void gemv(const ciot_mm *mm, int first, int count) { ciot_lut_gemv(&method, mm, first, count); }    \
    CIOT_KERNEL(layout_name##_gemv_##isa, layout_name##_gemv_ref, .layout = &ciot_layout_##layout_name,        \
                .act = &(act_format), .op = CIOT_OP_GEMV, .features = (feature_bits), .compute = gemv,         \
                .mac = (mac_family))

/* A lookup file's two kernels on its `method` (CIOT_LUT_METHOD): the gemv above and LAYOUT_gemm_ISA (twin
 * LAYOUT_gemm_ref), the method once per activation row (ciot_lut_gemm) at every batch, each row in the gemv's
 * float order; its compute function is a static gemm. */
#define CIOT_LUT_KERNELS(layout_name, isa, act_format, feature_bits, mac_family)                                \
    CIOT_LUT_GEMV_(layout_name, isa, act_format, feature_bits, mac_family);                                     \
    static void gemm(const ciot_mm *mm, int first, int count) {                                                 \
        ciot_lut_gemm(&method, &(act_format), mm, first, count);                                                \
    }                                                                                                           \
    CIOT_KERNEL(layout_name##_gemm_##isa, layout_name##_gemm_ref, .layout = &ciot_layout_##layout_name,        \
                .act = &(act_format), .op = CIOT_OP_GEMM, .features = (feature_bits), .compute = gemm,         \
                .mac = (mac_family))

/* The same two kernels, but from from_batch activation rows on the gemm runs from_call instead (weights decoded
 * once for the whole batch; a call on the compute function's mm, first and count, written in place so that it
 * is compiled as if the gemm were written out), whose inner loop is mac_from. The batch is the gemm descriptor's
 * .mac_batch, which the gemm reads back (ciot_kernel_at_batch), and nowhere else. */
#define CIOT_LUT_KERNELS_BY_BATCH(layout_name, isa, act_format, feature_bits, mac_family, from_batch, mac_from, from_call) \
    CIOT_LUT_GEMV_(layout_name, isa, act_format, feature_bits, mac_family);                                     \
    extern const ciot_kernel ciot_k_##layout_name##_gemm_##isa;                                                 \
    static void gemm(const ciot_mm *mm, int first, int count) {                                                 \
        if (!ciot_kernel_at_batch(&ciot_k_##layout_name##_gemm_##isa, mm->batch))                               \
            ciot_lut_gemm(&method, &(act_format), mm, first, count);                                            \
        else                                                                                                    \
            from_call;                                                                                          \
    }                                                                                                           \
    CIOT_KERNEL(layout_name##_gemm_##isa, layout_name##_gemm_ref, .layout = &ciot_layout_##layout_name,        \
                .act = &(act_format), .op = CIOT_OP_GEMM, .features = (feature_bits), .compute = gemm,         \
                .mac = (mac_family), .mac_batch = (from_batch), .mac_at_batch = (mac_from))

#endif
