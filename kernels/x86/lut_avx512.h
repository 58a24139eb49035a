/* The loop around the AVX-512 VBMI lookup-table gemv kernels (tl2, tl3; included only by *_avx512vbmi.c):
 * tables of activation sums are built for one 128-block, then every tile of a group (formats.h: the
 * layout's matrix order) runs that block, four tiles at a time so that each table load serves four tiles. Also the row order the byte-to-int32 step leaves (ciot_lut_row) and its fp16 scale permutation.
 * Stack: CIOT_LUT_TABLE_BUDGET + CIOT_LUT_STATE_BUDGET bytes (52 KiB). */
#ifndef CIOT_X86_LUT_AVX512_H
#define CIOT_X86_LUT_AVX512_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "formats.h"
#include "kernel.h"

enum {
    CIOT_LUT_TABLE_BUDGET = 20 << 10, /* tables of one 128-block */
    CIOT_LUT_STATE_BUDGET = 32 << 10, /* float state of the tiles of one super-tile */
};

/* Lists of lane constants: L32(F, 0) is F(0), F(1), ..., F(31). */
#define CIOT_L8(F, b) F((b) + 0), F((b) + 1), F((b) + 2), F((b) + 3), F((b) + 4), F((b) + 5), F((b) + 6), F((b) + 7)
#define CIOT_L16(F, b) CIOT_L8(F, b), CIOT_L8(F, (b) + 8)
#define CIOT_L32(F, b) CIOT_L16(F, b), CIOT_L16(F, (b) + 16)

/* Row of lane d of int32 vector v (v, d = 0..3, 0..15) after ciot_lut_widen: unpacklo / unpackhi of the
 * byte sums give rows 16L + j / 16L + 8 + j in 16-bit lane 8L + j, and the two vpdpbusd weight patterns
 * take the even / odd 16-bit lane of each 32-bit lane. */
static inline int ciot_lut_row(int v, int d) { return 16 * (d >> 2) + 8 * (v >> 1) + 2 * (d & 3) + (v & 1); }
#define CIOT_LUT_ROW01(w) (16 * (((w) & 15) >> 2) + 2 * ((w) & 3) + ((w) >> 4))
#define CIOT_LUT_ROW23(w) (CIOT_LUT_ROW01(w) + 8)
static const uint16_t ciot_lut_rows01[32] = {CIOT_L32(CIOT_LUT_ROW01, 0)}, ciot_lut_rows23[32] = {CIOT_L32(CIOT_LUT_ROW23, 0)};

/* fp32 row scales of a 64-row tile block in that order: s[v] lane d = fp32(d[ciot_lut_row(v, d)]). */
static inline void ciot_lut_row_scales(const uint16_t *d, __m512 s[4]) {
    const __m512i d0 = _mm512_loadu_si512(d), d1 = _mm512_loadu_si512(d + 32); /* rows 0..31, 32..63 */
    const __m512i p01 = _mm512_permutex2var_epi16(d0, _mm512_loadu_si512(ciot_lut_rows01), d1);
    const __m512i p23 = _mm512_permutex2var_epi16(d0, _mm512_loadu_si512(ciot_lut_rows23), d1);
    s[0] = _mm512_cvtph_ps(_mm512_castsi512_si256(p01)), s[1] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(p01, 1));
    s[2] = _mm512_cvtph_ps(_mm512_castsi512_si256(p23)), s[3] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(p23, 1));
}

/* acc[v] += lo + 32 * hi per row, lo and hi unsigned byte sums of 64 rows (row r at byte r). */
static inline void ciot_lut_widen(__m512i lo, __m512i hi, __m512i acc[4]) {
    const __m512i w0 = _mm512_set1_epi32(1 | 32 << 8), w1 = _mm512_set1_epi32(1 << 16 | 32 << 24);
    const __m512i a = _mm512_unpacklo_epi8(lo, hi), b = _mm512_unpackhi_epi8(lo, hi);
    acc[0] = _mm512_dpbusd_epi32(acc[0], a, w0), acc[1] = _mm512_dpbusd_epi32(acc[1], a, w1);
    acc[2] = _mm512_dpbusd_epi32(acc[2], b, w0), acc[3] = _mm512_dpbusd_epi32(acc[3], b, w1);
}

/* Writes 64 results s[v] (ciot_lut_row order) to y[0..63]. */
static inline void ciot_lut_store(const __m512 s[4], float *y) {
    float out[4][16];
    for (int v = 0; v < 4; v++) _mm512_storeu_ps(out[v], s[v]);
    for (int v = 0; v < 4; v++)
        for (int d = 0; d < 16; d++) y[ciot_lut_row(v, d)] = out[v][d];
}

/* A lookup-table gemv: its layout's group (formats.h), its tables and float state, and the three steps the
 * loop calls. table_bytes and group * state_bytes must fit the budgets. */
typedef struct {
    int group;           /* tiles per group of the layout's matrix order */
    size_t table_bytes;  /* tables of one 128-block (a multiple of 64) */
    size_t state_bytes;  /* float state of one tile (a multiple of 64), zeroed before the first block */
    size_t block_bytes;  /* bytes of one tile block of the layout */
    void (*build)(const void *x, int i, void *tables);                 /* tables of 128-block i of x */
    void (*run)(const void *w, const void *tables, void *state, size_t prefetch); /* one tile block */
    void (*finish)(const void *state, float *y);                       /* a tile's 256 results */
} ciot_lut_method;

/* Tiles [first, first + count): per part of a group in the slice, per 128-block, the block's tables are
 * built once and run over the part's tiles, whose blocks i are adjacent in memory (read in address order). */
static inline void ciot_lut_gemv(const ciot_lut_method *m, const ciot_mm *mm, int first, int count) {
    _Alignas(64) unsigned char tables[CIOT_LUT_TABLE_BUDGET];
    _Alignas(64) unsigned char state[CIOT_LUT_STATE_BUDGET];
    const int nb = mm->K / 128, tiles = mm->rows / CIOT_LUT_TILE, end = first + count;
    const unsigned char *W = mm->w;
    for (int s0 = first; s0 < end;) {
        const int group_end = s0 - s0 % m->group + m->group, ns = (group_end < end ? group_end : end) - s0;
        memset(state, 0, (size_t)ns * m->state_bytes);
        for (int i = 0; i < nb; i++) {
            m->build(mm->x, i, tables);
            const unsigned char *w = W + ciot_lut_block_index(s0, i, tiles, nb, m->group) * m->block_bytes;
            for (int t = 0; t < ns; t++) m->run(w + (size_t)t * m->block_bytes, tables, state + (size_t)t * m->state_bytes, mm->prefetch);
        }
        for (int t = 0; t < ns; t++)
            m->finish(state + (size_t)t * m->state_bytes, mm->y + (size_t)CIOT_LUT_TILE * (s0 + t));
        s0 += ns;
    }
}

#endif
