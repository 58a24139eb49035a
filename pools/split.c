/* Work splits: a static contiguous slice per thread, and chunks handed out by an atomic counter. */
#include "split.h"

void ciot_split_static(int units, int t, int n, int *first, int *count) {
    if (units < 0 || n < 1 || t < 0 || t >= n) {
        *first = 0;
        *count = 0;
        return;
    }
    /* The first units % n threads take one extra unit. */
    int base = units / n, extra = units % n;
    *first = t * base + (t < extra ? t : extra);
    *count = base + (t < extra);
}

void ciot_chunks_init(ciot_chunks *c, int units, int chunk) {
    c->units = units > 0 ? units : 0;
    c->chunk = chunk > 0 ? chunk : 1;
    atomic_init(&c->next, 0);
}

int ciot_chunks_next(ciot_chunks *c, int *first, int *count) {
    /* Check before adding so an exhausted counter stops growing (no overflow near INT_MAX units). */
    if (atomic_load_explicit(&c->next, memory_order_relaxed) >= c->units) return 0;
    int f = atomic_fetch_add_explicit(&c->next, c->chunk, memory_order_relaxed);
    if (f >= c->units) return 0;
    *first = f;
    *count = c->units - f < c->chunk ? c->units - f : c->chunk;
    return 1;
}
