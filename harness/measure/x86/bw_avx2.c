/* DRAM probe inner loops with AVX2: 256-bit aligned loads into eight independent accumulators (read),
 * 256-bit stores (write), load/store pairs (copy; copy_nt with streaming stores) and load-add-store of the
 * same lines (update), 256 bytes per iteration; read, update and copy_nt (the state copy's loop) take their
 * buffer as `streams` equal parts side by side, a 256-byte block of each in turn.
 * Preconditions: see bw_loops.h (64-byte aligned, bytes a multiple of CIOT_BW_BLOCK). */
#if !defined(__AVX2__)
#error "bw_avx2.c must be compiled with -mavx2 (cmake/isa.cmake gives *_avx2.c files these flags)"
#endif
#include <immintrin.h>
#include "bw_loops.h"
#include "x86/copy_nt_avx2.h"

uint64_t ciot_bw_read_avx2(const void *src, size_t bytes, size_t ahead, int streams) {
    /* Eight accumulators: the adds never form a chain long enough to pace the loads. */
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        const __m256i *p = (const __m256i *)((const char *)src + at);
        ciot_prefetch(p, 256, ahead); /* the kernels' policy (kernels/prefetch.h), on this block's 4 lines */
        a0 = _mm256_add_epi64(a0, _mm256_load_si256(p + 0));
        a1 = _mm256_add_epi64(a1, _mm256_load_si256(p + 1));
        a2 = _mm256_add_epi64(a2, _mm256_load_si256(p + 2));
        a3 = _mm256_add_epi64(a3, _mm256_load_si256(p + 3));
        a4 = _mm256_add_epi64(a4, _mm256_load_si256(p + 4));
        a5 = _mm256_add_epi64(a5, _mm256_load_si256(p + 5));
        a6 = _mm256_add_epi64(a6, _mm256_load_si256(p + 6));
        a7 = _mm256_add_epi64(a7, _mm256_load_si256(p + 7));
    }
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3)),
                                 _mm256_add_epi64(_mm256_add_epi64(a4, a5), _mm256_add_epi64(a6, a7)));
    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return (uint64_t)_mm_cvtsi128_si64(h) + (uint64_t)_mm_extract_epi64(h, 1);
}

void ciot_bw_write_avx2(void *dst, size_t bytes, uint64_t value) {
    __m256i *p = dst, *end = (__m256i *)((char *)dst + bytes);
    __m256i v = _mm256_set1_epi64x((long long)value);
    for (; p < end; p += 8) {
        _mm256_store_si256(p + 0, v);
        _mm256_store_si256(p + 1, v);
        _mm256_store_si256(p + 2, v);
        _mm256_store_si256(p + 3, v);
        _mm256_store_si256(p + 4, v);
        _mm256_store_si256(p + 5, v);
        _mm256_store_si256(p + 6, v);
        _mm256_store_si256(p + 7, v);
    }
}

void ciot_bw_copy_avx2(void *dst, const void *src, size_t bytes) {
    const __m256i *s = src, *end = (const __m256i *)((const char *)src + bytes);
    __m256i *d = dst;
    for (; s < end; s += 8, d += 8) {
        __m256i v0 = _mm256_load_si256(s + 0), v1 = _mm256_load_si256(s + 1);
        __m256i v2 = _mm256_load_si256(s + 2), v3 = _mm256_load_si256(s + 3);
        __m256i v4 = _mm256_load_si256(s + 4), v5 = _mm256_load_si256(s + 5);
        __m256i v6 = _mm256_load_si256(s + 6), v7 = _mm256_load_si256(s + 7);
        _mm256_store_si256(d + 0, v0);
        _mm256_store_si256(d + 1, v1);
        _mm256_store_si256(d + 2, v2);
        _mm256_store_si256(d + 3, v3);
        _mm256_store_si256(d + 4, v4);
        _mm256_store_si256(d + 5, v5);
        _mm256_store_si256(d + 6, v6);
        _mm256_store_si256(d + 7, v7);
    }
}

/* The AVX2 state copy's own loop (kernels/ops/x86/copy_nt_avx2.h: per 64-byte line two loads then two
 * streaming stores, in `streams` parts side by side), so this ruler and the op it measures cannot drift
 * apart: a longer step here once left the ruler below the state copies. */
void ciot_bw_copy_nt_avx2(void *dst, const void *src, size_t bytes, int streams) {
    ciot_copy_nt_avx2(dst, src, bytes, streams);
    _mm_sfence(); /* the streamed lines are in memory before the pass counts as done */
}

void ciot_bw_update_avx2(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams) {
    const __m256i v = _mm256_set1_epi64x((long long)value);
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        __m256i *p = (__m256i *)((char *)buf + at);
        ciot_prefetch(p, 256, ahead);
        __m256i x0 = _mm256_load_si256(p + 0), x1 = _mm256_load_si256(p + 1);
        __m256i x2 = _mm256_load_si256(p + 2), x3 = _mm256_load_si256(p + 3);
        __m256i x4 = _mm256_load_si256(p + 4), x5 = _mm256_load_si256(p + 5);
        __m256i x6 = _mm256_load_si256(p + 6), x7 = _mm256_load_si256(p + 7);
        _mm256_store_si256(p + 0, _mm256_add_epi64(x0, v));
        _mm256_store_si256(p + 1, _mm256_add_epi64(x1, v));
        _mm256_store_si256(p + 2, _mm256_add_epi64(x2, v));
        _mm256_store_si256(p + 3, _mm256_add_epi64(x3, v));
        _mm256_store_si256(p + 4, _mm256_add_epi64(x4, v));
        _mm256_store_si256(p + 5, _mm256_add_epi64(x5, v));
        _mm256_store_si256(p + 6, _mm256_add_epi64(x6, v));
        _mm256_store_si256(p + 7, _mm256_add_epi64(x7, v));
    }
}
