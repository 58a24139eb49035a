/* Peak int8 MAC rate with AVX512-VNNI: vpdpbusd on 512-bit registers (u8 x s8, 4 products summed into
 * each s32 lane), 12 independent accumulator chains to hide its latency. 64 MACs per instruction.
 * avx512vnni_b32: the same in chains of 8 (32 weights of 16 rows), each followed by PTQ1_0's fp32 step
 * (compute_b32.h). */
#if !defined(__AVX512VNNI__) || !defined(__AVX512F__)
#error "compute_avx512vnni.c must be compiled with -mavx512f -mavx512vnni (cmake/isa.cmake gives *_avx512vnni.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_b32.h"
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

const int ciot_compute_macs_avx512vnni_b32 = CIOT_B32_CHAINS * CIOT_B32_STEPS * 64;

uint64_t ciot_compute_loop_avx512vnni_b32(uint64_t iters) {
    _Alignas(64) int8_t w[64];
    _Alignas(64) float dw[CIOT_B32_CHAINS][16], acc[CIOT_B32_CHAINS][16];
    _Alignas(64) int32_t start[CIOT_B32_CHAINS][16] = {{0}};
    ciot_b32_init(w, sizeof w, &dw[0][0], &acc[0][0], sizeof acc / sizeof(float));
    __m512i x = _mm512_set1_epi8(1), wv = _mm512_load_si512(w);
    __m512 dy = _mm512_set1_ps(1.0f);
    for (uint64_t i = 0; i < iters; i++) {
        /* opaque operands; each chain starts from its own state (as a gemm's from its row sums), reloaded:
         * chains started alike from zero are one chain to the compiler */
        __asm__ __volatile__("" : "+v"(x), "+v"(wv), "+v"(dy) : "r"(dw), "r"(acc), "r"(start) : "memory");
        __m512i a[CIOT_B32_CHAINS];
        for (int k = 0; k < CIOT_B32_CHAINS; k++) a[k] = _mm512_dpbusd_epi32(_mm512_load_si512(start[k]), x, wv);
        for (int s = 1; s < CIOT_B32_STEPS; s++)
            for (int k = 0; k < CIOT_B32_CHAINS; k++) a[k] = _mm512_dpbusd_epi32(a[k], x, wv);
        for (int k = 0; k < CIOT_B32_CHAINS; k++) {
            const __m512 d = _mm512_mul_ps(_mm512_load_ps(dw[k]), dy);
            _mm512_store_ps(acc[k], _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[k]), d, _mm512_load_ps(acc[k])));
        }
    }
    return ciot_b32_checksum(&acc[0][0], sizeof acc / sizeof(float));
}
