/* Kernel descriptors: layouts, activation formats, and the stateless slice interface every kernel has. */
#ifndef CIOT_KERNEL_H
#define CIOT_KERNEL_H

#include <stddef.h>
#include "status.h"

/* File formats of ternary weights: the Prism fork's 128-weight PQ2_0 and PTQ1_0, and mainline ggml's
 * 256-weight TQ1_0 and TQ2_0 (kernels/formats.md, kernels/README-tq.md). */
typedef enum { CIOT_FMT_PQ2_0, CIOT_FMT_PTQ1_0, CIOT_FMT_TQ1_0, CIOT_FMT_TQ2_0 } ciot_format;
typedef enum { CIOT_OP_GEMV, CIOT_OP_GEMM } ciot_op;

/* One matrix product. w: packed weights in the kernel's layout; x: quantized activations in the
 * kernel's activation format (gemm: ceil(batch / 4) Q8_Kx4 groups, the last zero-padded);
 * y[b * ldy + n] receives activation row b, weight row n. A gemv reads batch 1 and y[n].
 * prefetch: bytes ahead the kernel software-prefetches the weights it streams (prefetch.h), 0 for none;
 * it changes no output bit. */
typedef struct {
    const void *w;
    const void *x;
    float *y;
    int rows, K, batch, ldy;
    size_t prefetch;
} ciot_mm;

/* Computes weight-row tiles [first, first + count) (tile = layout->tile_rows rows). Stateless. */
typedef void (*ciot_compute_fn)(const ciot_mm *mm, int first, int count);

/* A weight layout: how source blocks become what a kernel reads. */
typedef struct {
    const char *name;           /* "pq2_0", "t2x4", "t2p", "tl2", "ptq1_0", "tl3", "tq1_0", "tq2_0", "t2p_tq2", "tl3_tq1", "tl16", "tl16_tq1" */
    ciot_format source;         /* the file format it is made from */
    int tile_rows;              /* rows per block and per slice unit: 1 (row-major), 4 or 256 */
    int block_k;                /* weights of one row per block: 128, or 256 for the TQ formats' own blocks */
    int k_multiple;             /* K must be a multiple of this (a multiple of block_k) */
    size_t block_bytes;         /* bytes of one block (tile_rows rows x block_k weights) */
    /* Source blocks (row-major) -> layout; NULL means the layout is the source bytes. */
    ciot_status (*pack)(const void *src, void *dst, int rows, int K);
    ciot_status (*unpack)(const void *src, void *dst, int rows, int K);
    int group_tiles;            /* tiles per group of a blocked matrix order (TL2, TL3: formats.h); 0 or 1: none */
} ciot_layout;

/* An activation format and its reference quantizer (B rows of K floats). */
typedef struct {
    const char *name;           /* "q8_K", "q8_Kx4", "q8_0" */
    int block_values;           /* values of one row per block */
    int group_rows;             /* activation rows per block: 1, or 4 for Q8_Kx4 */
    size_t block_bytes;
    void (*quantize)(const float *x, void *dst, int batch, int K);
} ciot_act_format;

/* CPU features a kernel may need (bits), one per row of kernels/isa.def. */
#include "isa.def"
#define CIOT_ISA_BIT(id, word, suffix, flags, needs, probe, detect) CIOT_FBIT_##id,
enum { CIOT_ISA(CIOT_ISA_BIT) CIOT_N_FEATURES };
#undef CIOT_ISA_BIT
#define CIOT_ISA_F(id, word, suffix, flags, needs, probe, detect) CIOT_F_##id = 1u << CIOT_FBIT_##id,
enum { CIOT_ISA(CIOT_ISA_F) };
#undef CIOT_ISA_F

/* What a kernel's inner loop multiplies weights by activations with: the int8 instruction sequence whose
 * peak is the compute roof of its gemm (the harness's compute probe times each, one row per sequence;
 * bench, the roofline and summary.md name the row a gemm is judged by), or why no such roof applies. Every descriptor declares it (0 is "not declared", which test_cpu refuses). */
typedef enum {
    CIOT_MAC_SCALAR = 1,        /* a portable reference: scalar C, no vector roof */
    CIOT_MAC_LOOKUP,            /* table lookups and adds (TL2, TL3, TL16 layouts): no weight x activation multiply */
    /* then CIOT_MAC_FAMILY per compute-probe sequence of kernels/isa.def: AVX2 (vpmaddubsw widened by vpmaddwd
     * at every step; ptq1_0's AVX2 and AVX-512 VNNI: vpmaddwd, vpdpwssd), AVX2_I16 (vpmaddubsw summed by vpaddw
     * in int16, widened at most once per two steps: the t2x4 / t2p kernels, TL3's AVX2 ones, which multiply
     * decoded trits), AVX2_I16_B32, AVXVNNI_B32, AVX512VNNI_B32 (the same multiplies with PTQ1_0's fp32 step
     * per 32 weights: its gemms), AVXVNNI, AVX512VNNI, NEONDOT, I8MM, SVEDOT, SVEI8MM; and the fp32 ones no
     * matvec declares, the token ops' roofs: FMA32_* and F16FMA_* (kernels/ops.md). scripts/x86-mix --check
     * holds the AVX2 declarations to what the kernels execute. */
#define CIOT_ISA_MAC(id, suffix, family, instruction) CIOT_MAC_##family,
#define CIOT_ISA_MAC_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(CIOT_ISA_MAC, id, suffix, probe)
    CIOT_ISA_FAMILY_ORDER(CIOT_ISA_MAC_ROW)
#undef CIOT_ISA_MAC_ROW
#undef CIOT_ISA_MAC
} ciot_mac;

typedef struct ciot_kernel {
    const char *name;           /* layout_op_method_isa, e.g. t2p_gemv_avx2 */
    const ciot_layout *layout;
    const ciot_act_format *act;
    ciot_op op;
    unsigned features;          /* CIOT_F_* bits required */
    const struct ciot_kernel *reference; /* the scalar twin it must match bit for bit; a reference is its own */
    ciot_compute_fn compute;
    ciot_mac mac;               /* what its inner loop multiplies with (above) */
    int mac_batch;              /* 0, or the activation batch from which a gemm's inner loop is another one: */
    ciot_mac mac_at_batch;      /* what it multiplies with from mac_batch on (the TL16 gemms: lookups below 16
                                 * rows, vpmaddubsw on decoded weights from 16; the T2P gemms: the same family
                                 * on tiles below it, on decoded slices from it) */
} ciot_kernel;

/* Whether gemm kernel k runs its second inner loop (mac_at_batch's) at this activation batch. A gemm of two loops
 * branches on it with its own descriptor, so the batch between them is written once, as .mac_batch. */
static inline int ciot_kernel_at_batch(const ciot_kernel *k, int batch) { return k->mac_batch > 0 && batch >= k->mac_batch; }

/* What kernel k's inner loop multiplies with at this activation batch. */
static inline ciot_mac ciot_kernel_mac(const ciot_kernel *k, int batch) {
    return ciot_kernel_at_batch(k, batch) ? k->mac_at_batch : k->mac;
}

/* A kernel's descriptor, its name written once: CIOT_KERNEL(t2p_gemv_avx2, t2p_gemv_ref, .layout = ...) defines
 * ciot_k_t2p_gemv_avx2, named "t2p_gemv_avx2", whose reference twin is ciot_k_t2p_gemv_ref, a pointer the
 * linker checks. The other fields are designated. A reference is its own twin (CIOT_REFERENCE). */
#define CIOT_KERNEL(id, twin, ...)                \
    extern const ciot_kernel ciot_k_##twin;       \
    const ciot_kernel ciot_k_##id = {.name = #id, .reference = &ciot_k_##twin, __VA_ARGS__}
#define CIOT_REFERENCE(id, ...) CIOT_KERNEL(id, id, __VA_ARGS__)


extern const ciot_layout ciot_layout_pq2_0, ciot_layout_t2x4, ciot_layout_t2p, ciot_layout_tl2, ciot_layout_ptq1_0,
    ciot_layout_tl3;
/* TQ1_0 and TQ2_0 as stored (the reference twins read them), TQ2_0 repacked into T2P bytes and TQ1_0 into
 * TL3 bytes: each 256-block's scale carried by both 128-halves (kernels/README-tq.md). */
extern const ciot_layout ciot_layout_tq1_0, ciot_layout_tq2_0, ciot_layout_t2p_tq2, ciot_layout_tl3_tq1;
/* The 16-entry lookup layout TL16 of PTQ1_0, and of TQ1_0 (each 256-block's scale carried by both halves). */
extern const ciot_layout ciot_layout_tl16, ciot_layout_tl16_tq1;
extern const ciot_act_format ciot_act_q8_K, ciot_act_q8_Kx4, ciot_act_q8_0;

/* Bytes of a packed matrix, and whether the layout can take the shape. */
size_t ciot_layout_bytes(const ciot_layout *l, int rows, int K);
ciot_status ciot_layout_check(const ciot_layout *l, int rows, int K);
/* Weights per block of a file format (128 or 256) and bytes per block. */
int ciot_format_block_values(ciot_format f);
size_t ciot_format_block_bytes(ciot_format f);
/* Source bytes of a rows x K matrix in the format (K a multiple of its block). */
size_t ciot_source_bytes(ciot_format f, int rows, int K);
/* The first block (row-major, rows x K / block values of them) of a source matrix whose fp16 scale is NaN or
 * +-Inf, or rows * (K / 128) when every scale is finite. Callers refuse such weights: their outputs would
 * be NaN, whatever the kernel. */
size_t ciot_source_first_bad_scale(ciot_format f, const void *src, int rows, int K);
/* CIOT_E_FORMAT when a block scale is NaN or +-Inf, why naming the first: "block B (row R, weights A..Z) has a
 * scale that is NaN or infinite"; else CIOT_OK. */
ciot_status ciot_source_check_scales(ciot_format f, const void *src, int rows, int K, char *why, size_t why_len);
/* "pq2_0", "ptq1_0", "tq1_0", "tq2_0": the name of the file format, as `ciot kernels` prints it
 * (source=NAME). */
const char *ciot_format_name(ciot_format f);
/* Packs source blocks into the layout (a copy where the layout is the source). */
ciot_status ciot_layout_pack(const ciot_layout *l, const void *src, void *dst, int rows, int K);
double ciot_layout_bits_per_weight(const ciot_layout *l);

/* Bytes of batch rows of K activations in the format. */
size_t ciot_act_bytes(const ciot_act_format *a, int batch, int K);

/* Checks a shape against a kernel (layout shape, K multiple, batch >= 1). */
ciot_status ciot_kernel_check(const ciot_kernel *k, int rows, int K, int batch);
static inline int ciot_kernel_tiles(const ciot_kernel *k, int rows) { return rows / k->layout->tile_rows; }

#endif
