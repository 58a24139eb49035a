/* The compute probe's inner loops, one per instruction sequence (a row of `ciot compute`), each in the file
 * of its ISA's suffix. Every loop
 * runs `iters` iterations of independent multiply-accumulate chains on registers and returns a checksum
 * of its accumulators (so it cannot be dropped); the MACs one iteration performs sit beside the loop. */
#ifndef CIOT_COMPUTE_LOOPS_H
#define CIOT_COMPUTE_LOOPS_H

#include <stdint.h>
#include "kernel.h"

typedef uint64_t (*ciot_compute_loop)(uint64_t iters);

/* ciot_compute_loop_NAME and ciot_compute_macs_NAME, in <arch>/compute_SUFFIX.c, for every probe sequence
 * (PROBE(FAMILY, NAME, ...)) of this architecture's rows in kernels/isa.def. */
#define CIOT_COMPUTE_LOOP(id, suffix, family, instruction) \
    uint64_t ciot_compute_loop_##suffix(uint64_t iters); \
    extern const int ciot_compute_macs_##suffix;
#define CIOT_COMPUTE_LOOP_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(CIOT_COMPUTE_LOOP, id, suffix, probe)
#if defined(__x86_64__)
CIOT_ISA_X86(CIOT_COMPUTE_LOOP_ROW)
#elif defined(__aarch64__)
CIOT_ISA_ARM(CIOT_COMPUTE_LOOP_ROW)
#endif
#undef CIOT_COMPUTE_LOOP_ROW
#undef CIOT_COMPUTE_LOOP

/* The register-only loops (VNNI, SDOT, SMMLA) run this many independent chains, enough to cover each
 * instruction's latency on the cores they target. EACH is pasted once per chain, so a loop names its
 * accumulators a##k: SVE's sizeless vector types cannot live in an array, and this serves them all. */
enum { CIOT_REG_CHAINS = 12 };
#define CIOT_REG_CHAINS_EACH(EACH) \
    EACH(0) EACH(1) EACH(2) EACH(3) EACH(4) EACH(5) EACH(6) EACH(7) EACH(8) EACH(9) EACH(10) EACH(11)

#endif
