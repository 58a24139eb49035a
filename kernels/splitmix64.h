/* The one random generator: splitmix64, so a seed names the same draws on every machine and compiler. The
 * test data draws from it (check/: testdata.c's cases, gguf_check.c's activations) and the weight region
 * fills from it (measure/weights.c); it sits on the lowest floor so that both floors reach it. */
#ifndef CIOT_SPLITMIX64_H
#define CIOT_SPLITMIX64_H

#include <stdint.h>

#define CIOT_SPLITMIX64_STEP 0x9e3779b97f4a7c15ull

/* Draw i of the stream whose state starts at base - STEP: a function of i alone, so any split of a
 * buffer fills the same values. */
static inline uint64_t ciot_splitmix64_at(uint64_t base, uint64_t i) {
    uint64_t z = base + i * CIOT_SPLITMIX64_STEP;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Advances *s and returns its next 64 random bits. */
static inline uint64_t ciot_splitmix64(uint64_t *s) { return ciot_splitmix64_at(*s += CIOT_SPLITMIX64_STEP, 0); }

#endif
