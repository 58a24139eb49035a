/* The DRAM probe's inner loops, one set per ISA with the same signatures: the portable _generic set in
 * probe_bw.c, _avx2 in x86/bw_avx2.c, _neon in arm/bw_neon.c. Preconditions: pointers 64-byte aligned,
 * bytes a multiple of CIOT_BW_BLOCK. */
#ifndef CIOT_BW_LOOPS_H
#define CIOT_BW_LOOPS_H

#include <stddef.h>
#include <stdint.h>
#include "prefetch.h" /* the probe reads with the kernels' prefetch policy */

enum { CIOT_BW_BLOCK = 256 }; /* bytes per loop iteration: 8 independent 32-byte streams of work */

/* Reads every byte; returns a value that depends on all of them, so the loads cannot be dropped. With
 * ahead > 0 it also software-prefetches (streaming) every line `ahead` bytes in front, as the kernels do
 * under the same policy (kernels/prefetch.h), so the ceiling is measured the way the kernels read. */
typedef uint64_t (*ciot_bw_read_fn)(const void *src, size_t bytes, size_t ahead);
/* Stores `bytes` bytes of a pattern derived from value. */
typedef void (*ciot_bw_write_fn)(void *dst, size_t bytes, uint64_t value);
/* Copies bytes from src to dst (no overlap). The _nt twins store non-temporally (past the cache, so no
 * destination line is read before it is written), as a streaming copy does. */
typedef void (*ciot_bw_copy_fn)(void *dst, const void *src, size_t bytes);
/* Adds value to every 64-bit word in place: each line is read, then written back (a state updated in place);
 * ahead as read's (the policy of DeltaNet's state rows, which are read and written so). */
typedef void (*ciot_bw_update_fn)(void *buf, size_t bytes, uint64_t value, size_t ahead);

uint64_t ciot_bw_read_generic(const void *src, size_t bytes, size_t ahead);
void ciot_bw_write_generic(void *dst, size_t bytes, uint64_t value);
void ciot_bw_copy_generic(void *dst, const void *src, size_t bytes);
void ciot_bw_copy_nt_generic(void *dst, const void *src, size_t bytes);
void ciot_bw_update_generic(void *buf, size_t bytes, uint64_t value, size_t ahead);

#if defined(__x86_64__)
uint64_t ciot_bw_read_avx2(const void *src, size_t bytes, size_t ahead);
void ciot_bw_write_avx2(void *dst, size_t bytes, uint64_t value);
void ciot_bw_copy_avx2(void *dst, const void *src, size_t bytes);
void ciot_bw_copy_nt_avx2(void *dst, const void *src, size_t bytes);
void ciot_bw_update_avx2(void *buf, size_t bytes, uint64_t value, size_t ahead);
#endif

#if defined(__aarch64__)
uint64_t ciot_bw_read_neon(const void *src, size_t bytes, size_t ahead);
void ciot_bw_write_neon(void *dst, size_t bytes, uint64_t value);
void ciot_bw_copy_neon(void *dst, const void *src, size_t bytes);
void ciot_bw_copy_nt_neon(void *dst, const void *src, size_t bytes);
void ciot_bw_update_neon(void *buf, size_t bytes, uint64_t value, size_t ahead);
#endif

#endif
