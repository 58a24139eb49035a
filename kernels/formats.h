/* Block formats, byte for byte as in kernels/formats.md. Everything little-endian; every size is pinned. */
#ifndef CIOT_FORMATS_H
#define CIOT_FORMATS_H

#include <stddef.h>
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

/* Matrix order of the lookup-table layouts TL3 and TL2 (tiles of 256 rows, nb 128-blocks per row): tiles in
 * groups of G (the last group holds the tiles left); a group's blocks are stored block by block, each block
 * tile by tile. A kernel that builds tables for block i and runs them over the tiles of a group then reads
 * the weights in address order. */
#define CIOT_LUT_TILE 256
#define CIOT_TL3_GROUP 8
#define CIOT_TL2_GROUP 16
/* Block index of tile t, 128-block i in a matrix of `tiles` tiles and nb blocks per row, groups of G tiles. */
static inline size_t ciot_lut_block_index(int t, int i, int tiles, int nb, int G) {
    const int g0 = t - t % G, gt = tiles - g0 < G ? tiles - g0 : G; /* t's group: first tile, tiles */
    return (size_t)g0 * nb + (size_t)i * gt + (size_t)(t - g0);
}

/* TL3: 256 rows x 128 weights of PTQ1_0 for table lookups (7168 bytes, 1.75 bits per weight), fields in the
 * order a kernel reads them. Row r's weights 32q + 5g .. 32q + 5g + 4 (sub-block q = 0..3, group g = 0..5)
 * are one base-3 group code in sb[q].qs[g][r]; weights 32q + 30, 32q + 31 are a pair code in nibble
 * (r >> 7) of sb[q].qn[r & 127]. Codes are sign-magnitude: see ciot_tl3_value (kernels/README.md). */
typedef struct {
    uint16_t d[256];
    struct {
        uint8_t qs[6][256];
        uint8_t qn[128];
    } sb[4];
} block_tl3;

/* TL2: 256 rows x 128 weights of PQ2_0 for table lookups (8704 bytes, 2.125 bits per weight).
 * qs[j][r] is PQ2_0 byte j of row r (weights 4j .. 4j + 3, code of 4j + n at bits 2n .. 2n + 1). */
typedef struct {
    uint16_t d[256];
    uint8_t qs[32][256];
} block_tl2;

/* TL16: 256 rows x 128 weights of PTQ1_0 (or a half of TQ1_0) whose codes index 16-entry tables (7424 bytes,
 * 1.8125 bits per weight; kernels/README.md), in eight slices of 32 rows (928 bytes each), so that a kernel
 * taking 32 rows at a time reads the block in address order. Row r is byte j = r & 31 of slice v = r >> 5.
 * Its weights 32q + 3g .. 32q + 3g + 2 (sub-block q = 0..3, group g = 0..9) are one 3-trit group: magnitude
 * nibble (g & 1) of sb[q].qs[g >> 1][j] and a sign bit, bit g of sb[q].sg[j] for g < 8, bit 2q + g - 8 of
 * sx[j] for g = 8, 9; weights 32q + 30, 32q + 31 are a TL3 pair code in nibble (q & 1) of qn[q >> 1][j].
 * See ciot_tl16_trit. */
#define CIOT_TL16_GROUP 8
typedef struct {
    struct {
        uint16_t d[32];
        uint8_t sx[32];
        struct {
            uint8_t sg[32];
            uint8_t qs[5][32];
        } sb[4];
        uint8_t qn[2][32];
    } v[8];
} block_tl16;
/* The sign bit of group g of sub-block q, row r. */
static inline int ciot_tl16_sign_bit(const block_tl16 *b, int q, int g, int r) {
    return g < 8 ? (b->v[r >> 5].sb[q].sg[r & 31] >> g) & 1 : (b->v[r >> 5].sx[r & 31] >> (2 * q + g - 8)) & 1;
}

_Static_assert(sizeof(block_pq2_0) == 34, "PQ2_0 block is 34 bytes");
_Static_assert(sizeof(block_ptq1_0) == 28, "PTQ1_0 block is 28 bytes");
_Static_assert(sizeof(block_tq2_0) == 66, "TQ2_0 block is 66 bytes");
_Static_assert(sizeof(block_tq1_0) == 54, "TQ1_0 block is 54 bytes");
_Static_assert(sizeof(block_q8_K) == 292, "Q8_K block is 292 bytes");
_Static_assert(sizeof(block_q8_Kx4) == 1168, "Q8_Kx4 block is 1168 bytes");
_Static_assert(sizeof(block_q8_0) == 34, "Q8_0 block is 34 bytes");
_Static_assert(sizeof(block_t2x4) == 136, "T2X4 block is 136 bytes");
_Static_assert(sizeof(block_t2p) == 136, "T2P block is 136 bytes");
_Static_assert(sizeof(block_tl3) == 256 * 28, "TL3 block is 256 PTQ1_0 blocks' worth: 7168 bytes");
_Static_assert(sizeof(block_tl16) == 256 * 29, "TL16 block is 29 bytes per row and 128 weights: 7424 bytes");
_Static_assert(sizeof(block_tl2) == 256 * 34, "TL2 block is 256 PQ2_0 blocks' worth: 8704 bytes");

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

/* TL3 codes. A group code b (8 bits) stands for the five trits of V = 81u0 + 27u1 + 9u2 + 3u3 + u4: V = b
 * when b < 128, else the trit-wise negation (u -> 2 - u) of V = b - 128, i.e. V = 370 - b. A pair code c
 * (4 bits) stands for V = 3u0 + u1: V = c when c < 8, else V = 16 - c. Every code is valid; the packer
 * writes b = V for V <= 121 and b = 370 - V above, c = V for V <= 4 and c = 16 - V above. */
static inline int ciot_tl3_value(int b) { return b < 128 ? b : 370 - b; }
#define CIOT_TL3_PAIR_VALUE(c) ((c) < 8 ? (c) : 16 - (c)) /* for constant tables */
static inline int ciot_tl3_pair_value(int c) { return CIOT_TL3_PAIR_VALUE(c); }
static inline uint8_t ciot_tl3_code(int V) { return (uint8_t)(V <= 121 ? V : 370 - V); }
static inline uint8_t ciot_tl3_pair_code(int V) { return (uint8_t)(V <= 4 ? V : 16 - V); }

/* TL16 codes. A 3-trit group (trits u0 u1 u2, weights w = u - 1) has the balanced value v = 9 w0 + 3 w1 + w2
 * (-13..13); it is stored as the magnitude nibble m = |v| and a sign bit s = (v < 0). Nibbles 14 and 15 read
 * as magnitude 0 (the zero group), so every nibble and bit is a valid code; the packer writes s = 0 for v = 0.
 * Trit n (0..2) of (m, s): (V / 3^(2 - n)) % 3 with V = 13 + v. */
static inline int ciot_tl16_magnitude(int m) { return m < 14 ? m : 0; }
static inline int ciot_tl16_trit(int m, int s, int n) {
    const int v = s ? -ciot_tl16_magnitude(m) : ciot_tl16_magnitude(m), V = 13 + v;
    return (n == 0 ? V / 9 : n == 1 ? V / 3 : V) % 3;
}
/* The group's value from trits u0 u1 u2 (0..2): its nibble and sign bit. */
static inline int ciot_tl16_value(int u0, int u1, int u2) { return 9 * u0 + 3 * u1 + u2 - 13; }
static inline uint8_t ciot_tl16_nibble(int v) { return (uint8_t)(v < 0 ? -v : v); }
static inline uint8_t ciot_tl16_sign(int v) { return (uint8_t)(v < 0); }

#endif
