/* Runs one kernel over a pool: whole tiles (4-row groups or rows), a static slice per thread or
 * dynamic chunks from an atomic counter. */
#ifndef CIOT_PARALLEL_H
#define CIOT_PARALLEL_H

#include "kernel.h"
#include "pool.h"

typedef enum { CIOT_SPLIT_STATIC, CIOT_SPLIT_CHUNKS } ciot_split_mode;

/* chunk: tiles per chunk for CIOT_SPLIT_CHUNKS (0: a default of 16). */
void ciot_run_parallel(ciot_pool *p, const ciot_kernel *k, const ciot_mm *mm, ciot_split_mode mode, int chunk);

#endif
