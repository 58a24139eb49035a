/* The streaming copy the AVX2 state copy and the copy_nt probe (harness/measure/x86/bw_avx2.c) share, so the
 * ruler runs the op's own loop. A step is one 64-byte line: its two loads, then its two non-temporal stores
 * (faster than eight loads then eight stores, or a 128-byte step). The bytes go as `streams` equal parts
 * copied side by side, four lines of each in turn, which copies faster than one part line after line
 * (results/kernel-bounds.md, "State copy"). The caller gives a 64-byte aligned dst
 * and a multiple of 64 bytes, and fences (_mm_sfence) when done. */
#ifndef CIOT_COPY_NT_AVX2_H
#define CIOT_COPY_NT_AVX2_H

#include <immintrin.h>
#include <stddef.h>

enum { CIOT_COPY_NT_STREAMS = 4 }; /* the state copy's parts side by side */

static inline void ciot_copy_nt_line_avx2(char *dst, const char *src) {
    __m256i v0 = _mm256_loadu_si256((const __m256i *)src), v1 = _mm256_loadu_si256((const __m256i *)(src + 32));
    _mm256_stream_si256((__m256i *)dst, v0);
    _mm256_stream_si256((__m256i *)(dst + 32), v1);
}

/* bytes as `streams` parts of a whole number of 256-byte blocks each, a block of each part in turn, then
 * the lines past streams x part in order. */
static inline void ciot_copy_nt_avx2(char *dst, const char *src, size_t bytes, int streams) {
    const size_t part = bytes / ((size_t)streams * 256) * 256;
    for (size_t off = 0; off < part; off += 256)
        for (int k = 0; k < streams; k++)
            for (size_t l = 0; l < 256; l += 64)
                ciot_copy_nt_line_avx2(dst + (size_t)k * part + off + l, src + (size_t)k * part + off + l);
    for (size_t i = (size_t)streams * part; i < bytes; i += 64) ciot_copy_nt_line_avx2(dst + i, src + i);
}

#endif
