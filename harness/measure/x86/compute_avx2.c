/* Peak int8 MAC rates with AVX2, the two sequences a kernel without VNNI multiplies with:
 * - avx2 (the widening chain): vpmaddubsw (u8 x s8 -> pairs summed into s16) then vpmaddwd by ones
 *   (-> s32) then vpaddd into 8 independent accumulators, 32 MACs per triple: the sequence that is exact
 *   for any int8 operands;
 * - avx2_i16: vpmaddubsw then vpaddw into 12 int16 accumulators, 32 MACs per pair: what a ternary kernel
 *   issues when its small codes keep many steps inside int16 before one widening (t2p_tile8x4_avx2.h), so
 *   it costs half the multiply-port work per MAC.
 * - avx2_i16_b32: avx2_i16 in chains of 8 steps (32 weights of 8 rows), each followed by the fp32 step of
 *   PTQ1_0's per-32 float order: vpmaddwd to int32, vcvtdq2ps, vmulps of the two scales and vfmadd into a
 *   float state kept in L1, as the PTQ1_0 gemms keep theirs. The float step takes the multiply pipes too,
 *   so this is the peak a per-32 gemm can reach (compute_b32.h).
 * One operand is reloaded from an L1-resident array each time, as a kernel would. */
#if !defined(__AVX2__)
#error "compute_avx2.c must be compiled with -mavx2 (cmake/isa.cmake gives *_avx2.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_b32.h"
#include "compute_loops.h"

enum { CHAINS = 8 };
const int ciot_compute_macs_avx2 = CHAINS * 32;

uint64_t ciot_compute_loop_avx2(uint64_t iters) {
    /* Small values: u8 1 x s8 1, so vpmaddubsw never saturates. */
    _Alignas(32) int8_t w[CHAINS][32];
    for (int k = 0; k < CHAINS; k++)
        for (int i = 0; i < 32; i++) w[k][i] = 1;
    const __m256i x = _mm256_set1_epi8(1), ones = _mm256_set1_epi16(1);
    __m256i a[CHAINS];
    for (int k = 0; k < CHAINS; k++) a[k] = _mm256_setzero_si256();
    for (uint64_t i = 0; i < iters; i++) {
        /* Hands w to the asm and claims memory changed: w must be reloaded and the products redone. */
        __asm__ __volatile__("" : : "r"(w) : "memory");
        for (int k = 0; k < CHAINS; k++)
            a[k] = _mm256_add_epi32(
                a[k], _mm256_madd_epi16(_mm256_maddubs_epi16(x, _mm256_load_si256((const __m256i *)w[k])), ones));
    }
    __m256i s = a[0];
    for (int k = 1; k < CHAINS; k++) s = _mm256_add_epi32(s, a[k]);
    _Alignas(32) int32_t lanes[8];
    _mm256_store_si256((__m256i *)lanes, s);
    uint64_t sum = 0;
    for (int i = 0; i < 8; i++) sum += (uint32_t)lanes[i];
    return sum;
}

enum { CHAINS16 = 12 };
const int ciot_compute_macs_avx2_i16 = CHAINS16 * 32;

uint64_t ciot_compute_loop_avx2_i16(uint64_t iters) {
    /* u8 1 x s8 1: each step adds 2 to a lane; int16 lanes wrap, harmlessly, only after 16384 iterations */
    _Alignas(32) int8_t w[CHAINS16][32];
    for (int k = 0; k < CHAINS16; k++)
        for (int i = 0; i < 32; i++) w[k][i] = 1;
    const __m256i x = _mm256_set1_epi8(1);
    __m256i a[CHAINS16];
    for (int k = 0; k < CHAINS16; k++) a[k] = _mm256_setzero_si256();
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : : "r"(w) : "memory"); /* as above: w reloaded, products redone */
        for (int k = 0; k < CHAINS16; k++)
            a[k] = _mm256_add_epi16(a[k], _mm256_maddubs_epi16(x, _mm256_load_si256((const __m256i *)w[k])));
    }
    __m256i s = a[0];
    for (int k = 1; k < CHAINS16; k++) s = _mm256_add_epi16(s, a[k]);
    _Alignas(32) int16_t lanes[16];
    _mm256_store_si256((__m256i *)lanes, s);
    uint64_t sum = 0;
    for (int i = 0; i < 16; i++) sum += (uint16_t)lanes[i];
    return sum;
}

/* 6 chains: faster than 8, and with 10 clang kept some sums on the stack (AVX2 has 16 ymm registers;
 * results/kernel-bounds.md, "Gemm families") */
enum { CHAINS_B32 = 6 };
const int ciot_compute_macs_avx2_i16_b32 = CHAINS_B32 * CIOT_B32_STEPS * 32;

uint64_t ciot_compute_loop_avx2_i16_b32(uint64_t iters) {
    _Alignas(32) int8_t w[CHAINS_B32][32];
    _Alignas(32) float dw[CHAINS_B32][8], acc[CHAINS_B32][8];
    ciot_b32_init(&w[0][0], sizeof w, &dw[0][0], &acc[0][0], sizeof acc / sizeof(float));
    const __m256i x = _mm256_set1_epi8(1), ones = _mm256_set1_epi16(1);
    __m256 dy = _mm256_set1_ps(1.0f);
    for (uint64_t i = 0; i < iters; i++) {
        /* dw and acc reloaded, dy opaque: every scale step is redone */
        __asm__ __volatile__("" : "+x"(dy) : "r"(dw), "r"(acc) : "memory");
        __m256i a[CHAINS_B32];
        for (int s = 0; s < CIOT_B32_STEPS; s++) { /* u8 1 x s8 1: 16 a lane after the 8 steps */
            /* w reloaded at every step, as in avx2_i16: otherwise a chain's 8 products are one, added 8 times */
            __asm__ __volatile__("" : : "r"(w) : "memory");
            for (int k = 0; k < CHAINS_B32; k++) {
                const __m256i p = _mm256_maddubs_epi16(x, _mm256_load_si256((const __m256i *)w[k]));
                a[k] = s ? _mm256_add_epi16(a[k], p) : p;
            }
        }
        for (int k = 0; k < CHAINS_B32; k++) {
            const __m256 d = _mm256_mul_ps(_mm256_load_ps(dw[k]), dy);
            _mm256_store_ps(acc[k], _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(a[k], ones)), d,
                                                    _mm256_load_ps(acc[k])));
        }
    }
    return ciot_b32_checksum(&acc[0][0], sizeof acc / sizeof(float));
}

/* The checksum of an fp32 loop: its accumulators' lanes added up (each multiply-add added 1). */
static uint64_t fp32_lanes_sum(__m256 s) {
    float f[8];
    _mm256_storeu_ps(f, s);
    double sum = 0;
    for (int i = 0; i < 8; i++) sum += f[i];
    return (uint64_t)sum;
}

/* fma32_avx2: vfmadd231ps on ymm into 12 independent chains, 8 fp32 multiply-adds each: the FMA peak the
 * token ops' float loops (attention's dot products, DeltaNet's state rows) are bound by in cache. */
const int ciot_compute_macs_fma32_avx2 = CIOT_REG_CHAINS * 8;

uint64_t ciot_compute_loop_fma32_avx2(uint64_t iters) {
    __m256 x = _mm256_set1_ps(1.0f), w = _mm256_set1_ps(1.0f);
#define ZERO(k) __m256 a##k = _mm256_setzero_ps();
#define STEP(k) a##k = _mm256_fmadd_ps(x, w, a##k);
#define SUM(k) s = _mm256_add_ps(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : "+x"(x), "+x"(w)); /* opaque operands: no chain can be folded */
        CIOT_REG_CHAINS_EACH(STEP)
    }
    __m256 s = _mm256_setzero_ps();
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return fp32_lanes_sum(s);
}

/* f16fma_avx2: each multiply-add's operand widened from 8 fp16 values read from L1 (vcvtph2ps with a memory
 * operand), as attention reads its K and V rows; 12 chains, 8 fp32 multiply-adds each. */
const int ciot_compute_macs_f16fma_avx2 = CIOT_REG_CHAINS * 8;

uint64_t ciot_compute_loop_f16fma_avx2(uint64_t iters) {
    _Alignas(32) uint16_t h[CIOT_REG_CHAINS][8];
    for (int k = 0; k < CIOT_REG_CHAINS; k++)
        for (int i = 0; i < 8; i++) h[k][i] = 0x3c00; /* fp16 1.0: each multiply-add adds 1 */
    __m256 x = _mm256_set1_ps(1.0f);
#define ZERO(k) __m256 a##k = _mm256_setzero_ps();
#define STEP(k) a##k = _mm256_fmadd_ps(x, _mm256_cvtph_ps(_mm_load_si128((const __m128i *)h[k])), a##k);
#define SUM(k) s = _mm256_add_ps(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : "+x"(x) : "r"(h) : "memory"); /* the fp16 rows are read again each time */
        CIOT_REG_CHAINS_EACH(STEP)
    }
    __m256 s = _mm256_setzero_ps();
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return fp32_lanes_sum(s);
}
