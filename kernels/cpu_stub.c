/* TEMPORARY STUB (branch pools): minimal CPU predicates so the pools and probes link before the real
 * kernels/cpu.c lands on main. Delete this file at merge; it ignores CIOT_CPU. */
#include "cpu.h"

#if defined(__x86_64__)
#include <cpuid.h>

int ciot_cpu_has_avx2(void) { return __builtin_cpu_supports("avx2"); }
int ciot_cpu_has_fma(void) { return __builtin_cpu_supports("fma"); }
int ciot_cpu_has_avx512vnni(void) {
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}
int ciot_cpu_has_avxvnni(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return 0;
    return ciot_cpu_has_avx2() && ((a >> 4) & 1); /* CPUID.(7,1):EAX[4] = AVX-VNNI */
}
int ciot_cpu_has_neon(void) { return 0; }
int ciot_cpu_has_dotprod(void) { return 0; }
int ciot_cpu_has_i8mm(void) { return 0; }

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1 << 13)
#endif

int ciot_cpu_has_avx2(void) { return 0; }
int ciot_cpu_has_fma(void) { return 0; }
int ciot_cpu_has_avx512vnni(void) { return 0; }
int ciot_cpu_has_avxvnni(void) { return 0; }
int ciot_cpu_has_neon(void) { return 1; }
int ciot_cpu_has_dotprod(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }
int ciot_cpu_has_i8mm(void) { return (getauxval(AT_HWCAP2) & HWCAP2_I8MM) != 0; }

#else
int ciot_cpu_has_avx2(void) { return 0; }
int ciot_cpu_has_fma(void) { return 0; }
int ciot_cpu_has_avx512vnni(void) { return 0; }
int ciot_cpu_has_avxvnni(void) { return 0; }
int ciot_cpu_has_neon(void) { return 0; }
int ciot_cpu_has_dotprod(void) { return 0; }
int ciot_cpu_has_i8mm(void) { return 0; }
#endif

ciot_status ciot_cpu_env_check(const char **bad, int *bad_len) {
    (void)bad;
    (void)bad_len;
    return CIOT_OK;
}
