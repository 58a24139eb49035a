/* The compute probe: peak int8 multiply-accumulate rate per instruction sequence on a pool, the flat roof
 * of the roofline. Rates count MACs (one int8 product added); GOPS = 2 x GMAC/s. */
#ifndef CIOT_PROBE_COMPUTE_H
#define CIOT_PROBE_COMPUTE_H

#include <stdint.h>
#include "kernel.h"
#include "pool.h"
#include "status.h"

/* One per compute-probe sequence of kernels/isa.def, x86's first: CIOT_COMPUTE_AVX2, CIOT_COMPUTE_AVX2_I16,
 * CIOT_COMPUTE_AVXVNNI, CIOT_COMPUTE_AVX512VNNI, CIOT_COMPUTE_NEONDOT, CIOT_COMPUTE_I8MM. */
#define CIOT_COMPUTE_ENUM(id, suffix, family, instruction) CIOT_COMPUTE_##family,
#define CIOT_COMPUTE_ENUM_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(CIOT_COMPUTE_ENUM, id, suffix, probe)
typedef enum { CIOT_ISA_FAMILY_ORDER(CIOT_COMPUTE_ENUM_ROW) CIOT_COMPUTE_N_FAMILIES } ciot_compute_family;
#undef CIOT_COMPUTE_ENUM_ROW
#undef CIOT_COMPUTE_ENUM

typedef struct {
    ciot_compute_family family;
    int threads;
    int reps;
    uint64_t iters;                 /* loop iterations per thread per repetition */
    int macs_per_iter;              /* what one iteration declares it performs */
    double min_gmacs, median_gmacs, max_gmacs;  /* all threads together; GOPS is twice these */
} ciot_compute_result;

/* "avx2", "avx2_i16", "avxvnni", "avx512vnni", "neondot", "i8mm": the row's name (isa.def). */
const char *ciot_compute_family_name(ciot_compute_family f);
/* Every family's name, separated by sep ("avx2, avxvnni, ..."), for help texts and messages. */
const char *ciot_compute_family_names(const char *sep, char *buf, int len);
/* The instructions the family's loop times, e.g. "vpdpbusd zmm". */
const char *ciot_compute_instruction(ciot_compute_family f);
ciot_status ciot_compute_family_parse(const char *name, ciot_compute_family *out);
/* The MACs one iteration of the family's loop declares (ciot_compute_macs_NAME), 0 when the loop is not
 * built for this architecture. */
int ciot_compute_macs_per_iter(ciot_compute_family f);
/* 1 for the fp32 sequences (fma32_*, f16fma_*: the token ops' roofs), 0 for the int8 ones (the matvecs'). */
int ciot_compute_fp32(ciot_compute_family f);
/* 1 when the family is built for this architecture and the CPU (as masked by CIOT_CPU) has it. */
int ciot_compute_available(ciot_compute_family f);

/* The family whose loop times what a kernel's inner loop multiplies with (kernel.h, ciot_mac): CIOT_OK, or
 * CIOT_E_UNKNOWN for a scalar reference or a lookup kernel, which no family's peak bounds. */
ciot_status ciot_compute_family_of(ciot_mac mac, ciot_compute_family *out);

/* Iterations per thread that make one job of the family's loop on p last about seconds, after a warm-up
 * (jobs doubled until one lasts 5 ms) that wakes the cores and the wide units. CIOT_E_CPU when the family
 * is not available. */
ciot_status ciot_compute_size(ciot_pool *p, ciot_compute_family f, double seconds, uint64_t *iters);
/* One timed job: iters iterations on every thread of p; GMAC/s of all threads together. */
ciot_status ciot_compute_sample(ciot_pool *p, ciot_compute_family f, uint64_t iters, double *gmacs);

/* Runs the family's loop on every thread of p: a warm-up that sizes one repetition to about
 * seconds_per_rep, then `reps` timed repetitions. CIOT_E_CPU when the family is not available. */
ciot_status ciot_compute_measure(ciot_pool *p, ciot_compute_family f, double seconds_per_rep, int reps,
                                 ciot_compute_result *out);

#endif
