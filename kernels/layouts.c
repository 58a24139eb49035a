/* The weight layouts and activation formats kernels are described by, and shape arithmetic on them. */
#include <string.h>
#include "formats.h"
#include "kernel.h"
#include "quant.h"
#include "repack.h"

static ciot_status pack_t2x4(const void *src, void *dst, int rows, int K) { return ciot_repack_t2x4(src, dst, rows, K); }
static ciot_status pack_t2p(const void *src, void *dst, int rows, int K) { return ciot_repack_t2p(src, dst, rows, K); }
static ciot_status pack_t2p_tq2(const void *src, void *dst, int rows, int K) { return ciot_repack_t2p_tq2(src, dst, rows, K); }
static ciot_status unpack_t2x4(const void *src, void *dst, int rows, int K) { return ciot_unpack_t2x4(src, dst, rows, K); }
static ciot_status unpack_t2p(const void *src, void *dst, int rows, int K) { return ciot_unpack_t2p(src, dst, rows, K); }
static ciot_status unpack_t2p_tq2(const void *src, void *dst, int rows, int K) { return ciot_unpack_t2p_tq2(src, dst, rows, K); }
static ciot_status pack_tl3(const void *src, void *dst, int rows, int K) { return ciot_repack_tl3(src, dst, rows, K); }
static ciot_status unpack_tl3(const void *src, void *dst, int rows, int K) { return ciot_unpack_tl3(src, dst, rows, K); }
static ciot_status pack_tl3_tq1(const void *src, void *dst, int rows, int K) { return ciot_repack_tl3_tq1(src, dst, rows, K); }
static ciot_status unpack_tl3_tq1(const void *src, void *dst, int rows, int K) { return ciot_unpack_tl3_tq1(src, dst, rows, K); }
static ciot_status pack_tl16(const void *src, void *dst, int rows, int K) { return ciot_repack_tl16(src, dst, rows, K); }
static ciot_status unpack_tl16(const void *src, void *dst, int rows, int K) { return ciot_unpack_tl16(src, dst, rows, K); }
static ciot_status pack_tl16_tq1(const void *src, void *dst, int rows, int K) { return ciot_repack_tl16_tq1(src, dst, rows, K); }
static ciot_status unpack_tl16_tq1(const void *src, void *dst, int rows, int K) { return ciot_unpack_tl16_tq1(src, dst, rows, K); }
static ciot_status pack_tl2(const void *src, void *dst, int rows, int K) { return ciot_repack_tl2(src, dst, rows, K); }
static ciot_status unpack_tl2(const void *src, void *dst, int rows, int K) { return ciot_unpack_tl2(src, dst, rows, K); }

/* K must be a multiple of 256 where the activations are Q8_K (the PQ2_0 family and the TQ formats), of
 * 128 for PTQ1_0 (Q8_0 x 4). */
const ciot_layout ciot_layout_pq2_0 = {.name = "pq2_0", .source = CIOT_FMT_PQ2_0, .tile_rows = 1, .block_k = CIOT_QK,
                                       .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_pq2_0)};
const ciot_layout ciot_layout_t2x4 = {.name = "t2x4", .source = CIOT_FMT_PQ2_0, .tile_rows = 4, .block_k = CIOT_QK,
                                      .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_t2x4),
                                      .pack = pack_t2x4, .unpack = unpack_t2x4};
const ciot_layout ciot_layout_t2p = {.name = "t2p", .source = CIOT_FMT_PQ2_0, .tile_rows = 4, .block_k = CIOT_QK,
                                     .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_t2p),
                                     .pack = pack_t2p, .unpack = unpack_t2p};
/* The lookup-table layouts: 256-row tiles (256 divides every model row count in profiles/), stored in
 * groups of tiles (formats.h). */
const ciot_layout ciot_layout_tl2 = {.name = "tl2", .source = CIOT_FMT_PQ2_0, .tile_rows = CIOT_LUT_TILE, .block_k = CIOT_QK,
                                     .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_tl2), .pack = pack_tl2,
                                     .unpack = unpack_tl2, .group_tiles = CIOT_TL2_GROUP};
const ciot_layout ciot_layout_tl3 = {.name = "tl3", .source = CIOT_FMT_PTQ1_0, .tile_rows = CIOT_LUT_TILE, .block_k = CIOT_QK,
                                     .k_multiple = CIOT_QK, .block_bytes = sizeof(block_tl3), .pack = pack_tl3,
                                     .unpack = unpack_tl3, .group_tiles = CIOT_TL3_GROUP};
/* TQ1_0 in TL3's bytes: each 256-block is two TL3 128-blocks carrying its scale; Q8_K activations. */
const ciot_layout ciot_layout_tl3_tq1 = {.name = "tl3_tq1", .source = CIOT_FMT_TQ1_0, .tile_rows = CIOT_LUT_TILE,
                                         .block_k = CIOT_QK, .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_tl3),
                                         .pack = pack_tl3_tq1, .unpack = unpack_tl3_tq1, .group_tiles = CIOT_TL3_GROUP};
/* The 16-entry lookup layout of PTQ1_0 and TQ1_0 (3-trit groups: magnitude nibble and sign bit). */
const ciot_layout ciot_layout_tl16 = {.name = "tl16", .source = CIOT_FMT_PTQ1_0, .tile_rows = CIOT_LUT_TILE, .block_k = CIOT_QK,
                                      .k_multiple = CIOT_QK, .block_bytes = sizeof(block_tl16), .pack = pack_tl16,
                                      .unpack = unpack_tl16, .group_tiles = CIOT_TL16_GROUP};
const ciot_layout ciot_layout_tl16_tq1 = {.name = "tl16_tq1", .source = CIOT_FMT_TQ1_0, .tile_rows = CIOT_LUT_TILE,
                                          .block_k = CIOT_QK, .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_tl16),
                                          .pack = pack_tl16_tq1, .unpack = unpack_tl16_tq1, .group_tiles = CIOT_TL16_GROUP};
const ciot_layout ciot_layout_ptq1_0 = {.name = "ptq1_0", .source = CIOT_FMT_PTQ1_0, .tile_rows = 1, .block_k = CIOT_QK,
                                        .k_multiple = CIOT_QK, .block_bytes = sizeof(block_ptq1_0)};
const ciot_layout ciot_layout_tq1_0 = {.name = "tq1_0", .source = CIOT_FMT_TQ1_0, .tile_rows = 1, .block_k = CIOT_QK_TQ,
                                       .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_tq1_0)};
const ciot_layout ciot_layout_tq2_0 = {.name = "tq2_0", .source = CIOT_FMT_TQ2_0, .tile_rows = 1, .block_k = CIOT_QK_TQ,
                                       .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_tq2_0)};
const ciot_layout ciot_layout_t2p_tq2 = {.name = "t2p_tq2", .source = CIOT_FMT_TQ2_0, .tile_rows = 4, .block_k = CIOT_QK,
                                         .k_multiple = CIOT_QK_K, .block_bytes = sizeof(block_t2p),
                                         .pack = pack_t2p_tq2, .unpack = unpack_t2p_tq2};

static void quantize_q8_K(const float *x, void *dst, int batch, int K) {
    for (int b = 0; b < batch; b++)
        ciot_quantize_q8_K(x + (size_t)b * K, (block_q8_K *)dst + (size_t)b * (K / CIOT_QK_K), K);
}
static void quantize_q8_Kx4(const float *x, void *dst, int batch, int K) { ciot_quantize_q8_Kx4(x, dst, batch, K); }
static void quantize_q8_0(const float *x, void *dst, int batch, int K) {
    for (int b = 0; b < batch; b++)
        ciot_quantize_q8_0(x + (size_t)b * K, (block_q8_0 *)dst + (size_t)b * (K / CIOT_QK8_0), K);
}

const ciot_act_format ciot_act_q8_K = {"q8_K", CIOT_QK_K, 1, sizeof(block_q8_K), quantize_q8_K};
const ciot_act_format ciot_act_q8_Kx4 = {"q8_Kx4", CIOT_QK_K, 4, sizeof(block_q8_Kx4), quantize_q8_Kx4};
const ciot_act_format ciot_act_q8_0 = {"q8_0", CIOT_QK8_0, 1, sizeof(block_q8_0), quantize_q8_0};

ciot_status ciot_layout_check(const ciot_layout *l, int rows, int K) {
    if (rows <= 0 || K <= 0) return CIOT_E_ARG;
    if (rows % l->tile_rows || K % l->k_multiple) return CIOT_E_SHAPE;
    return CIOT_OK;
}

size_t ciot_layout_bytes(const ciot_layout *l, int rows, int K) {
    return (size_t)(rows / l->tile_rows) * (size_t)(K / l->block_k) * l->block_bytes;
}

int ciot_format_block_values(ciot_format f) { return f == CIOT_FMT_TQ1_0 || f == CIOT_FMT_TQ2_0 ? CIOT_QK_TQ : CIOT_QK; }

size_t ciot_format_block_bytes(ciot_format f) {
    switch (f) {
    case CIOT_FMT_PQ2_0: return sizeof(block_pq2_0);
    case CIOT_FMT_PTQ1_0: return sizeof(block_ptq1_0);
    case CIOT_FMT_TQ1_0: return sizeof(block_tq1_0);
    case CIOT_FMT_TQ2_0: return sizeof(block_tq2_0);
    }
    return 0;
}

size_t ciot_source_bytes(ciot_format f, int rows, int K) {
    return (size_t)rows * (size_t)(K / ciot_format_block_values(f)) * ciot_format_block_bytes(f);
}

size_t ciot_source_first_bad_scale(ciot_format f, const void *src, int rows, int K) {
    const size_t n = (size_t)rows * (size_t)(K / ciot_format_block_values(f));
    for (size_t i = 0; i < n; i++) {
        uint16_t d = 0;
        switch (f) {
        case CIOT_FMT_PQ2_0: d = ((const block_pq2_0 *)src)[i].d; break;
        case CIOT_FMT_PTQ1_0: d = ((const block_ptq1_0 *)src)[i].d; break;
        case CIOT_FMT_TQ1_0: d = ((const block_tq1_0 *)src)[i].d; break;
        case CIOT_FMT_TQ2_0: d = ((const block_tq2_0 *)src)[i].d; break;
        }
        if ((d & 0x7c00) == 0x7c00) return i;   /* fp16 exponent all ones: Inf or NaN */
    }
    return n;
}

ciot_status ciot_source_check_scales(ciot_format f, const void *src, int rows, int K, char *why, size_t why_len) {
    const size_t per_block = (size_t)ciot_format_block_values(f), per_row = (size_t)K / per_block;
    const size_t bad = ciot_source_first_bad_scale(f, src, rows, K);
    if (bad == (size_t)rows * per_row) return CIOT_OK;
    return ciot_error(CIOT_E_FORMAT, why, why_len,
                      "block %zu (row %zu, weights %zu..%zu) has a scale that is NaN or infinite", bad, bad / per_row,
                      bad % per_row * per_block, bad % per_row * per_block + per_block - 1);
}

const char *ciot_format_name(ciot_format f) {
    switch (f) {
    case CIOT_FMT_PQ2_0: return "pq2_0";
    case CIOT_FMT_PTQ1_0: return "ptq1_0";
    case CIOT_FMT_TQ1_0: return "tq1_0";
    case CIOT_FMT_TQ2_0: return "tq2_0";
    }
    return "unknown";
}

ciot_status ciot_layout_pack(const ciot_layout *l, const void *src, void *dst, int rows, int K) {
    ciot_status s = ciot_layout_check(l, rows, K);
    if (s != CIOT_OK) return s;
    if (l->pack) return l->pack(src, dst, rows, K);
    memcpy(dst, src, ciot_layout_bytes(l, rows, K));
    return CIOT_OK;
}

double ciot_layout_bits_per_weight(const ciot_layout *l) {
    return 8.0 * (double)l->block_bytes / (double)(l->tile_rows * l->block_k);
}

size_t ciot_act_bytes(const ciot_act_format *a, int batch, int K) {
    int groups = (batch + a->group_rows - 1) / a->group_rows;
    return (size_t)groups * (size_t)(K / a->block_values) * a->block_bytes;
}

ciot_status ciot_kernel_check(const ciot_kernel *k, int rows, int K, int batch) {
    if (batch <= 0) return CIOT_E_ARG;
    if (k->op == CIOT_OP_GEMV && batch != 1) return CIOT_E_ARG;
    return ciot_layout_check(k->layout, rows, K);
}
