/* Peak int8 MAC rate with AVX512-VNNI: vpdpbusd on 512-bit registers (u8 x s8, 4 products summed into
 * each s32 lane), 12 independent accumulator chains to hide its latency. 64 MACs per instruction. */
#if !defined(__AVX512VNNI__) || !defined(__AVX512F__)
#error "compute_avx512vnni.c must be compiled with -mavx512f -mavx512vnni (cmake/isa.cmake gives *_avx512vnni.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_loops.h"

enum { CHAINS = 12 };
const int ciot_compute_macs_avx512vnni = CHAINS * 64;

uint64_t ciot_compute_loop_avx512vnni(uint64_t iters) {
    __m512i x = _mm512_set1_epi8(1), w = _mm512_set1_epi8(1);
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    __m512i a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+v"(x), "+v"(w));
        a0 = _mm512_dpbusd_epi32(a0, x, w);
        a1 = _mm512_dpbusd_epi32(a1, x, w);
        a2 = _mm512_dpbusd_epi32(a2, x, w);
        a3 = _mm512_dpbusd_epi32(a3, x, w);
        a4 = _mm512_dpbusd_epi32(a4, x, w);
        a5 = _mm512_dpbusd_epi32(a5, x, w);
        a6 = _mm512_dpbusd_epi32(a6, x, w);
        a7 = _mm512_dpbusd_epi32(a7, x, w);
        a8 = _mm512_dpbusd_epi32(a8, x, w);
        a9 = _mm512_dpbusd_epi32(a9, x, w);
        a10 = _mm512_dpbusd_epi32(a10, x, w);
        a11 = _mm512_dpbusd_epi32(a11, x, w);
    }
    __m512i s = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3)),
                                 _mm512_add_epi32(_mm512_add_epi32(a4, a5), _mm512_add_epi32(a6, a7)));
    s = _mm512_add_epi32(s, _mm512_add_epi32(_mm512_add_epi32(a8, a9), _mm512_add_epi32(a10, a11)));
    return (uint64_t)(uint32_t)_mm512_reduce_add_epi32(s);
}
