/* The loop around a 4-row reference tile: gemv, and gemm 4 weight rows x 4 activation rows (Q8_Kx4 rows taken
 * apart), for the layouts of 136-byte 4-row blocks (T2X4, T2P) whose block dot is given; the dot reads the
 * layout's own bytes. */
#ifndef CIOT_REF_TILE4X4_H
#define CIOT_REF_TILE4X4_H

#include "formats.h"
#include "kernel.h"

/* isum[r] = exact dot of row r's 128 weights (code - 1) of `blk` with a[0..127]. */
typedef void (*ciot_tile4x4_dot_ref_fn)(const uint8_t qs[128], const int8_t *a, int32_t isum[4]);

/* halves: 128-blocks per float step. 1: every block's own scales (PQ2_0 family). 2: the layout carries
 * TQ2_0's 256-block scale in both halves; the two halves' integer sums are added first, then one step
 * with the first half's scales. */
void ciot_tile4x4_gemv_ref(const ciot_mm *mm, int first, int count, ciot_tile4x4_dot_ref_fn dot, int halves);
void ciot_tile4x4_gemm_ref(const ciot_mm *mm, int first, int count, ciot_tile4x4_dot_ref_fn dot, int halves);

#endif
