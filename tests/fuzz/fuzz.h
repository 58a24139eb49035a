/* What the fuzz targets share: an assertion that aborts (libFuzzer and the sanitizers report it with
 * the input that caused it) and a reader of the fuzz input as a stream of fields. */
#ifndef CIOT_FUZZ_H
#define CIOT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond, ...)                                                  \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FUZZ_ASSERT %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            abort();                                                            \
        }                                                                       \
    } while (0)

typedef struct {
    const uint8_t *p;
    size_t left;
} fuzz_input;

/* The next byte, 0 once the input is used up. */
static inline uint8_t fuzz_byte(fuzz_input *in) {
    if (!in->left) return 0;
    in->left--;
    return *in->p++;
}

/* The next n bytes into out (zeros past the end). */
static inline void fuzz_bytes(fuzz_input *in, void *out, size_t n) {
    const size_t take = n < in->left ? n : in->left;
    memcpy(out, in->p, take);
    memset((uint8_t *)out + take, 0, n - take);
    in->p += take, in->left -= take;
}

/* A NUL-terminated string of up to 255 bytes (its length is the next byte); the caller frees it. */
static inline char *fuzz_string(fuzz_input *in) {
    size_t n = fuzz_byte(in);
    char *s = malloc(n + 1);
    fuzz_bytes(in, s, n);
    s[n] = 0;
    return s;
}

#endif
