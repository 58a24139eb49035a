/* The streaming copy step the AVX2 state copy and the copy_nt probe (harness/measure/x86/bw_avx2.c) share, so
 * the ruler runs the op's own loop: one 64-byte line per step, its two loads, then its two non-temporal
 * stores. On an Intel Xeon (AVX-512 class, 1 thread, 1 GiB each side) this ran 25.6-26.6 GB/s against
 * 19.7-20.4 for eight loads then eight stores per 256 bytes, and 1.15x a 128-byte step in the state copy.
 * The caller gives a 64-byte aligned dst and a multiple of 64 bytes, and fences (_mm_sfence) when done. */
#ifndef CIOT_COPY_NT_AVX2_H
#define CIOT_COPY_NT_AVX2_H

#include <immintrin.h>
#include <stddef.h>

static inline void ciot_copy_nt_lines_avx2(char *dst, const char *src, size_t bytes) {
    for (size_t i = 0; i < bytes; i += 64) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(src + i + 32));
        _mm256_stream_si256((__m256i *)(dst + i), v0);
        _mm256_stream_si256((__m256i *)(dst + i + 32), v1);
    }
}

#endif
