/* Peak fp32 multiply-add rates with AVX-512 F, the sequences the token ops' AVX-512 loops issue:
 * - fma32_avx512: vfmadd231ps on zmm into 12 independent chains, 16 fp32 multiply-adds each;
 * - f16fma_avx512: the same with each multiply-add's operand widened from 16 fp16 values read from L1
 *   (vcvtph2ps with a memory operand), as attention reads its K and V rows. */
#if !defined(__AVX512F__) || !defined(__FMA__)
#error "compute_avx512f.c must be compiled with -mavx512f -mfma (cmake/isa.cmake gives *_avx512f.c files these flags)"
#endif
#include <immintrin.h>
#include "compute_loops.h"

const int ciot_compute_macs_fma32_avx512 = CIOT_REG_CHAINS * 16;

uint64_t ciot_compute_loop_fma32_avx512(uint64_t iters) {
    __m512 x = _mm512_set1_ps(1.0f), w = _mm512_set1_ps(1.0f);
#define ZERO(k) __m512 a##k = _mm512_setzero_ps();
#define STEP(k) a##k = _mm512_fmadd_ps(x, w, a##k);
#define SUM(k) s = _mm512_add_ps(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : "+v"(x), "+v"(w)); /* opaque operands: no chain can be folded */
        CIOT_REG_CHAINS_EACH(STEP)
    }
    __m512 s = _mm512_setzero_ps();
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)_mm512_reduce_add_ps(s);
}

const int ciot_compute_macs_f16fma_avx512 = CIOT_REG_CHAINS * 16;

uint64_t ciot_compute_loop_f16fma_avx512(uint64_t iters) {
    _Alignas(64) uint16_t h[CIOT_REG_CHAINS][16];
    for (int k = 0; k < CIOT_REG_CHAINS; k++)
        for (int i = 0; i < 16; i++) h[k][i] = 0x3c00; /* fp16 1.0: each multiply-add adds 1 */
    __m512 x = _mm512_set1_ps(1.0f);
#define ZERO(k) __m512 a##k = _mm512_setzero_ps();
#define STEP(k) a##k = _mm512_fmadd_ps(x, _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)h[k])), a##k);
#define SUM(k) s = _mm512_add_ps(s, a##k);
    CIOT_REG_CHAINS_EACH(ZERO)
    for (uint64_t i = 0; i < iters; i++) {
        __asm__ __volatile__("" : "+v"(x) : "r"(h) : "memory"); /* the fp16 rows are read again each time */
        CIOT_REG_CHAINS_EACH(STEP)
    }
    __m512 s = _mm512_setzero_ps();
    CIOT_REG_CHAINS_EACH(SUM)
#undef ZERO
#undef STEP
#undef SUM
    return (uint64_t)_mm512_reduce_add_ps(s);
}
