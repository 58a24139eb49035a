/* The loop around a kernel: the pool's threads take tiles and call the stateless compute. */
#include "parallel.h"
#include "split.h"

typedef struct {
    const ciot_kernel *k;
    const ciot_mm *mm;
    int tiles;
    ciot_split_mode mode;
    ciot_chunks chunks;
} job;

static void task(void *arg, int t, int n) {
    job *j = arg;
    int first, count;
    if (j->mode == CIOT_SPLIT_STATIC) {
        ciot_split_static(j->tiles, t, n, &first, &count);
        if (count) j->k->compute(j->mm, first, count);
        return;
    }
    while (ciot_chunks_next(&j->chunks, &first, &count)) j->k->compute(j->mm, first, count);
}

void ciot_run_parallel(ciot_pool *p, const ciot_kernel *k, const ciot_mm *mm, ciot_split_mode mode, int chunk) {
    job j = {k, mm, mm->rows / k->layout->tile_rows, mode, {0}};
    if (mode == CIOT_SPLIT_CHUNKS) ciot_chunks_init(&j.chunks, j.tiles, chunk > 0 ? chunk : 16);
    ciot_pool_run(p, task, &j);
}
