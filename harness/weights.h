/* Rotating copies of one packed weight matrix, so each call of a memory-bound kernel starts cold:
 * enough copies that their total is at least the working set asked for. */
#ifndef CIOT_WEIGHTS_H
#define CIOT_WEIGHTS_H

#include <stddef.h>
#include "kernel.h"

typedef struct {
    unsigned char *base;
    size_t bytes;               /* one packed matrix (scales included) */
    size_t stride;              /* bytes between copies (64-byte aligned) */
    int copies;
    size_t alloc;
} ciot_weight_ring;

/* Random weights of the layout's source format (codes of every value, normal fp16 scales), packed,
 * copied until copies * bytes >= working_set (at least one copy). CIOT_E_NOMEM when it does not fit. */
ciot_status ciot_weight_ring_make(const ciot_layout *l, int rows, int K, size_t working_set, ciot_weight_ring *out);
static inline const void *ciot_weight_ring_at(const ciot_weight_ring *r, long i) {
    return r->base + (size_t)(i % r->copies) * r->stride;
}
void ciot_weight_ring_free(ciot_weight_ring *r);

#endif
