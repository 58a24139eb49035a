/* Block formats, byte for byte as in spec/formats.md. Everything little-endian; every size is pinned. */
#ifndef CIOT_FORMATS_H
#define CIOT_FORMATS_H

#include <stdint.h>

#define CIOT_QK 128     /* weights per PQ2_0 / PTQ1_0 / T2X4 / T2P block row */
#define CIOT_QK_TQ 256  /* weights per TQ1_0 / TQ2_0 block */
#define CIOT_QK_K 256   /* values per Q8_K block */
#define CIOT_QK8_0 32   /* values per Q8_0 block */

/* PQ2_0: fp16 d, then 2-bit codes; weight k is (qs[k>>2] >> 2*(k&3)) & 3, code - 1 = weight. */
typedef struct {
    uint16_t d;
    uint8_t qs[32];
} block_pq2_0;

/* PTQ1_0: five trits per qs byte, four per qh byte, fp16 d last. */
typedef struct {
    uint8_t qs[24];
    uint8_t qh[2];
    uint16_t d;
} block_ptq1_0;

/* TQ2_0 (ggml type 35): 2-bit codes, then fp16 d. Weight k (0..255) is in byte 32 (k >> 7) + (k & 31),
 * bits 2n..2n+1 with n = (k >> 5) & 3; code - 1 = weight (code 3 reads as +2, like PQ2_0). */
typedef struct {
    uint8_t qs[64];
    uint16_t d;
} block_tq2_0;

/* TQ1_0 (ggml type 34): five trits per qs byte (240 weights), four per qh byte (16), fp16 d last; the
 * bytes are packed and decoded as PTQ1_0's. Weight k: k < 160 in qs[k & 31] trit k >> 5; k < 240 with
 * t = k - 160 in qs[32 + (t & 15)] trit t >> 4; else t = k - 240 in qh[t & 3] trit t >> 2. */
typedef struct {
    uint8_t qs[48];
    uint8_t qh[4];
    uint16_t d;
} block_tq1_0;

/* Q8_K: activations for the PQ2_0 family; bsums[j] = sum of qs[16j .. 16j+15]. */
typedef struct {
    float d;
    int8_t qs[256];
    int16_t bsums[16];
} block_q8_K;

/* Q8_Kx4: four activation rows of one 256-block; qs[32c + 8r + e] is row r, element 8c + e;
 * bsums[16 * (g >> 2) + 4 * r + (g & 3)] is row r's sum over group g. */
typedef struct {
    float d[4];
    int8_t qs[1024];
    int16_t bsums[64];
} block_q8_Kx4;

/* Q8_0: activations for PTQ1_0. */
typedef struct {
    uint16_t d;
    int8_t qs[32];
} block_q8_0;

/* T2X4: 4 rows x 128 weights; weight k of row r at byte 64g + 16r + j, bits 2s..2s+1,
 * g = k >> 6, s = (k >> 4) & 3, j = k & 15. */
typedef struct {
    uint16_t d[4];
    uint8_t qs[128];
} block_t2x4;

/* T2P: 4 rows x 128 weights; row r weight k at byte 64p + 16w + j, bits 2s..2s+1,
 * p = r >> 1, c = k >> 3, w = c >> 2, s = c & 3, j = 8 * (r & 1) + (k & 7). */
typedef struct {
    uint16_t d[4];
    uint8_t qs[128];
} block_t2p;

_Static_assert(sizeof(block_pq2_0) == 34, "PQ2_0 block is 34 bytes");
_Static_assert(sizeof(block_ptq1_0) == 28, "PTQ1_0 block is 28 bytes");
_Static_assert(sizeof(block_tq2_0) == 66, "TQ2_0 block is 66 bytes");
_Static_assert(sizeof(block_tq1_0) == 54, "TQ1_0 block is 54 bytes");
_Static_assert(sizeof(block_q8_K) == 292, "Q8_K block is 292 bytes");
_Static_assert(sizeof(block_q8_Kx4) == 1168, "Q8_Kx4 block is 1168 bytes");
_Static_assert(sizeof(block_q8_0) == 34, "Q8_0 block is 34 bytes");
_Static_assert(sizeof(block_t2x4) == 136, "T2X4 block is 136 bytes");
_Static_assert(sizeof(block_t2p) == 136, "T2P block is 136 bytes");

/* PQ2_0 code of weight k (0..127) of a block. */
static inline int ciot_pq2_code(const block_pq2_0 *b, int k) {
    return (b->qs[k >> 2] >> (2 * (k & 3))) & 3;
}

/* TQ2_0: byte index and bit shift of weight k (0..255), and its code. */
static inline int ciot_tq2_byte(int k) { return 32 * (k >> 7) + (k & 31); }
static inline int ciot_tq2_shift(int k) { return 2 * ((k >> 5) & 3); }
static inline int ciot_tq2_code(const block_tq2_0 *b, int k) { return (b->qs[ciot_tq2_byte(k)] >> ciot_tq2_shift(k)) & 3; }

/* TQ1_0: index into the 52 trit bytes (qs[0..47], then qh[0..3] as 48..51) and trit position n of
 * weight k (0..255); n counts from the most significant trit. */
static inline int ciot_tq1_byte(int k) {
    return k < 160 ? (k & 31) : k < 240 ? 32 + ((k - 160) & 15) : 48 + ((k - 240) & 3);
}
static inline int ciot_tq1_trit_pos(int k) { return k < 160 ? k >> 5 : k < 240 ? (k - 160) >> 4 : (k - 240) >> 2; }

/* Byte index and bit shift of row r (0..3), weight k in a T2X4 / T2P block. */
static inline int ciot_t2x4_byte(int r, int k) { return 64 * (k >> 6) + 16 * r + (k & 15); }
static inline int ciot_t2x4_shift(int k) { return 2 * ((k >> 4) & 3); }
static inline int ciot_t2p_byte(int r, int k) {
    return 64 * (r >> 1) + 16 * (k >> 5) + 8 * (r & 1) + (k & 7);
}
static inline int ciot_t2p_shift(int k) { return 2 * ((k >> 3) & 3); }

#endif
