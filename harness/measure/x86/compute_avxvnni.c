/* Peak int8 MAC rate with AVX-VNNI: vpdpbusd on 256-bit registers (u8 x s8, 4 products summed into each
 * s32 lane), 12 independent accumulator chains to hide its latency. 32 MACs per instruction. */
#if !defined(__AVXVNNI__)
#error "compute_avxvnni.c must be compiled with -mavxvnni (cmake/isa.cmake gives *_avxvnni.c files these flags)"
#endif
#include <immintrin.h>
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
