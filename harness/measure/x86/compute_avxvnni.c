/* Peak int8 MAC rate with AVX-VNNI: vpdpbusd on 256-bit registers (u8 x s8, 4 products summed into each
 * s32 lane), 12 independent accumulator chains to hide its latency. 32 MACs per instruction. */
#if !defined(__AVXVNNI__)
#error "compute_avxvnni.c must be compiled with -mavxvnni (cmake/isa.cmake gives *_avxvnni.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_loops.h"

enum { CHAINS = 12 };
const int ciot_compute_macs_avxvnni = CHAINS * 32;

uint64_t ciot_compute_loop_avxvnni(uint64_t iters) {
    __m256i x = _mm256_set1_epi8(1), w = _mm256_set1_epi8(1);
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    __m256i a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+x"(x), "+x"(w));
        a0 = _mm256_dpbusd_avx_epi32(a0, x, w);
        a1 = _mm256_dpbusd_avx_epi32(a1, x, w);
        a2 = _mm256_dpbusd_avx_epi32(a2, x, w);
        a3 = _mm256_dpbusd_avx_epi32(a3, x, w);
        a4 = _mm256_dpbusd_avx_epi32(a4, x, w);
        a5 = _mm256_dpbusd_avx_epi32(a5, x, w);
        a6 = _mm256_dpbusd_avx_epi32(a6, x, w);
        a7 = _mm256_dpbusd_avx_epi32(a7, x, w);
        a8 = _mm256_dpbusd_avx_epi32(a8, x, w);
        a9 = _mm256_dpbusd_avx_epi32(a9, x, w);
        a10 = _mm256_dpbusd_avx_epi32(a10, x, w);
        a11 = _mm256_dpbusd_avx_epi32(a11, x, w);
    }
    __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)),
                                 _mm256_add_epi32(_mm256_add_epi32(a4, a5), _mm256_add_epi32(a6, a7)));
    s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_add_epi32(a8, a9), _mm256_add_epi32(a10, a11)));
    _Alignas(32) int32_t lanes[8];
    _mm256_store_si256((__m256i *)lanes, s);
    uint64_t sum = 0;
    for (int i = 0; i < 8; i++) sum += (uint32_t)lanes[i];
    return sum;
}
