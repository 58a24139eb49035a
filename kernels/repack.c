/* PQ2_0 <-> T2X4 / T2P, and TQ2_0 <-> T2P. The 4-row layouts keep each code's bits and each row's fp16
 * scale; only the byte and bit position of a code change (the position functions live in formats.h).
 * A TQ2_0 block is first split into two PQ2_0-shaped halves (its scale in both), which then take the
 * PQ2_0 path. */
#include <string.h>
#include "quant.h"
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

/* TQ2_0 block <-> its two 128-weight halves as PQ2_0 blocks (weight k of half h = weight 128h + k). */
static void tq2_split(const block_tq2_0 *b, block_pq2_0 half[2]) {
    for (int h = 0; h < 2; h++) {
        half[h].d = b->d;
        memset(half[h].qs, 0, sizeof half[h].qs);
        for (int k = 0; k < CIOT_QK; k++) half[h].qs[k >> 2] |= (uint8_t)(ciot_tq2_code(b, CIOT_QK * h + k) << (2 * (k & 3)));
    }
}

static void tq2_join(const block_pq2_0 half[2], block_tq2_0 *b) {
    uint8_t codes[CIOT_QK_TQ];
    for (int k = 0; k < CIOT_QK_TQ; k++) codes[k] = (uint8_t)ciot_pq2_code(&half[k >> 7], k & 127);
    ciot_tq2_set_codes(b, codes);
    b->d = half[0].d;
}

ciot_status ciot_repack_t2p_tq2(const block_tq2_0 *src, block_t2p *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K);
    if (s != CIOT_OK) return s;
    const int nq = K / CIOT_QK_TQ;
    for (int g = 0; g < rows / 4; g++)
        for (int q = 0; q < nq; q++) {
            block_pq2_0 half[4][2];
            for (int r = 0; r < 4; r++) tq2_split(&src[(size_t)(4 * g + r) * nq + q], half[r]);
            for (int h = 0; h < 2; h++) {
                const block_pq2_0 *in[4] = {&half[0][h], &half[1][h], &half[2][h], &half[3][h]};
                pack_block(in, (block_t2x4 *)&dst[(size_t)g * 2 * nq + 2 * q + h], ciot_t2p_byte, ciot_t2p_shift);
            }
        }
    return CIOT_OK;
}

ciot_status ciot_unpack_t2p_tq2(const block_t2p *src, block_tq2_0 *dst, int rows, int K) {
    ciot_status s = check(src, dst, rows, K);
    if (s != CIOT_OK) return s;
    const size_t pairs = (size_t)(rows / 4) * (size_t)(K / CIOT_QK_TQ);
    for (size_t p = 0; p < pairs; p++)
        if (memcmp(src[2 * p].d, src[2 * p + 1].d, sizeof src->d)) return CIOT_E_FORMAT;
    const int nq = K / CIOT_QK_TQ;
    for (int g = 0; g < rows / 4; g++)
        for (int q = 0; q < nq; q++) {
            block_pq2_0 half[4][2];
            for (int h = 0; h < 2; h++) {
                block_pq2_0 *out[4] = {&half[0][h], &half[1][h], &half[2][h], &half[3][h]};
                unpack_block((const block_t2x4 *)&src[(size_t)g * 2 * nq + 2 * q + h], out, ciot_t2p_byte, ciot_t2p_shift);
            }
            for (int r = 0; r < 4; r++) tq2_join(half[r], &dst[(size_t)(4 * g + r) * nq + q]);
        }
    return CIOT_OK;
}
