/* The test data's one random generator: splitmix64, so a seed names the same draws on every machine and
 * compiler (testdata.c's cases, gguf_check.c's activations). */
#ifndef CIOT_SPLITMIX64_H
#define CIOT_SPLITMIX64_H

#include <stdint.h>

/* Advances *s and returns its next 64 random bits. */
static inline uint64_t ciot_splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
