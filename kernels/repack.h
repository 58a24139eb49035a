/* Load-time repacks of PQ2_0 rows into the 4-row T2X4 and T2P layouts, and of TQ2_0 rows into T2P, and
 * back (for tests). Rows must be a multiple of 4 and K a multiple of 256, or CIOT_E_SHAPE and nothing is
 * written.
 * The lookup-table layouts (repack_lut.c): PTQ1_0 and TQ1_0 <-> TL3 and TL16, PQ2_0 <-> TL2, 256-row tiles;
 * rows must be a multiple of 256 and K of 128 (from PTQ1_0) or 256 (from TQ1_0, TL2). */
#ifndef CIOT_REPACK_H
#define CIOT_REPACK_H

#include "formats.h"
#include "status.h"

ciot_status ciot_repack_t2x4(const block_pq2_0 *src, block_t2x4 *dst, int rows, int K);
ciot_status ciot_repack_t2p(const block_pq2_0 *src, block_t2p *dst, int rows, int K);
ciot_status ciot_unpack_t2x4(const block_t2x4 *src, block_pq2_0 *dst, int rows, int K);
ciot_status ciot_unpack_t2p(const block_t2p *src, block_pq2_0 *dst, int rows, int K);
/* TQ2_0 -> T2P: 256-block i of a row becomes T2P blocks 2i and 2i + 1 (its weights 0..127 and
 * 128..255), both carrying the block's fp16 scale. The unpack restores the TQ2_0 bytes exactly and
 * refuses (CIOT_E_FORMAT, nothing written) a matrix where the two halves of a 256-block disagree on a
 * row's scale. */
ciot_status ciot_repack_t2p_tq2(const block_tq2_0 *src, block_t2p *dst, int rows, int K);
ciot_status ciot_unpack_t2p_tq2(const block_t2p *src, block_tq2_0 *dst, int rows, int K);

/* TL3 keeps every trit and every fp16 scale: PTQ1_0 -> TL3 -> PTQ1_0 gives back the same trits and scales,
 * and the same bytes for every block in the canonical encoding the quantizer writes (formats.md). */
ciot_status ciot_repack_tl3(const block_ptq1_0 *src, block_tl3 *dst, int rows, int K);
ciot_status ciot_unpack_tl3(const block_tl3 *src, block_ptq1_0 *dst, int rows, int K);
/* TQ1_0 -> TL3 bytes (layout tl3_tq1): 256-block q of a row becomes TL3 128-blocks 2q and 2q + 1 (its
 * weights 0..127 and 128..255), both carrying the block's fp16 scale. Every trit and scale is kept; the
 * unpack writes each byte in the canonical encoding of its trits (the quantizer's bytes come back as they
 * were; kernels/README-tq.md lists the other byte values) and refuses (CIOT_E_FORMAT, nothing written) a
 * matrix where the two halves of a 256-block disagree on a row's scale. */
ciot_status ciot_repack_tl3_tq1(const block_tq1_0 *src, block_tl3 *dst, int rows, int K);
ciot_status ciot_unpack_tl3_tq1(const block_tl3 *src, block_tq1_0 *dst, int rows, int K);
/* TL16 (the 16-entry lookup layout, kernels/README.md) keeps every trit and scale as TL3 does, from PTQ1_0 and
 * (layout tl16_tq1, both halves of a 256-block carrying its scale) from TQ1_0; the unpacks write the canonical
 * encoding of the trits and the TQ1_0 one refuses halves that disagree on a scale, as TL3's. */
ciot_status ciot_repack_tl16(const block_ptq1_0 *src, block_tl16 *dst, int rows, int K);
ciot_status ciot_unpack_tl16(const block_tl16 *src, block_ptq1_0 *dst, int rows, int K);
ciot_status ciot_repack_tl16_tq1(const block_tq1_0 *src, block_tl16 *dst, int rows, int K);
ciot_status ciot_unpack_tl16_tq1(const block_tl16 *src, block_tq1_0 *dst, int rows, int K);
/* TL2 keeps the PQ2_0 bytes as they are (code 3 included): the round trip is byte for byte. */
ciot_status ciot_repack_tl2(const block_pq2_0 *src, block_tl2 *dst, int rows, int K);
ciot_status ciot_unpack_tl2(const block_tl2 *src, block_pq2_0 *dst, int rows, int K);

#endif
