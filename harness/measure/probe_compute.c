/* The compute probe: the table of instruction families, the per-thread task on the pool, and the
 * timing of repetitions into min / median / max GMAC/s. */
#include "probe_compute.h"

#include <stdlib.h>
#include <string.h>
#include "compute_loops.h"
#include "cpu.h"
#include "stats.h"

typedef struct {
    const char *name;
    const char *instruction;
    ciot_mac mac;               /* the kernels whose inner loop this family's loop times */
} family_desc;

static const family_desc families[CIOT_COMPUTE_N_FAMILIES] = {
    [CIOT_COMPUTE_AVX2] = {"avx2", "vpmaddubsw + vpmaddwd + vpaddd ymm", CIOT_MAC_AVX2},
    [CIOT_COMPUTE_AVXVNNI] = {"avxvnni", "vpdpbusd ymm (VEX)", CIOT_MAC_AVXVNNI},
    [CIOT_COMPUTE_AVX512VNNI] = {"avx512vnni", "vpdpbusd zmm", CIOT_MAC_AVX512VNNI},
    [CIOT_COMPUTE_NEONDOT] = {"neondot", "sdot (vdotq_s32)", CIOT_MAC_NEONDOT},
    [CIOT_COMPUTE_I8MM] = {"i8mm", "smmla (vmmlaq_s32)", CIOT_MAC_I8MM},
};

typedef struct {
    int (*has)(void);
    ciot_compute_loop loop;
    const int *macs_per_iter;
} family_impl;

/* The loops this architecture is built with; the other entries stay empty. */
static const family_impl impls[CIOT_COMPUTE_N_FAMILIES] = {
#if defined(__x86_64__)
    [CIOT_COMPUTE_AVX2] = {ciot_cpu_has_avx2, ciot_compute_loop_avx2, &ciot_compute_macs_avx2},
    [CIOT_COMPUTE_AVXVNNI] = {ciot_cpu_has_avxvnni, ciot_compute_loop_avxvnni, &ciot_compute_macs_avxvnni},
    [CIOT_COMPUTE_AVX512VNNI] = {ciot_cpu_has_avx512vnni, ciot_compute_loop_avx512vnni,
                                 &ciot_compute_macs_avx512vnni},
#endif
#if defined(__aarch64__)
    [CIOT_COMPUTE_NEONDOT] = {ciot_cpu_has_dotprod, ciot_compute_loop_neondot, &ciot_compute_macs_neondot},
    [CIOT_COMPUTE_I8MM] = {ciot_cpu_has_i8mm, ciot_compute_loop_i8mm, &ciot_compute_macs_i8mm},
#endif
};

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

int ciot_compute_available(ciot_compute_family f) {
    if ((unsigned)f >= CIOT_COMPUTE_N_FAMILIES) return 0;
    return impls[f].has && impls[f].loop && impls[f].has();
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
    padded_sink *sink = aligned_alloc(64, (size_t)ciot_pool_threads(p) * sizeof *sink);
    if (!sink) return CIOT_E_NOMEM;
    compute_job j = {.loop = impls[f].loop, .iters = iters, .sink = sink};
    const uint64_t t0 = ciot_now_ns();
    ciot_pool_run(p, compute_task, &j);
    const uint64_t dt = ciot_now_ns() - t0;
    free(sink);
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
