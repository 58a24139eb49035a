/* CPU feature detection from kernels/isa.def's detection column: cpuid + XCR0 on x86; on ARM what the OS
 * reports through the seam (os.h: getauxval on Linux, IsProcessorFeaturePresent on Windows); CIOT_CPU masks the result down so dispatch can be tested without the
 * hardware (cpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "kernel.h"
#include "os.h"

/* Each row of kernels/isa.def says how its feature is detected; DETECTED ORs in the bit of each row of this
 * architecture whose detection holds, with CPUID or ARMCAP defined for this architecture and OS. */
#define DETECTED(id, word, suffix, flags, needs, probe, detect) | ((detect) ? CIOT_F_##id : 0u)
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static unsigned long long xgetbv0(void) {
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}
static unsigned detect(void) {
    unsigned a, b, c, d, leaf1_ecx, leaf7_ebx = 0, leaf7_ecx = 0, leaf7s1_eax = 0;
    if (!__get_cpuid(1, &a, &b, &leaf1_ecx, &d)) return 0;
    const int osxsave = (leaf1_ecx >> 27) & 1;
    const unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
    const int ymm = (xcr0 & 6) == 6, zmm = (xcr0 & 0xe6) == 0xe6; /* OS saves YMM / ZMM state */
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, leaf7_ebx, leaf7_ecx, d);
        __cpuid_count(7, 1, leaf7s1_eax, b, c, d);
    }
    /* AVX-512 F, VNNI and VBMI count only with F, BW and VL all there (the files of each are compiled with all
     * three) and the OS saving ZMM state */
    const int avx512 = ((leaf7_ebx >> 16) & 1) && ((leaf7_ebx >> 30) & 1) && ((leaf7_ebx >> 31) & 1) && zmm;
#define CPUID(reg, bit, state) (((reg) >> (bit)) & 1) && (state)
    return 0u CIOT_ISA_X86(DETECTED);
#undef CPUID
}
#elif (defined(__aarch64__) || defined(_M_ARM64)) && (defined(__linux__) || defined(_WIN32))
#define ALWAYS 1 /* Advanced SIMD is mandatory on AArch64 */
#define NEVER 0  /* a feature this OS does not report */
#if defined(__linux__)
#define ARMCAP(hwcap, apple, windows) (hwcap)
#define HWCAP(bit) ((hw >> (bit)) & 1)
#define HWCAP2(bit) ((hw2 >> (bit)) & 1)
#else
#define ARMCAP(hwcap, apple, windows) (windows)
#define PF(feature) ciot_os_processor_feature(feature)
#endif
static unsigned detect(void) {
#if defined(__linux__)
    const unsigned long hw = ciot_os_arm_hwcap(1), hw2 = ciot_os_arm_hwcap(2);
#endif
    return 0u CIOT_ISA_ARM(DETECTED);
}
#else
static unsigned detect(void) { return 0; }
#endif
#undef DETECTED

#define NAME(id, word, suffix, flags, needs, probe, detect) {CIOT_F_##id, #word, #suffix, needs},
static const struct { unsigned bit; const char *name, *suffix; unsigned needs; } names[] = {CIOT_ISA(NAME)};
#undef NAME
enum { N_NAMES = sizeof names / sizeof names[0] };

unsigned ciot_cpu_detect(void) {
    static int done;
    static unsigned f;
    if (!done) { f = detect(); done = 1; }
    return f;
}

/* One mask: names separated by ',' up to the end or the next ':'; *end is where it stopped. */
static ciot_status parse_mask(const char *p, unsigned *mask, const char **end, const char **bad, int *bad_len) {
    *mask = 0;
    while (*p && *p != ':') {
        const char *e = p;
        while (*e && *e != ',' && *e != ':') e++;
        int n = (int)(e - p), found = n == 0 || (n == 4 && !strncmp(p, "none", 4));
        for (int i = 0; i < N_NAMES && !found; i++)
            if ((int)strlen(names[i].name) == n && !strncmp(p, names[i].name, (size_t)n)) {
                *mask |= names[i].bit;
                found = 1;
            }
        if (!found) {
            if (bad) { *bad = p; *bad_len = n; }
            return CIOT_E_UNKNOWN;
        }
        p = *e == ',' ? e + 1 : e;
    }
    *end = p;
    return CIOT_OK;
}

ciot_status ciot_cpu_parse(const char *list, unsigned *mask, const char **bad, int *bad_len) {
    /* masks separated by ':' are intersected: a test that masks inside a masked run keeps only what both keep */
    unsigned all = ~0u;
    const char *p = list;
    for (;;) {
        unsigned one;
        const ciot_status st = parse_mask(p, &one, &p, bad, bad_len);
        if (st != CIOT_OK) return *mask = 0, st;
        all &= one;
        if (*p != ':') break;
        p++;
    }
    *mask = all;
    return CIOT_OK;
}

ciot_status ciot_cpu_env_check(const char **bad, int *bad_len) {
    const char *env = getenv("CIOT_CPU");
    unsigned mask;
    return env ? ciot_cpu_parse(env, &mask, bad, bad_len) : CIOT_OK;
}

unsigned ciot_cpu_features(void) {
    const char *env = getenv("CIOT_CPU");
    unsigned mask;
    if (env && ciot_cpu_parse(env, &mask, NULL, NULL) == CIOT_OK) return ciot_cpu_detect() & mask;
    return ciot_cpu_detect(); /* an unknown name is reported by ciot_cpu_env_check at start-up */
}

#define HAS(id, word, suffix, flags, needs, probe, detect) \
    int ciot_cpu_has_##word(void) { return (ciot_cpu_features() & CIOT_F_##id) != 0; }
CIOT_ISA(HAS)
#undef HAS

#if defined(__aarch64__)
int ciot_sve_vector_bytes_sve(void); /* arm/vector_length_sve.c: svcntb(), run only where SVE is */
int ciot_cpu_sve_vector_bytes(void) { return ciot_cpu_detect() & CIOT_F_SVE ? ciot_sve_vector_bytes_sve() : 0; }
#else
int ciot_cpu_sve_vector_bytes(void) { return 0; }
#endif

const char *ciot_feature_name(unsigned bit) {
    for (int i = 0; i < N_NAMES; i++)
        if (names[i].bit == bit) return names[i].name;
    return "?";
}

/* The names of the bits in mask, in the table's order, separated by sep; "none" when there are none. */
static const char *join_names(unsigned mask, const char *sep, char *buf, int len) {
    int n = 0;
    buf[0] = 0;
    for (int i = 0; i < N_NAMES; i++)
        if (mask & names[i].bit) n += snprintf(buf + n, n < len ? (size_t)(len - n) : 0, "%s%s", n ? sep : "", names[i].name);
    if (!n) snprintf(buf, (size_t)len, "none");
    return buf;
}

const char *ciot_feature_list(unsigned mask, char *buf, int len) { return join_names(mask, ",", buf, len); }
const char *ciot_feature_words(char *buf, int len) { return join_names(~0u, ", ", buf, len); }

int ciot_isa_needs(const char *suffix, unsigned *needs) {
    for (int i = 0; i < N_NAMES; i++)
        if (names[i].suffix[0] && !strcmp(suffix, names[i].suffix)) return *needs = names[i].needs, 1;
    return 0;
}

/* Read once: in a VM each cpuid traps to the hypervisor (microseconds), and kernels ask per call. */
int ciot_cpu_is_amd(void) {
#if defined(__x86_64__) || defined(__i386__)
    static int amd = -1;
    int v = __atomic_load_n(&amd, __ATOMIC_RELAXED);
    if (v < 0) {
        unsigned a, b, c, d;
        v = __get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u; /* "AuthenticAMD" */
        __atomic_store_n(&amd, v, __ATOMIC_RELAXED);
    }
    return v;
#else
    return 0;
#endif
}

const char *ciot_cpu_model(char *buf, int len) { return ciot_os_cpu_model(buf, (size_t)len); }
