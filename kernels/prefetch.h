/* Software prefetch of streamed weights: one policy for every kernel and for the read probe, set per
 * call (ciot_mm.prefetch, ciot bench --prefetch on|off), so a comparison never mixes a layout with its
 * prefetch. One thread alone keeps too few misses in flight to fill the bus while it also computes.
 * x86: prefetcht2 8 KiB ahead, which beat prefetchnta and nearer or farther distances on every layout
 * (results/kernel-bounds.md, "Software prefetch"). It slows the probe's pure stream, so the ruler
 * also reads without prefetch and keeps the fastest read (harness/measure/method.md). aarch64: prfm pldl1strm
 * 4 KiB ahead, unchanged: no ARM speed is measured here, so nothing justifies a change. */
#ifndef CIOT_PREFETCH_H
#define CIOT_PREFETCH_H

#include <stddef.h>

#if defined(__x86_64__) || defined(__i386__)
enum { CIOT_PREFETCH_DEFAULT = 8192 };   /* bytes ahead when the policy is on */
#define CIOT_PREFETCH_LOCALITY 1         /* prefetcht2: into L2, not L1 */
#define CIOT_PREFETCH_HINT "prefetcht2"
#define CIOT_PREFETCH_TEXT "prefetcht2, 8 KiB ahead"
#else
enum { CIOT_PREFETCH_DEFAULT = 4096 };
#define CIOT_PREFETCH_LOCALITY 0         /* streaming */
#define CIOT_PREFETCH_HINT "prfm pldl1strm"
#define CIOT_PREFETCH_TEXT "prfm pldl1strm, 4 KiB ahead"
#endif

/* Prefetches the lines `ahead` bytes past [p, p + len); ahead 0 does nothing. Called once per block
 * streamed, every line of a contiguous stream is covered: starts are at most 64 bytes apart. A prefetch
 * past the end of a buffer never faults. */
static inline void ciot_prefetch(const void *p, size_t len, size_t ahead) {
    if (!ahead) return;
    for (size_t off = 0; off < len; off += 64)
        __builtin_prefetch((const char *)p + ahead + off, 0, CIOT_PREFETCH_LOCALITY);
}

#endif
