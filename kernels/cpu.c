/* CPU feature detection: cpuid + XCR0 on x86, getauxval / sysctl / IsProcessorFeaturePresent on ARM;
 * CIOT_CPU masks the result down so dispatch can be tested without the hardware (cpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "kernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static unsigned long long xgetbv0(void) {
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}
static unsigned detect(void) {
    unsigned a, b, c, d, f = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int osxsave = (c >> 27) & 1, fma = (c >> 12) & 1;
    const unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
    const int ymm = (xcr0 & 6) == 6, zmm = (xcr0 & 0xe6) == 0xe6; /* OS saves YMM / ZMM state */
    if (fma && ymm) f |= CIOT_F_FMA;
    if (__get_cpuid_max(0, NULL) < 7) return f;
    __cpuid_count(7, 0, a, b, c, d);
    if (((b >> 5) & 1) && ymm) f |= CIOT_F_AVX2;
    /* AVX-512 VNNI is only usable with F, BW and VL beside it, and the OS saving ZMM state */
    const int avx512fbwvl = ((b >> 16) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1) && zmm;
    if (((c >> 11) & 1) && avx512fbwvl) f |= CIOT_F_AVX512VNNI;
    /* AVX-512 VBMI (vpermb, vpermi2b: byte permutes over 64 and 128 bytes), same conditions */
    if (((c >> 1) & 1) && avx512fbwvl) f |= CIOT_F_AVX512VBMI;
    __cpuid_count(7, 1, a, b, c, d);
    if (((a >> 4) & 1) && ymm) f |= CIOT_F_AVXVNNI;
    return f;
}
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1 << 13)
#endif
static unsigned detect(void) {
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    unsigned f = CIOT_F_NEON; /* Advanced SIMD is mandatory on AArch64 Linux */
    if (hw & HWCAP_ASIMDDP) f |= CIOT_F_DOTPROD;
    if (hw2 & HWCAP2_I8MM) f |= CIOT_F_I8MM;
    return f;
}
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>
static int sysctl_flag(const char *name) {
    int v = 0;
    size_t n = sizeof v;
    return sysctlbyname(name, &v, &n, NULL, 0) == 0 && v;
}
static unsigned detect(void) {
    unsigned f = CIOT_F_NEON;
    if (sysctl_flag("hw.optional.arm.FEAT_DotProd")) f |= CIOT_F_DOTPROD;
    if (sysctl_flag("hw.optional.arm.FEAT_I8MM")) f |= CIOT_F_I8MM;
    return f;
}
#elif defined(_M_ARM64) && defined(_WIN32)
#include <windows.h>
#ifndef PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE
#define PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE 43
#endif
#ifndef PF_ARM_SVE_I8MM_INSTRUCTIONS_AVAILABLE
#define PF_ARM_SVE_I8MM_INSTRUCTIONS_AVAILABLE 54
#endif
static unsigned detect(void) {
    unsigned f = CIOT_F_NEON;
    if (IsProcessorFeaturePresent(PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE)) f |= CIOT_F_DOTPROD;
    if (IsProcessorFeaturePresent(PF_ARM_SVE_I8MM_INSTRUCTIONS_AVAILABLE)) f |= CIOT_F_I8MM;
    return f;
}
#else
static unsigned detect(void) { return 0; }
#endif

static const struct { unsigned bit; const char *name; } names[] = {
    {CIOT_F_NEON, "neon"}, {CIOT_F_DOTPROD, "dotprod"}, {CIOT_F_I8MM, "i8mm"}, {CIOT_F_AVX2, "avx2"},
    {CIOT_F_FMA, "fma"}, {CIOT_F_AVXVNNI, "avxvnni"}, {CIOT_F_AVX512VNNI, "avx512vnni"},
    {CIOT_F_AVX512VBMI, "avx512vbmi"},
};
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

int ciot_cpu_has_neon(void) { return (ciot_cpu_features() & CIOT_F_NEON) != 0; }
int ciot_cpu_has_dotprod(void) { return (ciot_cpu_features() & CIOT_F_DOTPROD) != 0; }
int ciot_cpu_has_i8mm(void) { return (ciot_cpu_features() & CIOT_F_I8MM) != 0; }
int ciot_cpu_has_avx2(void) { return (ciot_cpu_features() & CIOT_F_AVX2) != 0; }
int ciot_cpu_has_fma(void) { return (ciot_cpu_features() & CIOT_F_FMA) != 0; }
int ciot_cpu_has_avxvnni(void) { return (ciot_cpu_features() & CIOT_F_AVXVNNI) != 0; }
int ciot_cpu_has_avx512vnni(void) { return (ciot_cpu_features() & CIOT_F_AVX512VNNI) != 0; }
int ciot_cpu_has_avx512vbmi(void) { return (ciot_cpu_features() & CIOT_F_AVX512VBMI) != 0; }

const char *ciot_feature_name(unsigned bit) {
    for (int i = 0; i < N_NAMES; i++)
        if (names[i].bit == bit) return names[i].name;
    return "?";
}

const char *ciot_feature_list(unsigned mask, char *buf, int len) {
    int n = 0;
    buf[0] = 0;
    for (int i = 0; i < N_NAMES; i++)
        if (mask & names[i].bit) n += snprintf(buf + n, n < len ? (size_t)(len - n) : 0, "%s%s", n ? "," : "", names[i].name);
    if (!n) snprintf(buf, (size_t)len, "none");
    return buf;
}

const char *ciot_cpu_model(char *buf, int len) {
    snprintf(buf, (size_t)len, "unknown");
#if defined(__APPLE__)
    size_t n = (size_t)len;
    if (sysctlbyname("machdep.cpu.brand_string", buf, &n, NULL, 0) != 0) snprintf(buf, (size_t)len, "unknown");
#elif defined(__linux__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* x86 says "model name", many ARM kernels only "CPU part" (a number) */
        if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5) || !strncmp(line, "CPU part", 8)) {
            char *colon = strchr(line, ':');
            if (!colon) continue;
            colon++;
            while (*colon == ' ' || *colon == '\t') colon++;
            colon[strcspn(colon, "\n")] = 0;
            snprintf(buf, (size_t)len, "%s%s", strncmp(line, "CPU part", 8) ? "" : "CPU part ", colon);
            if (strncmp(line, "CPU part", 8)) break;
        }
    }
    fclose(f);
#endif
    return buf;
}
