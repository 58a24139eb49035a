/* PQ2_0 <-> T2X4 / T2P. Both 4-row layouts keep each code's bits and each row's fp16 scale; only the
 * byte and bit position of a code change (the position functions live in formats.h). */
#include <string.h>
#include "repack.h"

typedef int (*byte_fn)(int r, int k);
typedef int (*shift_fn)(int k);

static ciot_status check(const void *src, const void *dst, int rows, int K) {
    if (!src || !dst || rows <= 0 || K <= 0) return CIOT_E_ARG;
    if (rows % 4 || K % 256) return CIOT_E_SHAPE;
    return CIOT_OK;
}

/* One (row group, K-block): four PQ2_0 blocks <-> one 136-byte 4-row block (same struct shape). */
static void pack_block(const block_pq2_0 *const in[4], block_t2x4 *out, byte_fn at, shift_fn sh) {
    memset(out->qs, 0, sizeof out->qs);
    for (int r = 0; r < 4; r++) {
        out->d[r] = in[r]->d;
        for (int k = 0; k < CIOT_QK; k++)
            out->qs[at(r, k)] |= (uint8_t)(ciot_pq2_code(in[r], k) << sh(k));
    }
}

static void unpack_block(const block_t2x4 *in, block_pq2_0 *const out[4], byte_fn at, shift_fn sh) {
    for (int r = 0; r < 4; r++) {
        out[r]->d = in->d[r];
        memset(out[r]->qs, 0, sizeof out[r]->qs);
        for (int k = 0; k < CIOT_QK; k++)
            out[r]->qs[k >> 2] |= (uint8_t)(((in->qs[at(r, k)] >> sh(k)) & 3) << (2 * (k & 3)));
    }
}

static ciot_status repack(const block_pq2_0 *src, block_t2x4 *dst, int rows, int K, byte_fn at, shift_fn sh) {
    ciot_status s = check(src, dst, rows, K);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK;
    for (int g = 0; g < rows / 4; g++)
        for (int i = 0; i < nb; i++) {
            const block_pq2_0 *in[4];
            for (int r = 0; r < 4; r++) in[r] = &src[(size_t)(4 * g + r) * nb + i];
            pack_block(in, &dst[(size_t)g * nb + i], at, sh);
        }
    return CIOT_OK;
}

static ciot_status unpack(const block_t2x4 *src, block_pq2_0 *dst, int rows, int K, byte_fn at, shift_fn sh) {
    ciot_status s = check(src, dst, rows, K);
    if (s != CIOT_OK) return s;
    const int nb = K / CIOT_QK;
    for (int g = 0; g < rows / 4; g++)
        for (int i = 0; i < nb; i++) {
            block_pq2_0 *out[4];
            for (int r = 0; r < 4; r++) out[r] = &dst[(size_t)(4 * g + r) * nb + i];
            unpack_block(&src[(size_t)g * nb + i], out, at, sh);
        }
    return CIOT_OK;
}

_Static_assert(sizeof(block_t2p) == sizeof(block_t2x4), "T2P and T2X4 share one block shape");

ciot_status ciot_repack_t2x4(const block_pq2_0 *src, block_t2x4 *dst, int rows, int K) {
    return repack(src, dst, rows, K, ciot_t2x4_byte, ciot_t2x4_shift);
}
ciot_status ciot_repack_t2p(const block_pq2_0 *src, block_t2p *dst, int rows, int K) {
    return repack(src, (block_t2x4 *)dst, rows, K, ciot_t2p_byte, ciot_t2p_shift);
}
ciot_status ciot_unpack_t2x4(const block_t2x4 *src, block_pq2_0 *dst, int rows, int K) {
    return unpack(src, dst, rows, K, ciot_t2x4_byte, ciot_t2x4_shift);
}
ciot_status ciot_unpack_t2p(const block_t2p *src, block_pq2_0 *dst, int rows, int K) {
    return unpack((const block_t2x4 *)src, dst, rows, K, ciot_t2p_byte, ciot_t2p_shift);
}
