/* The compute probe's inner loops, one per instruction family, each in its own ISA file. Every loop
 * runs `iters` iterations of independent multiply-accumulate chains on registers and returns a checksum
 * of its accumulators (so it cannot be dropped); the MACs one iteration performs sit beside the loop. */
#ifndef CIOT_COMPUTE_LOOPS_H
#define CIOT_COMPUTE_LOOPS_H

#include <stdint.h>

typedef uint64_t (*ciot_compute_loop)(uint64_t iters);

#if defined(__x86_64__)
uint64_t ciot_compute_loop_avx2(uint64_t iters);        /* x86/compute_avx2.c */
uint64_t ciot_compute_loop_avxvnni(uint64_t iters);     /* x86/compute_avxvnni.c */
uint64_t ciot_compute_loop_avx512vnni(uint64_t iters);  /* x86/compute_avx512vnni.c */
extern const int ciot_compute_macs_avx2, ciot_compute_macs_avxvnni, ciot_compute_macs_avx512vnni;
#endif

#if defined(__aarch64__)
uint64_t ciot_compute_loop_neondot(uint64_t iters);     /* arm/compute_neondot.c */
uint64_t ciot_compute_loop_i8mm(uint64_t iters);        /* arm/compute_i8mm.c */
extern const int ciot_compute_macs_neondot, ciot_compute_macs_i8mm;
#endif

#endif
