/* Software prefetch of streamed weights: one policy for every kernel and for the read probe, set per
 * call (ciot_mm.prefetch, ciot bench --prefetch on|off), so a comparison never mixes a layout with its
 * prefetch. One thread alone keeps too few misses in flight to fill the bus while it also computes:
 * on Zen 5 prefetching 4 KiB ahead measured +10..20 points of the read ceiling. */
#ifndef CIOT_PREFETCH_H
#define CIOT_PREFETCH_H

#include <stddef.h>

enum { CIOT_PREFETCH_DEFAULT = 4096 };   /* bytes ahead when the policy is on */

/* Prefetches, for streaming (non-temporal locality), the lines `ahead` bytes past [p, p + len); ahead 0
 * does nothing. Called once per block streamed, every line of a contiguous stream is covered: starts are
 * at most 64 bytes apart. A prefetch past the end of a buffer never faults. */
static inline void ciot_prefetch(const void *p, size_t len, size_t ahead) {
    if (!ahead) return;
    for (size_t off = 0; off < len; off += 64) __builtin_prefetch((const char *)p + ahead + off, 0, 0);
}

#endif
