/* The shared weight region: bytes drawn from 0x20..0x3b, so any fp16 read from them has exponent 8..14
 * (a normal value between 2^-7 and 1) and no subnormal or NaN scale slows or poisons a timing. */
#include <stdint.h>
#include <string.h>
#include "bigbuf.h"
#include "weights.h"

ciot_status ciot_weight_region_make(size_t bytes, ciot_weight_region *out) {
    memset(out, 0, sizeof *out);
    const size_t avail = ciot_mem_available();
    if (bytes == 0 || (avail && bytes > avail / 10 * 9)) return CIOT_E_NOMEM;
    out->base = ciot_bigbuf_alloc(bytes, 1);
    if (!out->base) return CIOT_E_NOMEM;
    out->bytes = bytes;
    uint64_t s = 0x5eed;
    uint64_t *w = (uint64_t *)out->base;
    for (size_t i = 0; i < bytes / 8; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        /* eight bytes at once: keep 5 bits of each (0..31), add 0x20, clamp 0x3c..0x3f down by 4 */
        uint64_t v = ((s >> 3) & 0x1f1f1f1f1f1f1f1full) + 0x2020202020202020ull;
        v -= ((v + 0x0404040404040404ull) & 0x4040404040404040ull) >> 4;
        w[i] = v;
    }
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
