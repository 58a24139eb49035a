/* The shared weight region: bytes drawn from 0x20..0x3b, so any fp16 read from them has exponent 8..14
 * (a normal value between 2^-7 and 1) and no subnormal or NaN scale slows or poisons a timing. */
#include <stdint.h>
#include <string.h>
#include "bigbuf.h"
#include "rules.h"
#include "splitmix64.h"
#include "split.h"
#include "weights.h"

enum { PAGE = 4096 };

/* Eight bytes of word i: a hash of i (so any split fills the same values), 5 bits of each byte (0..31),
 * plus 0x20, with 0x3c..0x3f folded down by 4. */
static uint64_t word(uint64_t i) {
    const uint64_t z = ciot_splitmix64_at(0x5eed, i);
    uint64_t v = ((z >> 3) & 0x1f1f1f1f1f1f1f1full) + 0x2020202020202020ull;
    return v - (((v + 0x0404040404040404ull) & 0x4040404040404040ull) >> 4);
}

typedef struct {
    uint64_t *w;
    int pages;
} fill_job;

static void fill_task(void *arg, int t, int n) {
    const fill_job *j = arg;
    int first, count;
    ciot_split_static(j->pages, t, n, &first, &count);
    for (size_t i = (size_t)first * (PAGE / 8); i < (size_t)(first + count) * (PAGE / 8); i++) j->w[i] = word(i);
}

ciot_status ciot_weight_region_make(ciot_pool *p, size_t bytes, int huge, ciot_weight_region *out) {
    memset(out, 0, sizeof *out);
    const size_t avail = ciot_mem_available();
    if (bytes == 0 || bytes / PAGE >= INT32_MAX || (avail && bytes > ciot_mem_cap(avail))) return CIOT_E_NOMEM;
    bytes = (bytes + PAGE - 1) / PAGE * PAGE;
    out->base = ciot_bigbuf_alloc(bytes, huge);
    if (!out->base) return CIOT_E_NOMEM;
    out->bytes = bytes;
    out->huge = huge;
    fill_job j = {(uint64_t *)out->base, (int)(bytes / PAGE)};
    if (p) ciot_pool_run(p, fill_task, &j);
    else fill_task(&j, 0, 1);
    out->huge_fraction = ciot_bigbuf_huge_fraction(out->base);
    return CIOT_OK;
}

void ciot_weight_region_free(ciot_weight_region *r) {
    if (r->base) ciot_bigbuf_free(r->base, r->bytes);
    memset(r, 0, sizeof *r);
}

ciot_status ciot_weight_ring_view(const ciot_weight_region *r, const ciot_layout *l, int rows, int K, ciot_weight_ring *out) {
    memset(out, 0, sizeof *out);
    ciot_status st = ciot_layout_check(l, rows, K);
    if (st != CIOT_OK) return st;
    out->bytes = ciot_layout_bytes(l, rows, K);
    out->stride = (out->bytes + 63) & ~(size_t)63;
    if (out->bytes > r->bytes) return CIOT_E_NOMEM;
    out->copies = (long)((r->bytes - out->bytes) / out->stride) + 1;
    out->base = r->base;
    return CIOT_OK;
}

const void *ciot_weight_ring_next(ciot_weight_region *region, const ciot_weight_ring *ring) {
    long i = (long)((region->cursor + ring->stride - 1) / ring->stride);
    if (i >= ring->copies) i = 0;
    region->cursor = (size_t)i * ring->stride + ring->bytes;
    return ciot_weight_ring_at(ring, i);
}
