/* state_copy, AVX2: non-temporal stores, so the copy's destination goes to memory without first being read
 * into the cache (a plain copy reads every destination line before writing it). One 64-byte line per step, as
 * the copy_nt probe (harness/measure/x86/bw_avx2.c): on an Intel Xeon it ran 1.15x a 128-byte step. */
#include <string.h>
#include "ops_avx2.h"
#include "ops_impl.h"

void ciot_state_copy_avx2(const ciot_state_copy_args *a, int phase, int part, int parts) {
    size_t lo, hi;
    ciot_state_copy_share(a, part, parts, &lo, &hi);
    const char *s = (const char *)a->src + lo;
    char *d = (char *)a->dst + lo;
    size_t n = hi - lo, head = (size_t)(-(uintptr_t)d & 63);
    if (head > n) head = n;
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 64 <= n; i += 64) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(s + i)), v1 = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        _mm256_stream_si256((__m256i *)(d + i), v0);
        _mm256_stream_si256((__m256i *)(d + i + 32), v1);
    }
    _mm_sfence();
    memcpy(d + i, s + i, n - i);
}
