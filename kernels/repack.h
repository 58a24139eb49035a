/* Load-time repacks of PQ2_0 rows into the 4-row T2X4 and T2P layouts, and back (for tests).
 * Rows must be a multiple of 4 and K a multiple of 256, or CIOT_E_SHAPE and nothing is written. */
#ifndef CIOT_REPACK_H
#define CIOT_REPACK_H

#include "formats.h"
#include "status.h"

ciot_status ciot_repack_t2x4(const block_pq2_0 *src, block_t2x4 *dst, int rows, int K);
ciot_status ciot_repack_t2p(const block_pq2_0 *src, block_t2p *dst, int rows, int K);
ciot_status ciot_unpack_t2x4(const block_t2x4 *src, block_pq2_0 *dst, int rows, int K);
ciot_status ciot_unpack_t2p(const block_t2p *src, block_pq2_0 *dst, int rows, int K);

#endif
