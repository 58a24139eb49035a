/* Weight memory for memory-bound measurements: one region of random bytes that every layout can read
 * as valid input (any 2-bit or trit code is legal, and every two bytes read as an fp16 scale are a
 * normal number), viewed as rotating copies of a matrix so each call starts cold. Timing of the kernels
 * does not depend on the values, so all layouts share one region instead of one each. */
#ifndef CIOT_WEIGHTS_H
#define CIOT_WEIGHTS_H

#include <stddef.h>
#include "kernel.h"
#include "pool.h"

typedef struct {
    unsigned char *base;
    size_t bytes;
    int huge;                   /* huge pages requested */
    double huge_fraction;       /* share backed by huge pages after the fill; -1 unknown */
    size_t cursor;              /* where the least recently read bytes start (ciot_weight_ring_next) */
} ciot_weight_region;

typedef struct {
    const unsigned char *base;
    size_t bytes;               /* one packed matrix (scales included) */
    size_t stride;              /* bytes between copies (64-byte aligned) */
    long copies;
} ciot_weight_ring;

/* Allocates `bytes` (rounded up to 2 MiB) and fills it; with a pool, the pool's threads first-touch and
 * fill it in the same static page split as the probe's buffer (the values do not depend on the split).
 * CIOT_E_NOMEM when it does not fit in memory. */
ciot_status ciot_weight_region_make(ciot_pool *p, size_t bytes, int huge, ciot_weight_region *out);
void ciot_weight_region_free(ciot_weight_region *r);
/* Copies of a rows x K matrix of layout l side by side in the region (at least one; CIOT_E_NOMEM when
 * not even one fits, CIOT_E_SHAPE when the layout cannot take the shape). */
ciot_status ciot_weight_ring_view(const ciot_weight_region *r, const ciot_layout *l, int rows, int K, ciot_weight_ring *out);
static inline const void *ciot_weight_ring_at(const ciot_weight_ring *r, long i) {
    return r->base + (size_t)(i % r->copies) * r->stride;
}
/* The copy of ring that starts at or after the region's cursor (wrapping), and the cursor moved past it:
 * whatever ring was read last, every call reads the region's least recently read bytes. */
const void *ciot_weight_ring_next(ciot_weight_region *region, const ciot_weight_ring *ring);

#endif
