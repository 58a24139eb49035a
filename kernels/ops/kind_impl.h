/* What a kind's descriptor file (kind_<name>.c) shares: its functions on void args, and sizes that saturate. */
#ifndef CIOT_KIND_IMPL_H
#define CIOT_KIND_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "ops_impl.h"
#include "token_kind.h"

/* The kind's check, phases, scratch and traffic on void args (the table's form of ciot_<kind>_*), and a proof
 * that its args fit ciot_token_args. */
#define CIOT_KIND_FNS(kind)                                                                                 \
    _Static_assert(sizeof(ciot_##kind##_args) <= sizeof(ciot_token_args), "the args fit ciot_token_args"); \
    static ciot_status kind_check(const void *a, char *w, size_t n) { return ciot_##kind##_check(a, w, n); } \
    static int kind_phases(const void *a) { return ciot_##kind##_phases(a); }                                \
    static size_t kind_scratch(const void *a) { return ciot_##kind##_scratch_bytes(a); }                     \
    static void kind_traffic(const void *a, ciot_op_traffic *t) { ciot_##kind##_traffic(a, t); }
#define CIOT_KIND_COMMON .check = kind_check, .phases = kind_phases, .scratch = kind_scratch, .traffic = kind_traffic
/* Version isa's loop of the kind as a ciot_token_fn, named run_<isa>. */
#define CIOT_KIND_LOOP(kind, isa) \
    static void run_##isa(const void *a, int ph, int p, int n) { ciot_##kind##_##isa(a, ph, p, n); }

/* The loops and .run rows of a kind whose versions are an AVX2 loop (AVX-512 F runs it too) and a NEON one,
 * the common case; a kind with other versions writes its own. */
#if defined(__x86_64__)
#define CIOT_KIND_LOOPS_AVX2_NEON(kind) CIOT_KIND_LOOP(kind, ref) CIOT_KIND_LOOP(kind, avx2)
#define CIOT_KIND_RUN_AVX2_NEON {[CIOT_OPV_REF] = run_ref, [CIOT_OPV_AVX2] = run_avx2, [CIOT_OPV_AVX512F] = run_avx2}
#elif defined(__aarch64__)
#define CIOT_KIND_LOOPS_AVX2_NEON(kind) CIOT_KIND_LOOP(kind, ref) CIOT_KIND_LOOP(kind, neon)
#define CIOT_KIND_RUN_AVX2_NEON {[CIOT_OPV_REF] = run_ref, [CIOT_OPV_NEON] = run_neon}
#else
#define CIOT_KIND_LOOPS_AVX2_NEON(kind) CIOT_KIND_LOOP(kind, ref)
#define CIOT_KIND_RUN_AVX2_NEON {[CIOT_OPV_REF] = run_ref}
#endif

/* Non-NULL addresses for the args a kind sizes: the checks look at sizes and never read through them. */
static _Alignas(64) float ciot_kind_probe[2][16];

static inline size_t ciot_size_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static inline size_t ciot_size_mul(size_t a, size_t b) { return a && b > SIZE_MAX / a ? SIZE_MAX : a * b; }

#endif
