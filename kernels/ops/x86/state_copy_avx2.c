/* state_copy, AVX2: non-temporal stores, so the copy's destination goes to memory without first being read
 * into the cache (a plain copy reads every destination line before writing it). The aligned middle is the
 * copy_nt probe's own loop, in CIOT_COPY_NT_STREAMS parts side by side (copy_nt_avx2.h); the unaligned head
 * and the tail are plain copies. */
#include <string.h>
#include "copy_nt_avx2.h"
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
    size_t i = head + (n - head) / 64 * 64;
    ciot_copy_nt_avx2(d + head, s + head, i - head, CIOT_COPY_NT_STREAMS);
    _mm_sfence();
    memcpy(d + i, s + i, n - i);
}
