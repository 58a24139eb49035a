/* Small NEON helpers the aarch64 kernels share: exact fp16 widening and unaligned loads that C allows
 * (Q8_K rows are only 4-byte aligned; an aligned(1) type or memcpy lets clang emit one plain load). */
#ifndef CIOT_ARM_UTIL_NEON_H
#define CIOT_ARM_UTIL_NEON_H

#include <arm_neon.h>
#include <string.h>

/* Hot-loop markers for scripts/arm-cost (llvm-mca region names). They are assembler comments: no
 * instruction is emitted. -DCIOT_NO_MCA_MARKERS drops them, which the script uses to show that the marked
 * loop compiles to the same instructions without them. Place them around a per-block loop, never inside. */
#ifdef CIOT_NO_MCA_MARKERS
#define CIOT_MCA_BEGIN(name)
#define CIOT_MCA_END()
#else
#define CIOT_MCA_BEGIN(name) __asm__ volatile("// LLVM-MCA-BEGIN " name)
#define CIOT_MCA_END() __asm__ volatile("// LLVM-MCA-END")
#endif

/* File scope, for a kernel whose hot loop scripts/arm-cost cannot normalize by its dot instructions (a TBL
 * lookup kernel, say): how to turn the loop's instructions into a per-block cost. `spec` is space-separated
 * key=value: weight_rows, activation_rows (the tile), anchor (the loop to measure is the one with the most
 * of these mnemonics, '+' joining several) and either per_block (anchors per 128-weight block of the
 * tile) or weights_per_iteration (weights of one weight row per loop iteration, for a loop the compiler
 * does not unroll). Example: CIOT_MCA_TILE("tl2_gemv_neon", "weight_rows=1 anchor=tbl per_block=8");
 * An assembler comment only. */
#define CIOT_MCA_TILE(name, spec) __asm__("// CIOT-MCA-TILE " name " " spec)

typedef int64_t ciot_i64_unaligned_neon __attribute__((aligned(1)));

/* p += n, hiding the new p from the optimizer (the asm is empty: no instruction). A pointer that walks a
 * stream load after load then keeps one increment per load, which clang folds into the load's post-index
 * addressing; otherwise it computes each address from one base, an ADD per LD1 of several registers
 * (which has no immediate offset). */
#define CIOT_STEP_NEON(p, n)         \
    do {                             \
        (p) += (n);                  \
        __asm__("" : "+r"(p));       \
    } while (0)

/* fp32(h): FCVT widens exactly, subnormals included (Linux leaves FPCR.FZ16 clear). */
static inline float ciot_fp16_neon(const uint16_t *h) {
    __fp16 v;
    memcpy(&v, h, 2);
    return (float)v;
}

/* fp32 of four consecutive fp16 scales. */
static inline float32x4_t ciot_fp16x4_neon(const uint16_t h[4]) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))); }

#endif
