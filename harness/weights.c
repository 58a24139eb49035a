/* Builds weight rings for benchmarks and the replay: one random matrix, packed once, copied. */
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "fp16.h"
#include "formats.h"
#include "weights.h"

/* Random source blocks: any code byte is legal input; scales are set to normal values so no
 * subnormal arithmetic skews a timing. */
static void random_source(ciot_format f, void *src, size_t nblocks) {
    uint64_t s = 0x5eed;
    const size_t bs = f == CIOT_FMT_PQ2_0 ? sizeof(block_pq2_0) : sizeof(block_ptq1_0);
    unsigned char *p = src;
    for (size_t i = 0; i < nblocks * bs; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (unsigned char)(s >> 56);
    }
    for (size_t b = 0; b < nblocks; b++) {
        const uint16_t d = ciot_fp32_to_fp16(0.01f + (float)(b % 97) * 1e-4f);
        if (f == CIOT_FMT_PQ2_0) ((block_pq2_0 *)src)[b].d = d;
        else ((block_ptq1_0 *)src)[b].d = d;
    }
}

ciot_status ciot_weight_ring_make(const ciot_layout *l, int rows, int K, size_t working_set, ciot_weight_ring *out) {
    memset(out, 0, sizeof *out);
    ciot_status st = ciot_layout_check(l, rows, K);
    if (st != CIOT_OK) return st;
    out->bytes = ciot_layout_bytes(l, rows, K);
    out->stride = (out->bytes + 63) & ~(size_t)63;
    out->copies = (int)((working_set + out->bytes - 1) / out->bytes);
    if (out->copies < 1) out->copies = 1;
    out->alloc = out->stride * (size_t)out->copies;
    const size_t avail = ciot_mem_available();
    if (avail && out->alloc > avail / 10 * 9) return CIOT_E_NOMEM;
    const size_t nblocks = (size_t)rows * (size_t)(K / CIOT_QK);
    void *src = malloc(ciot_source_bytes(l->source, rows, K));
    out->base = ciot_bigbuf_alloc(out->alloc, 1);
    if (!src || !out->base) {
        free(src);
        ciot_weight_ring_free(out);
        return CIOT_E_NOMEM;
    }
    random_source(l->source, src, nblocks);
    st = ciot_layout_pack(l, src, out->base, rows, K);
    free(src);
    if (st != CIOT_OK) {
        ciot_weight_ring_free(out);
        return st;
    }
    for (int c = 1; c < out->copies; c++) memcpy(out->base + (size_t)c * out->stride, out->base, out->bytes);
    return CIOT_OK;
}

void ciot_weight_ring_free(ciot_weight_ring *r) {
    if (r->base) ciot_bigbuf_free(r->base, r->alloc);
    memset(r, 0, sizeof *r);
}
