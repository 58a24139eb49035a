/* The compute probe: the table of instruction families, the per-thread task on the pool, and the
 * timing of repetitions into min / median / max GMAC/s. */
#include "probe_compute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compute_loops.h"
#include "cpu.h"
#include "os.h"
#include "stats.h"

typedef struct {
    const char *name;           /* the row's name (isa.def PROBE) */
    const char *instruction;
    ciot_mac mac;               /* the kernels whose inner loop this family's loop times */
} family_desc;

#define FAMILY(id, suffix, family, instruction) [CIOT_COMPUTE_##family] = {#suffix, instruction, CIOT_MAC_##family},
#define FAMILY_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(FAMILY, id, suffix, probe)
static const family_desc families[CIOT_COMPUTE_N_FAMILIES] = {CIOT_ISA_FAMILY_ORDER(FAMILY_ROW)};
#undef FAMILY_ROW
#undef FAMILY

typedef struct {
    unsigned feature;           /* the CIOT_F_* bit of its row */
    ciot_compute_loop loop;
    const int *macs_per_iter;
} family_impl;

/* The loops this architecture is built with; the other entries stay empty. */
#define IMPL(id, suffix, family, instruction) [CIOT_COMPUTE_##family] = {CIOT_F_##id, ciot_compute_loop_##suffix, &ciot_compute_macs_##suffix},
#define IMPL_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(IMPL, id, suffix, probe)
static const family_impl impls[CIOT_COMPUTE_N_FAMILIES] = {
#if defined(__x86_64__)
    CIOT_ISA_X86(IMPL_ROW)
#elif defined(__aarch64__)
    CIOT_ISA_ARM(IMPL_ROW)
#endif
};
#undef IMPL_ROW
#undef IMPL

const char *ciot_compute_family_name(ciot_compute_family f) {
    return (unsigned)f < CIOT_COMPUTE_N_FAMILIES ? families[f].name : "unknown";
}

const char *ciot_compute_instruction(ciot_compute_family f) {
    return (unsigned)f < CIOT_COMPUTE_N_FAMILIES ? families[f].instruction : "unknown";
}

ciot_status ciot_compute_family_parse(const char *name, ciot_compute_family *out) {
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++)
        if (name && !strcmp(name, families[f].name)) {
            *out = (ciot_compute_family)f;
            return CIOT_OK;
        }
    return CIOT_E_UNKNOWN;
}

ciot_status ciot_compute_family_of(ciot_mac mac, ciot_compute_family *out) {
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++)
        if (families[f].mac == mac) {
            *out = (ciot_compute_family)f;
            return CIOT_OK;
        }
    return CIOT_E_UNKNOWN;
}

int ciot_compute_macs_per_iter(ciot_compute_family f) {
    return (unsigned)f < CIOT_COMPUTE_N_FAMILIES && impls[f].macs_per_iter ? *impls[f].macs_per_iter : 0;
}

int ciot_compute_fp32(ciot_compute_family f) {
    const char *n = ciot_compute_family_name(f);
    return !strncmp(n, "fma32_", 6) || !strncmp(n, "f16fma_", 7);
}

int ciot_compute_available(ciot_compute_family f) {
    if ((unsigned)f >= CIOT_COMPUTE_N_FAMILIES) return 0;
    return impls[f].loop && (ciot_cpu_features() & impls[f].feature);
}

const char *ciot_compute_family_names(const char *sep, char *buf, int len) {
    int n = 0;
    buf[0] = 0;
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++)
        n += snprintf(buf + n, n < len ? (size_t)(len - n) : 0, "%s%s", f ? sep : "", families[f].name);
    return buf;
}

typedef struct {
    _Alignas(64) uint64_t value;    /* one checksum per thread, on its own line */
} padded_sink;

typedef struct {
    ciot_compute_loop loop;
    uint64_t iters;
    padded_sink *sink;
} compute_job;

static void compute_task(void *arg, int t, int n) {
    compute_job *j = arg;
    (void)n;
    j->sink[t].value = j->loop(j->iters);
}

/* One job of iters per thread on every thread of p; its wall time in ns (at least 1). */
static ciot_status timed_job(ciot_pool *p, ciot_compute_family f, uint64_t iters, uint64_t *ns) {
    padded_sink *sink = ciot_os_aligned_alloc(64, (size_t)ciot_pool_threads(p) * sizeof *sink);
    if (!sink) return CIOT_E_NOMEM;
    compute_job j = {.loop = impls[f].loop, .iters = iters, .sink = sink};
    const uint64_t t0 = ciot_now_ns();
    ciot_pool_run(p, compute_task, &j);
    const uint64_t dt = ciot_now_ns() - t0;
    ciot_os_aligned_free(sink);
    *ns = dt ? dt : 1;
    return CIOT_OK;
}

static ciot_status check_family(ciot_pool *p, ciot_compute_family f) {
    if (!p || (unsigned)f >= CIOT_COMPUTE_N_FAMILIES) return CIOT_E_ARG;
    return ciot_compute_available(f) ? CIOT_OK : CIOT_E_CPU;
}

ciot_status ciot_compute_size(ciot_pool *p, ciot_compute_family f, double seconds, uint64_t *iters) {
    ciot_status st = check_family(p, f);
    if (st != CIOT_OK) return st;
    if (!iters || !(seconds > 0)) return CIOT_E_ARG;
    uint64_t n = 1024, dt = 0;
    for (;;) {
        if ((st = timed_job(p, f, n, &dt)) != CIOT_OK) return st;
        if (dt >= 5000000 || n >= ((uint64_t)1 << 40)) break;
        n *= 2;
    }
    const double scaled = (double)n * seconds * 1e9 / (double)dt;
    *iters = scaled < 1 ? 1 : (uint64_t)scaled;
    return CIOT_OK;
}

ciot_status ciot_compute_sample(ciot_pool *p, ciot_compute_family f, uint64_t iters, double *gmacs) {
    ciot_status st = check_family(p, f);
    if (st != CIOT_OK) return st;
    if (!gmacs || !iters) return CIOT_E_ARG;
    uint64_t dt;
    if ((st = timed_job(p, f, iters, &dt)) != CIOT_OK) return st;
    *gmacs = (double)iters * (double)*impls[f].macs_per_iter * ciot_pool_threads(p) / (double)dt; /* MACs per ns */
    return CIOT_OK;
}

ciot_status ciot_compute_measure(ciot_pool *p, ciot_compute_family f, double seconds_per_rep, int reps,
                                 ciot_compute_result *out) {
    if (!out || reps < 1 || !(seconds_per_rep > 0)) return CIOT_E_ARG;
    uint64_t iters;
    ciot_status st = ciot_compute_size(p, f, seconds_per_rep, &iters);
    if (st != CIOT_OK) return st;
    double *rates = malloc((size_t)reps * sizeof *rates);
    if (!rates) return CIOT_E_NOMEM;
    for (int r = 0; r < reps && st == CIOT_OK; r++) st = ciot_compute_sample(p, f, iters, &rates[r]);
    if (st == CIOT_OK) {
        const ciot_spread s = ciot_spread_sort(rates, reps);
        *out = (ciot_compute_result){
            .family = f, .threads = ciot_pool_threads(p), .reps = reps, .iters = iters,
            .macs_per_iter = *impls[f].macs_per_iter, .min_gmacs = s.min, .median_gmacs = s.median,
            .max_gmacs = s.max,
        };
    }
    free(rates);
    return st;
}
