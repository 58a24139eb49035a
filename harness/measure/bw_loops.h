/* The DRAM probe's inner loops, one set per ISA with the same signatures: the portable _generic set in
 * probe_bw.c, _avx2 in x86/bw_avx2.c, _neon in arm/bw_neon.c. Preconditions: pointers 64-byte aligned,
 * bytes a multiple of CIOT_BW_BLOCK. */
#ifndef CIOT_BW_LOOPS_H
#define CIOT_BW_LOOPS_H

#include <stddef.h>
#include <stdint.h>
#include "prefetch.h" /* the probe reads with the kernels' prefetch policy */

enum { CIOT_BW_BLOCK = 256 }; /* bytes per loop iteration: 8 independent 32-byte loads of work */
/* The address streams a read, update or copy_nt sample also runs with, beside one: a kernel that reads
 * several rows or planes side by side keeps more lines in flight than one sequential stream, which can read
 * slower than the kernels (results/kernel-bounds.md, "Probes and the ruler"): the ceiling is the faster plan. */
enum { CIOT_BW_STREAMS = 4 };

/* The order every streamed loop takes its blocks in: the buffer's `bytes` as `streams` equal parts, block 0
 * of each part in part order, then block 1 of each, and so on; `at` is the block's byte offset in the buffer.
 * The loop body follows the macro. */
#define CIOT_BW_EACH_BLOCK(at, bytes, streams)                                                                  \
    for (size_t ciot_bw_part_ = (bytes) / (size_t)(streams), ciot_bw_off_ = 0; ciot_bw_off_ < ciot_bw_part_;   \
         ciot_bw_off_ += CIOT_BW_BLOCK)                                                                         \
        for (size_t at = ciot_bw_off_; at < ciot_bw_off_ + (size_t)(streams) * ciot_bw_part_; at += ciot_bw_part_)

/* Reads every byte; returns the wrapping sum of its 64-bit words, so the loads cannot be dropped. The
 * buffer is `streams` equal parts read side by side (streams 1: in address order), a CIOT_BW_BLOCK of each
 * in turn; bytes is then a multiple of streams x CIOT_BW_BLOCK. With ahead > 0 it also software-prefetches
 * every line `ahead` bytes in front within its part, as the kernels do under the same policy
 * (kernels/prefetch.h), so the ceiling is measured the way the kernels read. */
typedef uint64_t (*ciot_bw_read_fn)(const void *src, size_t bytes, size_t ahead, int streams);
/* Stores `bytes` bytes of a pattern derived from value. */
typedef void (*ciot_bw_write_fn)(void *dst, size_t bytes, uint64_t value);
/* Copies bytes from src to dst (no overlap). The _nt twins store non-temporally (past the cache, so no
 * destination line is read before it is written), as a streaming copy does. */
typedef void (*ciot_bw_copy_fn)(void *dst, const void *src, size_t bytes);
/* copy_nt: the same in `streams` equal parts side by side, a CIOT_BW_BLOCK of each in turn (bytes a multiple
 * of streams x CIOT_BW_BLOCK). */
typedef void (*ciot_bw_copy_nt_fn)(void *dst, const void *src, size_t bytes, int streams);
/* Adds value to every 64-bit word in place: each line is read, then written back (a state updated in place);
 * ahead and streams as read's (the policy of DeltaNet's state rows, which are read and written so). */
typedef void (*ciot_bw_update_fn)(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams);

uint64_t ciot_bw_read_generic(const void *src, size_t bytes, size_t ahead, int streams);
void ciot_bw_write_generic(void *dst, size_t bytes, uint64_t value);
void ciot_bw_copy_generic(void *dst, const void *src, size_t bytes);
void ciot_bw_copy_nt_generic(void *dst, const void *src, size_t bytes, int streams);
void ciot_bw_update_generic(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams);

#if defined(__x86_64__)
uint64_t ciot_bw_read_avx2(const void *src, size_t bytes, size_t ahead, int streams);
void ciot_bw_write_avx2(void *dst, size_t bytes, uint64_t value);
void ciot_bw_copy_avx2(void *dst, const void *src, size_t bytes);
void ciot_bw_copy_nt_avx2(void *dst, const void *src, size_t bytes, int streams);
void ciot_bw_update_avx2(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams);
#endif

#if defined(__aarch64__)
uint64_t ciot_bw_read_neon(const void *src, size_t bytes, size_t ahead, int streams);
void ciot_bw_write_neon(void *dst, size_t bytes, uint64_t value);
void ciot_bw_copy_neon(void *dst, const void *src, size_t bytes);
void ciot_bw_copy_nt_neon(void *dst, const void *src, size_t bytes, int streams);
void ciot_bw_update_neon(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams);
#endif

#endif
