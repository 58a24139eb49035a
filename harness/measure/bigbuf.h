/* Large page-aligned buffers for the probes and benchmarks (transparent huge pages when asked), and
 * how much memory the OS says is available. */
#ifndef CIOT_BIGBUF_H
#define CIOT_BIGBUF_H

#include <stddef.h>

/* bytes rounded up to 2 MiB, 2 MiB aligned; huge=1 asks for huge pages, huge=0 forbids them (os.h: madvise
 * on Linux; Windows large pages when the privilege is held), so a comparison states which it measured.
 * Pages are not touched: the caller decides which thread touches them first. NULL when it fails. */
void *ciot_bigbuf_alloc(size_t bytes, int huge);
void ciot_bigbuf_free(void *p, size_t bytes);
/* The share of the mapping holding p that the kernel backs with huge pages (AnonHugePages / Rss from
 * /proc/self/smaps; on Windows 1 for a large-page allocation, else 0), in [0, 1]; -1 when unknown. Call it after the pages were touched. */
double ciot_bigbuf_huge_fraction(const void *p);
/* MemAvailable from /proc/meminfo (GlobalMemoryStatusEx on Windows) in bytes; 0 when unknown. */
size_t ciot_mem_available(void);

#endif
