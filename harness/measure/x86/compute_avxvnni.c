/* Peak int8 MAC rate with AVX-VNNI: vpdpbusd on 256-bit registers (u8 x s8, 4 products summed into each
 * s32 lane), 12 independent accumulator chains to hide its latency. 32 MACs per instruction.
 * avxvnni_b32: the same in chains of 8 (32 weights of 8 rows), each followed by PTQ1_0's fp32 step
 * (compute_b32.h). */
#if !defined(__AVXVNNI__)
#error "compute_avxvnni.c must be compiled with -mavxvnni (cmake/isa.cmake gives *_avxvnni.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_b32.h"
#include "compute_loops.h"

const int ciot_compute_macs_avxvnni = CIOT_REG_CHAINS * 32;

uint64_t ciot_compute_loop_avxvnni(uint64_t iters) {
    __m256i x = _mm256_set1_epi8(1), w = _mm256_set1_epi8(1);
#define ZERO(k) __m256i a##k = _mm256_setzero_si256();
#define STEP(k) a##k = _mm256_dpbusd_avx_epi32(a##k, x, w);
#define SUM(k) s = _mm256_add_epi32(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+x"(x), "+x"(w));
        CIOT_REG_CHAINS_EACH(STEP)
    }
    __m256i s = _mm256_setzero_si256();
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    _Alignas(32) int32_t lanes[8];
    _mm256_store_si256((__m256i *)lanes, s);
    uint64_t sum = 0;
    for (int i = 0; i < 8; i++) sum += (uint32_t)lanes[i];
    return sum;
}

const int ciot_compute_macs_avxvnni_b32 = CIOT_B32_CHAINS * CIOT_B32_STEPS * 32;

uint64_t ciot_compute_loop_avxvnni_b32(uint64_t iters) {
    _Alignas(32) int8_t w[32];
    _Alignas(32) float dw[CIOT_B32_CHAINS][8], acc[CIOT_B32_CHAINS][8];
    _Alignas(32) int32_t start[CIOT_B32_CHAINS][8] = {{0}};
    ciot_b32_init(w, sizeof w, &dw[0][0], &acc[0][0], sizeof acc / sizeof(float));
    __m256i x = _mm256_set1_epi8(1), wv = _mm256_load_si256((const __m256i *)w);
    __m256 dy = _mm256_set1_ps(1.0f);
    for (uint64_t i = 0; i < iters; i++) {
        /* opaque operands; each chain starts from its own state (as a gemm's from its row sums), reloaded:
         * chains started alike from zero are one chain to the compiler */
        __asm__ __volatile__("" : "+x"(x), "+x"(wv), "+x"(dy) : "r"(dw), "r"(acc), "r"(start) : "memory");
        __m256i a[CIOT_B32_CHAINS];
        for (int k = 0; k < CIOT_B32_CHAINS; k++)
            a[k] = _mm256_dpbusd_avx_epi32(_mm256_load_si256((const __m256i *)start[k]), x, wv);
        for (int s = 1; s < CIOT_B32_STEPS; s++)
            for (int k = 0; k < CIOT_B32_CHAINS; k++) a[k] = _mm256_dpbusd_avx_epi32(a[k], x, wv);
        for (int k = 0; k < CIOT_B32_CHAINS; k++) {
            const __m256 d = _mm256_mul_ps(_mm256_load_ps(dw[k]), dy);
            _mm256_store_ps(acc[k], _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[k]), d, _mm256_load_ps(acc[k])));
        }
    }
    return ciot_b32_checksum(&acc[0][0], sizeof acc / sizeof(float));
}
