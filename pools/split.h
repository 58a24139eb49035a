/* Work splits over units (4-row groups or tiles): a static contiguous slice per thread, or dynamic
 * chunks handed out by an atomic counter. Both compute every unit exactly once. */
#ifndef CIOT_SPLIT_H
#define CIOT_SPLIT_H

/* Thread t's contiguous slice of `units` among n threads (sizes differ by at most one). */
void ciot_split_static(int units, int t, int n, int *first, int *count);

/* The dynamic split is C only: C++ before C++23 has no <stdatomic.h> (mingw's g++ compiles bench's .cc
 * files), and bench uses the static split alone. */
#ifndef __cplusplus
#include <stdatomic.h>

typedef struct {
    atomic_int next;
    int units;
    int chunk;
} ciot_chunks;

void ciot_chunks_init(ciot_chunks *c, int units, int chunk);
/* The next chunk; returns 0 when none is left. */
int ciot_chunks_next(ciot_chunks *c, int *first, int *count);
#endif

#endif
