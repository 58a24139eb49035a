/* Large buffers straight from mmap, aligned to 2 MiB so transparent huge pages can back them whole. */
#include "bigbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

enum { HUGE_ALIGN = 2 << 20 };

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

void *ciot_bigbuf_alloc(size_t bytes, int huge) {
    if (bytes == 0) return NULL;
    size_t len = round_up(bytes, HUGE_ALIGN);
    /* Map one extra alignment unit, then trim both ends to an aligned window of len bytes. */
    char *raw = mmap(NULL, len + HUGE_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = (char *)round_up((uintptr_t)raw, HUGE_ALIGN);
    if (p > raw) munmap(raw, (size_t)(p - raw));
    size_t tail = (size_t)(raw + len + HUGE_ALIGN - (p + len));
    if (tail) munmap(p + len, tail);
#if defined(MADV_HUGEPAGE)
    if (huge) madvise(p, len, MADV_HUGEPAGE);
#endif
#if defined(MADV_NOHUGEPAGE)
    if (!huge) madvise(p, len, MADV_NOHUGEPAGE);
#endif
    return p;
}

void ciot_bigbuf_free(void *p, size_t bytes) {
    if (p) munmap(p, round_up(bytes, HUGE_ALIGN));
}

double ciot_bigbuf_huge_fraction(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int inside = 0;
    unsigned long long rss = 0, huge = 0, v;
    int have_rss = 0, have_huge = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (inside) break; /* the next mapping began */
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (inside && sscanf(line, "Rss: %llu kB", &v) == 1) {
            rss = v, have_rss = 1;
        } else if (inside && sscanf(line, "AnonHugePages: %llu kB", &v) == 1) {
            huge = v, have_huge = 1;
        }
    }
    fclose(f);
    if (!have_rss || !have_huge || rss == 0) return -1;
    return (double)huge / (double)rss;
}

size_t ciot_mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb * 1024;
}
