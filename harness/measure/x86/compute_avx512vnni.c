/* Peak int8 MAC rate with AVX512-VNNI: vpdpbusd on 512-bit registers (u8 x s8, 4 products summed into
 * each s32 lane), 12 independent accumulator chains to hide its latency. 64 MACs per instruction. */
#if !defined(__AVX512VNNI__) || !defined(__AVX512F__)
#error "compute_avx512vnni.c must be compiled with -mavx512f -mavx512vnni (cmake/isa.cmake gives *_avx512vnni.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_loops.h"

const int ciot_compute_macs_avx512vnni = CIOT_REG_CHAINS * 64;

uint64_t ciot_compute_loop_avx512vnni(uint64_t iters) {
    __m512i x = _mm512_set1_epi8(1), w = _mm512_set1_epi8(1);
#define ZERO(k) __m512i a##k = _mm512_setzero_si512();
#define STEP(k) a##k = _mm512_dpbusd_epi32(a##k, x, w);
#define SUM(k) s = _mm512_add_epi32(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        /* Opaque operands: the compiler cannot reason about what the chains add up to. */
        __asm__ __volatile__("" : "+v"(x), "+v"(w));
        CIOT_REG_CHAINS_EACH(STEP)
    }
    __m512i s = _mm512_setzero_si512();
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)(uint32_t)_mm512_reduce_add_epi32(s);
}
