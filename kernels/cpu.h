/* CPU feature detection; predicates compile on every architecture and return false elsewhere. */
#ifndef CIOT_CPU_H
#define CIOT_CPU_H

#include "kernel.h"
#include "status.h"

/* Detected features (CIOT_F_* bits), masked down by the CIOT_CPU environment variable when set:
 * CIOT_CPU=dotprod,neon keeps only those; CIOT_CPU=none keeps nothing. Several masks separated by ':'
 * are intersected, so a mask a test adds to one set outside it ("avx2,fma:avx2,fma,avx512vnni", what
 * ctest's path_list_append makes) keeps only what both keep: a test never gains a feature the run hid. */
unsigned ciot_cpu_features(void);
/* The hardware's features, ignoring CIOT_CPU. */
unsigned ciot_cpu_detect(void);
/* Parses a CIOT_CPU-style value (masks separated by ':', names by ',') into feature bits, the
 * intersection of its masks; CIOT_E_UNKNOWN names the bad word in *bad. */
ciot_status ciot_cpu_parse(const char *list, unsigned *mask, const char **bad, int *bad_len);
/* Checks the CIOT_CPU variable; CIOT_E_UNKNOWN when it names an unknown feature. */
ciot_status ciot_cpu_env_check(const char **bad, int *bad_len);

/* ciot_cpu_has_WORD(): whether ciot_cpu_features() has the feature (kernels/isa.def: ciot_cpu_has_dotprod, ...). */
#define CIOT_CPU_HAS(id, word, suffix, flags, needs, probe, detect) int ciot_cpu_has_##word(void);
CIOT_ISA(CIOT_CPU_HAS)
#undef CIOT_CPU_HAS

/* The SVE vector length in bytes (svcntb(): 16 to 256, any multiple of 16), or 0 when the hardware has no SVE
 * (CIOT_CPU does not change it: the length is the process's, not a feature). */
int ciot_cpu_sve_vector_bytes(void);

/* Feature name of one bit ("dotprod"), and a comma list of all bits in mask into buf. */
const char *ciot_feature_name(unsigned bit);
const char *ciot_feature_list(unsigned mask, char *buf, int len);
/* Every CIOT_CPU word, separated by ", ", into buf. */
const char *ciot_feature_words(char *buf, int len);
/* The features a kernel file of this suffix ("avx2", "neondot") needs at run time into *needs: 1, or 0 when
 * no row of kernels/isa.def has that suffix. */
int ciot_isa_needs(const char *suffix, unsigned *needs);
/* Whether the CPU is AMD's (x86 cpuid vendor "AuthenticAMD"); 0 on every other CPU and architecture. For
 * tuning a kernel measured differently on AMD and Intel (where data goes, never which bits come out). */
int ciot_cpu_is_amd(void);

/* The CPU's model name (from /proc/cpuinfo, sysctl or cpuid), or "unknown". */
const char *ciot_cpu_model(char *buf, int len);

#endif
