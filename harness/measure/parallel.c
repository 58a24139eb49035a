/* The loop around a kernel: the pool's threads take tiles and call the stateless compute. */
#include "parallel.h"
#include "split.h"

typedef struct {
    const ciot_kernel *k;
    const ciot_mm *mm;
    int tiles;
    ciot_split_mode mode;
    ciot_chunks chunks;
    const ciot_parallel_hooks *h;
} job;

/* The straggler's delay: a busy-wait, so the time is lost inside the thread's work span. */
static void straggle(const ciot_parallel_hooks *h, int t) {
    if (!h || t != h->straggler || h->straggler_us <= 0) return;
    const uint64_t start = ciot_now_ns(), until = start + (uint64_t)(h->straggler_us * 1e3);
    uint64_t now;
    while ((now = ciot_now_ns()) < until) {
    }
    if (h->injected_ns) *h->injected_ns = now - start;
}

static void task(void *arg, int t, int n) {
    job *j = arg;
    const ciot_parallel_hooks *h = j->h;
    const ciot_mm *mm = j->mm;
    ciot_mm own;
    if (h && h->prologue) {
        own = *mm;
        h->prologue(h->arg, t, &own);
        mm = &own;
    }
    int first, count;
    if (j->mode == CIOT_SPLIT_STATIC) {
        ciot_split_static(j->tiles, t, n, &first, &count);
        straggle(h, t);
        if (count) j->k->compute(mm, first, count);
        return;
    }
    int delayed = 0;
    while (ciot_chunks_next(&j->chunks, &first, &count)) {
        if (!delayed) straggle(h, t), delayed = 1;
        j->k->compute(mm, first, count);
    }
    if (!delayed) straggle(h, t);
}

void ciot_run_parallel(ciot_pool *p, const ciot_kernel *k, const ciot_mm *mm, ciot_split_mode mode, int chunk,
                       const ciot_parallel_hooks *hooks) {
    job j = {k, mm, mm->rows / k->layout->tile_rows, mode, {0}, hooks};
    if (mode == CIOT_SPLIT_CHUNKS) ciot_chunks_init(&j.chunks, j.tiles, chunk > 0 ? chunk : 16);
    ciot_pool_run(p, task, &j);
}

typedef struct {
    const ciot_act_format *a;
    const float *x;
    unsigned char *q;
    int batch, K;
} quantize_job;

/* Thread t's part: K-blocks of one row, or groups of activation rows for multi-row formats. */
static void quantize_task(void *arg, int t, int n) {
    const quantize_job *j = arg;
    const ciot_act_format *a = j->a;
    const int K = j->K, batch = j->batch;
    int first, count;
    if (a->group_rows == 1) {
        /* rows are contiguous K-blocks, so blocks of all rows form one run */
        ciot_split_static(batch * (K / a->block_values), t, n, &first, &count);
        if (count)
            a->quantize(j->x + (size_t)first * a->block_values, j->q + (size_t)first * a->block_bytes, 1,
                        count * a->block_values);
        return;
    }
    ciot_split_static((batch + a->group_rows - 1) / a->group_rows, t, n, &first, &count);
    for (int g = first; g < first + count; g++) {
        const int rows = batch - g * a->group_rows < a->group_rows ? batch - g * a->group_rows : a->group_rows;
        a->quantize(j->x + (size_t)g * a->group_rows * K, j->q + (size_t)g * (K / a->block_values) * a->block_bytes,
                    rows, K);
    }
}

void ciot_quantize_parallel(ciot_pool *p, const ciot_act_format *a, const float *x, void *q, int batch, int K) {
    quantize_job j = {a, x, q, batch, K};
    ciot_pool_run(p, quantize_task, &j);
}
